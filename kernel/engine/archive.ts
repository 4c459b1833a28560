/**
 * Archiving (SPEC §4.4 archive, §2.10 `delete_empty_branch_on_archive`,
 * `delete_remote_branch_on_archive`): remove the worktree (refusing a dirty one unless forced),
 * record the task archived, then judge the branch — deleted only when it has no commits past its
 * base, with `git branch -d`; the remote leg only on a human archive, only when an upstream is
 * configured, only after the local delete succeeded. A branch problem never changes the status.
 */
import { existsSync } from 'node:fs';
import type { Config } from '../config/index.js';
import {
  deleteBranchIfEmpty,
  deleteRemoteBranch,
  removeWorktree,
  type StatusEntry,
  statusEntries,
  type Upstream,
  upstreamOf,
} from '../git/index.js';
import type { TaskRow } from '../store/index.js';

export interface BranchOutcome {
  name: string;
  result: 'deleted' | 'has_commits' | 'not_ours' | 'unknown' | 'error';
  error?: string;
  remote?: {
    remote: string;
    ref: string;
    result: 'deleted' | 'no_upstream' | 'error';
    error?: string;
  };
}

/** What is uncommitted in the task's worktree; null when clean, absent or not judgeable. */
export async function worktreeDirty(task: TaskRow): Promise<StatusEntry[] | null> {
  if (!task.worktree_path || !existsSync(task.worktree_path)) return null;
  const entries = await statusEntries(task.worktree_path);
  return entries && entries.length > 0 ? entries : null;
}

export async function dropWorktree(
  projectPath: string,
  task: TaskRow,
  force: boolean,
): Promise<void> {
  if (task.worktree_path && existsSync(task.worktree_path))
    await removeWorktree(projectPath, task.worktree_path, force);
}

/** The branch leg after the worktree is gone. Undefined when nothing was checked (policy off or no branch). */
export async function judgeBranch(
  projectPath: string,
  task: TaskRow,
  config: Config,
  human: boolean,
): Promise<BranchOutcome | undefined> {
  const name = task.branch_name;
  if (!name) return undefined;
  if (task.forge_pull) return { name, result: 'not_ours' };
  if (!config.delete_empty_branch_on_archive) return undefined;
  if (!existsSync(projectPath))
    return { name, result: 'unknown', error: `${projectPath} does not exist` };
  const wantRemote = human && config.delete_remote_branch_on_archive;
  let upstream: Upstream | null = null;
  if (wantRemote) upstream = await upstreamOf(projectPath, name);
  const local = await deleteBranchIfEmpty(projectPath, task.base_branch, name);
  const outcome: BranchOutcome = { name, result: local.result };
  if ('error' in local) outcome.error = local.error;
  if (wantRemote && local.result === 'deleted')
    outcome.remote = await deleteRemoteBranch(projectPath, upstream);
  return outcome;
}
