/**
 * forge_prs: a trigger source that polls the project's pull requests on its code host (SPEC
 * §2.6). The first poll after arming only builds the snapshot (number → update time and head
 * commit) and judges nothing; later polls emit `opened` for a pull request new to the snapshot,
 * `synchronized` when its head commit moved, and `updated` for any other change, oldest first,
 * at most `maxEvents` a poll. The actor is the author; `fork` says the head lives elsewhere.
 * Title, body, labels and branch names are text outsiders write: they reach commands only as
 * task fields. Uses only the plugin door. Decision 085.
 */
import { z } from 'zod';
import {
  definePlugin,
  defineTriggerSource,
  diffSnapshot,
  durationField,
  durationMs,
  type ForgePull,
  type TriggerFieldRow,
} from '../../../kernel/plugin/index.js';

export const ForgePrsSourceSchema = z.strictObject({
  type: z.literal('forge_prs'),
  state: z
    .enum(['open', 'closed', 'all'], { error: 'state is open, closed or all' })
    .default('open'),
  limit: z.number().int().min(1).max(100, 'limit is at most 100').default(50),
  poll_interval: durationField('poll_interval', '5m', 10_000),
});
export type ForgePrsSource = z.infer<typeof ForgePrsSourceSchema>;

const rows: TriggerFieldRow[] = [
  { name: 'state', control: 'enum', values: ['open', 'closed', 'all'], default: 'open' },
  {
    name: 'limit',
    control: 'number',
    default: 50,
    help: 'How many of the most recently updated pull requests each poll looks at (1 to 100).',
  },
  { name: 'poll_interval', control: 'duration', default: '5m' },
];

const stamp = (p: ForgePull) => `${p.updated_at} ${p.head_sha}`;

export function pullEvent(pull: ForgePull, kind: string, repo: string) {
  return {
    id: `pull-${pull.number}@${pull.updated_at}`,
    kind,
    repo,
    number: pull.number,
    title: pull.title,
    body: pull.body,
    url: pull.url,
    state: pull.state,
    draft: pull.draft,
    labels: pull.labels,
    actor: pull.author,
    author: pull.author,
    head_ref: pull.head_ref,
    head_sha: pull.head_sha,
    head_repo: pull.head_repo,
    base_ref: pull.base_ref,
    fork: pull.fork,
    created_at: pull.created_at,
    updated_at: pull.updated_at,
  };
}

export const forgePrsSource = defineTriggerSource<ForgePrsSource>({
  type: 'forge_prs',
  schema: ForgePrsSourceSchema,
  meta: {
    kind: 'poll',
    help: "Polls the project's pull requests on its code host; the first poll only takes a snapshot.",
    rows,
    events: ['opened', 'synchronized', 'updated'],
    trusted: [
      'id',
      'kind',
      'repo',
      'number',
      'url',
      'state',
      'draft',
      'labels',
      'actor',
      'author',
      'head_sha',
      'head_repo',
      'fork',
      'created_at',
      'updated_at',
    ],
  },
  interval: (def) => durationMs(def.poll_interval),
  async poll(ctx, def, cursor) {
    const f = await ctx.forge();
    if (!f.ok) return { ok: false, error: `${f.reason}: ${f.message}` };
    const listed = await f.conn.listPulls(f.repo, { state: def.state, limit: def.limit });
    if (!listed.ok) return { ok: false, error: `forge_${listed.reason}: ${listed.message}` };
    const diff = diffSnapshot(
      listed.value,
      cursor,
      (p) => String(p.number),
      stamp,
      ctx.maxEvents,
      (a, b) => a.updated_at.localeCompare(b.updated_at) || a.number - b.number,
    );
    return {
      ok: true,
      events: diff.changes.map((c) => {
        const headMoved = c.change === 'changed' && !c.previous?.endsWith(` ${c.item.head_sha}`);
        const kind = c.change === 'new' ? 'opened' : headMoved ? 'synchronized' : 'updated';
        return pullEvent(c.item, kind, f.repo.full_name);
      }),
      cursor: diff.cursor,
      truncated: diff.truncated,
      refused: 0,
    };
  },
});

export default definePlugin({
  name: 'svc:triggers/forge_prs',
  svc: '^2.0.0',
  setup(api) {
    api.registerTriggerSource(forgePrsSource);
  },
});
