/**
 * schedule: a trigger source that fires on a cron pattern (croner syntax, optional seconds
 * field), in a time zone when one is named (SPEC §2.6). The kernel owns the clock: on arming it
 * anchors the schedule at the current time (nothing that was due before fires), then fires each
 * occurrence when the injected clock reaches it and moves the anchor there; after a daemon
 * restart the occurrences missed while it was down fire once, as the latest of them. Each event
 * is `{id: "tick@<time>", kind: "tick", scheduled_at}`. Uses only the plugin door. Decision 085.
 */
import { Cron } from 'croner';
import { z } from 'zod';
import {
  definePlugin,
  defineTriggerSource,
  type TriggerFieldRow,
} from '../../../kernel/plugin/index.js';

function cronProblem(pattern: string, timezone?: string): string | null {
  try {
    new Cron(pattern, { paused: true, ...(timezone ? { timezone } : {}) }).stop();
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

function zoneProblem(zone: string): string | null {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return null;
  } catch {
    return `timezone ${JSON.stringify(zone)} is not an IANA time zone (such as Europe/Berlin)`;
  }
}

export const ScheduleSourceSchema = z
  .strictObject({
    type: z.literal('schedule'),
    cron: z.string({ error: 'cron is required (such as "0 9 * * 1-5")' }).min(1),
    timezone: z
      .string()
      .min(1)
      .refine(
        (z) => zoneProblem(z) === null,
        'timezone must be an IANA time zone such as Europe/Berlin',
      )
      .optional(),
  })
  .superRefine((s, ctx) => {
    if (s.timezone !== undefined && zoneProblem(s.timezone) !== null) return;
    const problem = cronProblem(s.cron, s.timezone);
    if (problem) ctx.addIssue({ code: 'custom', path: ['cron'], message: `cron: ${problem}` });
  });
export type ScheduleSource = z.infer<typeof ScheduleSourceSchema>;

const rows: TriggerFieldRow[] = [
  {
    name: 'cron',
    control: 'string',
    required: true,
    help: 'minute hour day-of-month month day-of-week, with an optional leading seconds field.',
  },
  { name: 'timezone', control: 'string', help: 'IANA zone; the daemon host’s zone when left out.' },
];

export const scheduleSource = defineTriggerSource<ScheduleSource>({
  type: 'schedule',
  schema: ScheduleSourceSchema,
  meta: {
    kind: 'schedule',
    help: 'Fires on a cron schedule, anchored when the trigger is armed.',
    rows,
    events: ['tick'],
    trusted: ['id', 'kind', 'scheduled_at'],
  },
  schedule(def) {
    const cron = new Cron(def.cron, {
      paused: true,
      ...(def.timezone ? { timezone: def.timezone } : {}),
    });
    return {
      next: (after) => cron.nextRun(after),
      event: (at) => ({
        id: `tick@${at.toISOString()}`,
        kind: 'tick',
        scheduled_at: at.toISOString(),
      }),
    };
  },
});

export default definePlugin({
  name: 'svc:triggers/schedule',
  svc: '^2.0.0',
  setup(api) {
    api.registerTriggerSource(scheduleSource);
  },
});
