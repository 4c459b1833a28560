// The forge_issues source through its kind's contract suite.
import { expect } from 'vitest';
import { describeTriggerSource } from '../../../test/support/describe-trigger-source.js';
import { fakeConnection, issue } from '../../../test/support/fake-forge.js';
import plugin, { forgeIssuesSource } from './index.js';

const listed = [
  issue(1, '2026-01-01T00:00:01Z'),
  issue(2, '2026-01-01T00:00:02Z', { labels: ['bug'], author: 'alice' }),
];
const snapshot = JSON.stringify({ v: 1, items: { '1': '2026-01-01T00:00:01Z' } });

describeTriggerSource(forgeIssuesSource, {
  plugin,
  valid: [
    { type: 'forge_issues' },
    { type: 'forge_issues', state: 'all', labels: ['svc'], limit: 100, poll_interval: '1m' },
  ],
  invalid: [
    { def: { type: 'forge_issues', state: 'merged' }, path: 'state' },
    { def: { type: 'forge_issues', limit: 101 }, path: 'limit' },
    { def: { type: 'forge_issues', poll_interval: '1s' }, path: 'poll_interval' },
  ],
  polls: [
    {
      name: 'the seeding poll only takes the snapshot',
      def: { type: 'forge_issues', labels: ['bug'], limit: 10 },
      cursor: null,
      ctx: { forge: fakeConnection(listed) },
      expect: (r) => {
        expect(r).toMatchObject({ ok: true, events: [], truncated: 0, refused: 0 });
        if (r.ok)
          expect(JSON.parse(r.cursor as string)).toEqual({
            v: 1,
            items: { '1': '2026-01-01T00:00:01Z', '2': '2026-01-01T00:00:02Z' },
          });
      },
    },
    {
      name: 'a new issue is opened; the author is the actor',
      def: { type: 'forge_issues' },
      cursor: snapshot,
      ctx: { forge: fakeConnection(listed) },
      expect: (r) => {
        expect(r.ok && r.events).toEqual([
          {
            id: 'issue-2@2026-01-01T00:00:02Z',
            kind: 'opened',
            repo: 'acme/w',
            number: 2,
            title: 'Issue 2',
            body: '',
            url: 'https://github.com/acme/w/issues/2',
            state: 'open',
            labels: ['bug'],
            actor: 'alice',
            author: 'alice',
            created_at: '2026-01-01T00:00:00Z',
            updated_at: '2026-01-01T00:00:02Z',
          },
        ]);
      },
    },
    {
      name: 'a moved update time is updated; past the cap the rest wait for the next poll',
      def: { type: 'forge_issues' },
      cursor: JSON.stringify({ v: 1, items: { '1': 'old', '2': 'old' } }),
      ctx: { forge: fakeConnection(listed), maxEvents: 1 },
      expect: (r) => {
        expect(r).toMatchObject({
          ok: true,
          truncated: 1,
          events: [{ kind: 'updated', number: 1 }],
        });
        if (r.ok)
          expect(JSON.parse(r.cursor as string).items).toEqual({
            '1': '2026-01-01T00:00:01Z',
            '2': 'old',
          });
      },
    },
    {
      name: 'a listing failure is a failed poll naming the reason',
      def: { type: 'forge_issues' },
      cursor: snapshot,
      ctx: {
        forge: {
          repo: fakeConnection([]).repo,
          conn: {
            ...fakeConnection([]).conn,
            listIssues: async () => ({ ok: false, reason: 'rate_limited', message: 'slow down' }),
          },
        },
      },
      expect: (r) => expect(r).toEqual({ ok: false, error: 'forge_rate_limited: slow down' }),
    },
  ],
});
