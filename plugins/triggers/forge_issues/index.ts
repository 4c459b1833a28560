/**
 * forge_issues: a trigger source that polls the project's issues on its code host (SPEC §2.6).
 * The first poll after arming only builds the snapshot (issue number → last update) and judges
 * nothing; later polls emit `opened` for an issue new to the snapshot and `updated` for one whose
 * update time moved, oldest first, at most `maxEvents` a poll. The actor is the issue's author.
 * Title, body and labels are text outsiders write: they reach commands only as task fields.
 * Uses only the plugin door. Decision 085.
 */
import { z } from 'zod';
import {
  definePlugin,
  defineTriggerSource,
  diffSnapshot,
  durationField,
  durationMs,
  type ForgeIssue,
  type TriggerFieldRow,
} from '../../../kernel/plugin/index.js';

export const ForgeIssuesSourceSchema = z.strictObject({
  type: z.literal('forge_issues'),
  state: z
    .enum(['open', 'closed', 'all'], { error: 'state is open, closed or all' })
    .default('open'),
  labels: z.array(z.string().min(1)).optional(),
  limit: z.number().int().min(1).max(100, 'limit is at most 100').default(50),
  poll_interval: durationField('poll_interval', '5m', 10_000),
});
export type ForgeIssuesSource = z.infer<typeof ForgeIssuesSourceSchema>;

const rows: TriggerFieldRow[] = [
  { name: 'state', control: 'enum', values: ['open', 'closed', 'all'], default: 'open' },
  { name: 'labels', control: 'list', help: 'Only issues carrying every one of these labels.' },
  {
    name: 'limit',
    control: 'number',
    default: 50,
    help: 'How many of the most recently updated issues each poll looks at (1 to 100).',
  },
  { name: 'poll_interval', control: 'duration', default: '5m' },
];

export function issueEvent(issue: ForgeIssue, kind: string, repo: string) {
  return {
    id: `issue-${issue.number}@${issue.updated_at}`,
    kind,
    repo,
    number: issue.number,
    title: issue.title,
    body: issue.body,
    url: issue.url,
    state: issue.state,
    labels: issue.labels,
    actor: issue.author,
    author: issue.author,
    created_at: issue.created_at,
    updated_at: issue.updated_at,
  };
}

export const forgeIssuesSource = defineTriggerSource<ForgeIssuesSource>({
  type: 'forge_issues',
  schema: ForgeIssuesSourceSchema,
  meta: {
    kind: 'poll',
    help: "Polls the project's issues on its code host; the first poll only takes a snapshot.",
    rows,
    events: ['opened', 'updated'],
    trusted: [
      'id',
      'kind',
      'repo',
      'number',
      'url',
      'state',
      'labels',
      'actor',
      'author',
      'created_at',
      'updated_at',
    ],
  },
  interval: (def) => durationMs(def.poll_interval),
  async poll(ctx, def, cursor) {
    const f = await ctx.forge();
    if (!f.ok) return { ok: false, error: `${f.reason}: ${f.message}` };
    const listed = await f.conn.listIssues(f.repo, {
      state: def.state,
      labels: def.labels,
      limit: def.limit,
    });
    if (!listed.ok) return { ok: false, error: `forge_${listed.reason}: ${listed.message}` };
    const diff = diffSnapshot(
      listed.value,
      cursor,
      (i) => String(i.number),
      (i) => i.updated_at,
      ctx.maxEvents,
      (a, b) => a.updated_at.localeCompare(b.updated_at) || a.number - b.number,
    );
    return {
      ok: true,
      events: diff.changes.map((c) =>
        issueEvent(c.item, c.change === 'new' ? 'opened' : 'updated', f.repo.full_name),
      ),
      cursor: diff.cursor,
      truncated: diff.truncated,
      refused: 0,
    };
  },
});

export default definePlugin({
  name: 'svc:triggers/forge_issues',
  svc: '^2.0.0',
  setup(api) {
    api.registerTriggerSource(forgeIssuesSource);
  },
});
