// The forge_prs source through its kind's contract suite.
import { expect } from 'vitest';
import { describeTriggerSource } from '../../../test/support/describe-trigger-source.js';
import { fakeConnection, pull } from '../../../test/support/fake-forge.js';
import plugin, { forgePrsSource } from './index.js';

const t1 = '2026-01-01T00:00:01Z';
const t2 = '2026-01-01T00:00:02Z';

describeTriggerSource(forgePrsSource, {
  plugin,
  valid: [
    { type: 'forge_prs' },
    { type: 'forge_prs', state: 'closed', limit: 5, poll_interval: '10m' },
  ],
  invalid: [
    { def: { type: 'forge_prs', state: 'draft' }, path: 'state' },
    { def: { type: 'forge_prs', labels: ['x'] }, path: 'labels' },
  ],
  polls: [
    {
      name: 'seeding, then opened, synchronized and updated',
      def: { type: 'forge_prs' },
      cursor: JSON.stringify({ v: 1, items: { '1': `${t1} aaa`, '2': `${t1} bbb` } }),
      ctx: {
        forge: fakeConnection(
          [],
          [
            pull(1, t2, 'aaa'),
            pull(2, t2, 'ccc', { fork: true, head_repo: 'them/w' }),
            pull(3, t1, 'ddd'),
          ],
        ),
      },
      expect: (r) => {
        expect(r.ok && r.events.map((e) => [e.number, e.kind])).toEqual([
          [3, 'opened'],
          [1, 'updated'],
          [2, 'synchronized'],
        ]);
        expect(r.ok && r.events[2]).toMatchObject({
          fork: true,
          head_repo: 'them/w',
          head_sha: 'ccc',
          actor: 'octocat',
        });
      },
    },
    {
      name: 'the seeding poll answers no events',
      def: { type: 'forge_prs' },
      cursor: null,
      ctx: { forge: fakeConnection([], [pull(1, t1, 'aaa')]) },
      expect: (r) => expect(r).toMatchObject({ ok: true, events: [] }),
    },
  ],
});
