/**
 * What a task's diff compares (decision 170): the worktree as it is on disk against
 * `merge-base(base_branch, HEAD)`, or — once the worktree is gone (archived, deleted by hand) —
 * the branch tip against the same merge base, said in `X-Svc-Diff-Source: branch`. With a step
 * run (`run=`), the HEADs that attempt recorded (decision 171), plus the uncommitted work when it
 * is the task's latest attempt that recorded them.
 */
import { existsSync } from 'node:fs';
import { SvcError } from '../errors.js';
import {
  branchTip,
  type DiffRange,
  mergeBase,
  resolveCommit,
  worktreeGitDir,
} from '../git/index.js';
import type { StepRunRow, TaskRow } from '../store/index.js';

export type DiffSource = 'worktree' | 'branch';

export interface DiffPlan {
  source: DiffSource;
  range: DiffRange;
  /** The worktree whose untracked files join the diff (when `range.to` is null). */
  worktree: string | null;
  base_branch: string;
  /** The commit the diff starts from: the merge base, or the run's HEAD before it. */
  merge_base: string;
  /** The commit at the other end: the worktree's HEAD, the branch tip, or the run's HEAD after. */
  head: string;
  run?: number;
}

function refuse(task: TaskRow, reason: string, message: string): never {
  throw new SvcError('invalid_state', message, { state: task.state, reason });
}

/** The task's worktree when it is there and still a git checkout; null otherwise. */
function liveWorktree(task: TaskRow): string | null {
  const path = task.worktree_path;
  return path && existsSync(path) && worktreeGitDir(path) ? path : null;
}

/** The base branch's commit: the local branch first (a tag of the same name does not win). */
async function baseCommit(
  cwd: string,
  task: TaskRow,
  signal: AbortSignal | undefined,
): Promise<string> {
  const id =
    (await resolveCommit(cwd, `refs/heads/${task.base_branch}`, signal)) ??
    (await resolveCommit(cwd, task.base_branch, signal));
  if (!id)
    refuse(
      task,
      'base_branch_missing',
      `base branch ${task.base_branch} of task ${task.id} no longer exists, so there is no merge base to diff from`,
    );
  return id;
}

/** The whole work of the task: worktree or branch against the merge base with its base branch. */
export async function planTaskDiff(
  task: TaskRow,
  repo: string,
  signal?: AbortSignal,
): Promise<DiffPlan> {
  const worktree = liveWorktree(task);
  let cwd: string;
  let head: string | null;
  let source: DiffSource;
  if (worktree) {
    cwd = worktree;
    source = 'worktree';
    head = await resolveCommit(worktree, 'HEAD', signal);
    if (!head) refuse(task, 'git_failed', `the worktree of task ${task.id} has no HEAD commit`);
  } else {
    // A branch is the task's own only once the task had a worktree (started_at is written with
    // it): before that, a branch of the same name is the user's (branch_exists).
    if (task.started_at === null || !task.branch_name)
      refuse(
        task,
        'no_worktree',
        `task ${task.id} has no worktree yet (it is ${task.state}); there is nothing to diff`,
      );
    cwd = repo;
    source = 'branch';
    head = await branchTip(repo, task.branch_name);
    if (!head)
      refuse(
        task,
        'branch_gone',
        `task ${task.id} has neither its worktree nor its branch ${task.branch_name} any more`,
      );
  }
  const base = await baseCommit(cwd, task, signal);
  const from = await mergeBase(cwd, base, head, signal);
  if (!from)
    refuse(
      task,
      'no_merge_base',
      `${task.branch_name ?? 'the task'} shares no history with ${task.base_branch}`,
    );
  return {
    source,
    range: { cwd, from, to: source === 'worktree' ? null : head },
    worktree,
    base_branch: task.base_branch,
    merge_base: from,
    head,
  };
}

/** What one attempt changed: its HEADs, plus the worktree's uncommitted work for the latest. */
export async function planRunDiff(
  task: TaskRow,
  repo: string,
  run: StepRunRow,
  rows: readonly StepRunRow[],
  signal?: AbortSignal,
): Promise<DiffPlan> {
  if (!run.head_before)
    refuse(
      task,
      'no_heads',
      `step run ${run.id} recorded no HEADs (a gate, a skipped step, or a run from before svc recorded them), so it has no diff of its own`,
    );
  const worktree = liveWorktree(task);
  const cwd = worktree ?? repo;
  const gone = () =>
    refuse(
      task,
      'commits_gone',
      `the commits step run ${run.id} recorded are no longer in the repository`,
    );
  const from = (await resolveCommit(cwd, run.head_before, signal)) ?? gone();
  // The latest by id, not by step order: a follow-up or repair row sorts by its own index.
  const latest = !rows.some((r) => r.head_before !== null && r.id > run.id);
  if (worktree && (latest || run.head_after === null)) {
    const head = await resolveCommit(worktree, 'HEAD', signal);
    if (!head) refuse(task, 'git_failed', `the worktree of task ${task.id} has no HEAD commit`);
    return {
      source: 'worktree',
      range: { cwd, from, to: null },
      worktree,
      base_branch: task.base_branch,
      merge_base: from,
      head,
      run: run.id,
    };
  }
  const after =
    run.head_after ?? (task.branch_name ? await branchTip(repo, task.branch_name) : null);
  const to = (after ? await resolveCommit(cwd, after, signal) : null) ?? gone();
  return {
    source: 'branch',
    range: { cwd, from, to },
    worktree: null,
    base_branch: task.base_branch,
    merge_base: from,
    head: to,
    run: run.id,
  };
}
