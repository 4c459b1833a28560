/**
 * `GET /v1/tasks/{id}/diff` and the `tasks_diff` tool (issue 16 point 1): a task's diff as text
 * (cut at a file boundary past 16 MiB), as a stat, or one file's text. Every git process of a
 * request ends with it: `signal` aborts when the client goes away.
 */
import { SvcError } from '../errors.js';
import {
  DIFF_LIMIT,
  type DiffFile,
  type DiffRange,
  diffFiles,
  diffText,
  GitAbortedError,
  GitError,
  withUntrackedIndex,
} from '../git/index.js';
import type { ProjectService } from '../projects/index.js';
import type { StepRunsTable, TaskRow } from '../store/index.js';
import type { DiffQuery } from './schema.js';
import { type DiffPlan, type DiffSource, planRunDiff, planTaskDiff } from './source.js';

/** What the diff needs of the daemon: the task's rows and its project's repository. */
export interface DiffDeps {
  task(id: number): TaskRow;
  runs: StepRunsTable;
  projects: ProjectService;
}

export interface DiffText {
  kind: 'text';
  source: DiffSource;
  body: Buffer;
  truncated: boolean;
}

export interface DiffStat {
  source: DiffSource;
  base_branch: string;
  merge_base: string;
  head: string;
  run?: number;
  files: DiffFile[];
  additions: number;
  deletions: number;
  truncated: boolean;
}

export interface DiffOptions {
  signal?: AbortSignal;
  /** Tests shrink it; the route uses DIFF_LIMIT. */
  limit?: number;
}

/** The plan for a task and an optional step run, refusing as the route documents. */
export async function planFor(
  d: DiffDeps,
  taskId: number,
  run: number | undefined,
  signal?: AbortSignal,
): Promise<{ task: TaskRow; plan: DiffPlan }> {
  const task = d.task(taskId);
  const repo = d.projects.require(task.project_id).path;
  if (run === undefined) return { task, plan: await planTaskDiff(task, repo, signal) };
  const row = d.runs.get(run);
  if (!row || row.task_id !== task.id)
    throw new SvcError('not_found', `step run ${run} not found on task ${task.id}`);
  return { task, plan: await planRunDiff(task, repo, row, d.runs.ofTask(task.id), signal) };
}

/** Runs `fn` with the plan's range, inside a private index holding the untracked files when it compares a worktree. */
export async function withRange<T>(
  plan: DiffPlan,
  signal: AbortSignal | undefined,
  fn: (range: DiffRange) => Promise<T>,
): Promise<T> {
  try {
    if (!plan.worktree) return await fn(plan.range);
    return await withUntrackedIndex(plan.worktree, signal, (env) =>
      fn({ ...plan.range, env: { ...plan.range.env, ...env } }),
    );
  } catch (err) {
    if (err instanceof GitError)
      throw new SvcError('invalid_state', `git could not diff: ${err.message}`, {
        reason: 'git_failed',
      });
    throw err;
  }
}

/** The paths that select one file of a diff: a renamed file needs both names to stay a rename. */
export function pathsOf(files: readonly DiffFile[], path: string): string[] | null {
  const f = files.find((x) => x.path === path || x.old_path === path);
  if (!f) return null;
  return f.old_path ? [f.old_path, f.path] : [f.path];
}

export async function taskDiff(
  d: DiffDeps,
  taskId: number,
  q: DiffQuery,
  opts: DiffOptions = {},
): Promise<DiffText | DiffStat> {
  const { plan } = await planFor(d, taskId, q.run, opts.signal);
  const limit = opts.limit ?? DIFF_LIMIT;
  return withRange(plan, opts.signal, async (range) => {
    if (q.stat === 'true') {
      const { files, truncated } = await diffFiles(range, { signal: opts.signal, limit });
      const stat: DiffStat = {
        source: plan.source,
        base_branch: plan.base_branch,
        merge_base: plan.merge_base,
        head: plan.head,
        ...(plan.run !== undefined ? { run: plan.run } : {}),
        files,
        additions: files.reduce((n, f) => n + f.additions, 0),
        deletions: files.reduce((n, f) => n + f.deletions, 0),
        truncated,
      };
      return stat;
    }
    let paths: string[] | undefined;
    if (q.path !== undefined) {
      const { files } = await diffFiles(range, { signal: opts.signal, limit, counts: false });
      const picked = pathsOf(files, q.path);
      if (!picked)
        return { kind: 'text', source: plan.source, body: Buffer.alloc(0), truncated: false };
      paths = picked;
    }
    const r = await diffText(range, { paths, signal: opts.signal, limit });
    return { kind: 'text', source: plan.source, ...r };
  });
}

export function isDiffText(x: DiffText | DiffStat): x is DiffText {
  return (x as DiffText).kind === 'text';
}

export { GitAbortedError };
