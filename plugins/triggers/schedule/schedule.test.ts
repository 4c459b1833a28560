// The schedule source through its kind's contract suite.
import { describeTriggerSource } from '../../../test/support/describe-trigger-source.js';
import plugin, { scheduleSource } from './index.js';

describeTriggerSource(scheduleSource, {
  plugin,
  valid: [
    { type: 'schedule', cron: '0 9 * * 1-5', timezone: 'UTC' },
    { type: 'schedule', cron: '*/30 * * * * *' },
  ],
  invalid: [
    { def: { type: 'schedule' }, path: 'cron' },
    { def: { type: 'schedule', cron: 'every day' }, path: 'cron' },
    { def: { type: 'schedule', cron: '0 9 * * *', timezone: 'Mars/Olympus' }, path: 'timezone' },
  ],
  schedules: [
    {
      def: { type: 'schedule', cron: '0 9 * * 1-5', timezone: 'UTC' },
      after: '2026-11-20T09:00:00.000Z',
      next: '2026-11-23T09:00:00.000Z',
    },
    {
      def: { type: 'schedule', cron: '0 9 * * *', timezone: 'Europe/Berlin' },
      after: '2026-07-01T00:00:00.000Z',
      next: '2026-07-01T07:00:00.000Z',
    },
    {
      def: { type: 'schedule', cron: '0 0 * * *', timezone: 'UTC' },
      after: '2026-01-01T00:00:00.000Z',
      next: '2026-01-02T00:00:00.000Z',
    },
  ],
});
