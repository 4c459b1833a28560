/**
 * `POST /v1/tasks/{id}/review` and the `tasks_review` tool (issue 16 point 5, decision 172): line
 * comments on a task's diff, composed into one prompt, sent back to the agent in one action — a
 * follow-up of a done or aborted task; at a gate, a reject then a repair with that prompt in one
 * transaction (both happen or neither); a repair of a blocked task (the next round, decision 172). Every client (CLI, board, web, MCP) uses this one
 * composer, so a review reads the same wherever it was written.
 */
import { SvcError } from '../errors.js';
import { diffFiles, diffText } from '../git/index.js';
import { describeBytes } from '../input/index.js';
import type { Store, TaskRow } from '../store/index.js';
import { composeReview } from './compose.js';
import { type DiffDeps, planFor, withRange } from './diff.js';
import { REVIEW_PROMPT_MAX, type ReviewBody } from './schema.js';

export type ReviewAction = 'follow_up' | 'reject_repair' | 'repair';

/** The engine's actions a review takes, as the routes call them. */
export interface ReviewDeps extends DiffDeps {
  store: Store;
  openChat(taskId: number): number | null;
  followUp(
    id: number,
    body: { prompt: string; agent?: string; model?: string; effort?: string },
  ): { task: TaskRow; warnings: string[] };
  reject(id: number): TaskRow;
  repair(
    id: number,
    body: { prompt: string; agent?: string; model?: string; effort?: string },
  ): { task: TaskRow; warnings: string[] };
}

export interface ReviewResult {
  review: { action: ReviewAction; prompt: string };
  /** Absent for a dry run. */
  task?: TaskRow;
  warnings?: string[];
}

/** What a review does to a task in `state`, or a 409 naming the state. */
export function reviewActionFor(task: TaskRow): ReviewAction {
  if (task.state === 'done' || task.state === 'aborted') return 'follow_up';
  if (task.state === 'awaiting_gate') return 'reject_repair';
  // A repair returns to blocked at the gate it was sent from (SPEC §3.2): the next round of the
  // same review is a repair again.
  if (task.state === 'blocked') return 'repair';
  throw new SvcError(
    'invalid_state',
    `cannot review a task that is ${task.state}: a review goes to a done or aborted task (a follow-up), to one at a gate (reject, then repair) or to a blocked one (repair)`,
    { state: task.state },
  );
}

function describeRun(d: DiffDeps, run: number | undefined): string | undefined {
  if (run === undefined) return undefined;
  const row = d.runs.get(run);
  return row ? `run ${row.id} (${row.step_id}, attempt ${row.attempt})` : `run ${run}`;
}

/** The composed prompt, after checking every comment names a file of the diff it was made on. */
export async function composeFor(
  d: DiffDeps,
  task: TaskRow,
  body: ReviewBody,
  signal?: AbortSignal,
): Promise<string> {
  const comments = body.comments ?? [];
  let diff = '';
  if (comments.length > 0) {
    const { plan } = await planFor(d, task.id, body.run, signal);
    diff = await withRange(plan, signal, async (range) => {
      const { files } = await diffFiles(range, { signal, counts: false });
      const paths = new Set<string>();
      comments.forEach((c, i) => {
        const f = files.find((x) => x.path === c.path || x.old_path === c.path);
        if (!f)
          throw new SvcError(
            'validation_failed',
            `comments[${i}].path ${JSON.stringify(c.path)} is not a file of the task's diff`,
            { field: `comments[${i}].path` },
          );
        paths.add(f.path);
        if (f.old_path) paths.add(f.old_path);
      });
      const text = await diffText(range, { paths: [...paths], signal });
      return text.body.toString('utf8');
    });
  }
  const prompt = composeReview({
    task,
    summary: body.summary,
    comments,
    diff,
    run: describeRun(d, body.run),
  });
  if (Buffer.byteLength(prompt, 'utf8') > REVIEW_PROMPT_MAX)
    throw new SvcError(
      'validation_failed',
      `the composed review prompt is over ${describeBytes(REVIEW_PROMPT_MAX)}; send fewer or shorter comments`,
      { field: 'comments' },
    );
  return prompt;
}

export async function reviewTask(
  d: ReviewDeps,
  id: number,
  body: ReviewBody,
  signal?: AbortSignal,
): Promise<ReviewResult> {
  const task = d.task(id);
  const action = reviewActionFor(task);
  if (!body.dry_run) {
    const chat = d.openChat(id);
    if (chat !== null)
      throw new SvcError(
        'task_locked_by_chat',
        `task ${id} is locked by open chat ${chat}; close the chat first`,
        { chat_id: chat },
      );
  }
  if (!task.worktree_path)
    throw new SvcError('invalid_state', `task ${id} has no worktree for the agent to work in`, {
      state: task.state,
      reason: 'no_worktree',
    });
  const prompt = await composeFor(d, task, body, signal);
  const review = { action, prompt };
  if (body.dry_run) return { review };
  const run = {
    prompt,
    ...(body.agent !== undefined ? { agent: body.agent } : {}),
    ...(body.model !== undefined ? { model: body.model } : {}),
    ...(body.effort !== undefined ? { effort: body.effort } : {}),
  };
  if (action === 'follow_up') return { review, ...d.followUp(id, run) };
  if (action === 'repair') return { review, ...d.repair(id, run) };
  // One transaction: a repair refused (the state moved meanwhile) leaves the gate as it was.
  const r = d.store.tx(() => {
    d.reject(id);
    return d.repair(id, run);
  });
  return { review, ...r };
}
