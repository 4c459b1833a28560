/**
 * Admission checks that need git, run when a task is admitted for the first time (SPEC §3.2
 * "queued | admission check"): the project path, the platform, the branch (`branch_exists`), the
 * base (`base_branch_missing`), then the worktree itself under {data_dir}/worktrees/{task_id}.
 * A task on a pull request checks out the pull request's head instead (pull.ts).
 * A task re-admitted after a crash reuses the worktree it already has.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  addWorktree,
  addWorktreeForBranch,
  branchFacts,
  freshStartPoint,
  GitError,
  gitRaw,
  pruneWorktrees,
  restoreWorktree,
} from '../git/index.js';
import type { TaskRow } from '../store/index.js';
import type { WorkflowSnapshot } from './model.js';
import { preparePullBranch } from './pull.js';

export type AdmissionVerdict =
  | { ok: true; worktree: string }
  | { ok: false; reason: string; detail: string };

export function platformAdmits(
  platforms: string[] | undefined,
  platform: NodeJS.Platform = process.platform,
): boolean {
  if (!platforms || platforms.length === 0) return true;
  const host = platform === 'win32' ? 'windows' : platform;
  return platforms.some((p) => p === host || (p === 'posix' && host !== 'windows'));
}

async function isOurWorktree(path: string, branch: string): Promise<boolean> {
  if (!existsSync(path)) return false;
  const r = await gitRaw(path, ['symbolic-ref', '--quiet', '--short', 'HEAD']);
  return r.code === 0 && r.stdout.trim() === branch;
}

export async function prepareWorktree(
  task: TaskRow,
  projectPath: string,
  snapshot: WorkflowSnapshot,
  worktreesDir: string,
  opts: { fetchBase: boolean; isLane: boolean },
): Promise<AdmissionVerdict> {
  if (!platformAdmits(snapshot.platforms)) {
    return {
      ok: false,
      reason: 'platform_unsupported',
      detail: `workflow ${snapshot.name} does not run on ${process.platform}`,
    };
  }
  if (!existsSync(projectPath))
    return { ok: false, reason: 'project_path_missing', detail: `${projectPath} does not exist` };
  const branch = task.branch_name;
  if (!branch) return { ok: false, reason: 'git_error', detail: 'the task has no branch name' };
  const path = task.worktree_path ?? join(worktreesDir, String(task.id));
  if (task.worktree_path) {
    if (await isOurWorktree(task.worktree_path, branch))
      return { ok: true, worktree: task.worktree_path };
    // Gone from disk but the branch is still there (decision 151): check the branch out again at
    // the same path. Every commit survives; only uncommitted changes went with the directory.
    if (!existsSync(task.worktree_path)) {
      const facts = await branchFacts(projectPath, [branch]);
      if (facts.get(branch)?.exists) {
        try {
          await restoreWorktree(projectPath, task.worktree_path, branch);
          return { ok: true, worktree: task.worktree_path };
        } catch (err) {
          return { ok: false, reason: 'worktree_missing', detail: (err as Error).message };
        }
      }
    }
    return {
      ok: false,
      reason: 'worktree_missing',
      detail: `worktree ${task.worktree_path} is gone or not on ${branch}`,
    };
  }
  try {
    if (await isOurWorktree(path, branch)) return { ok: true, worktree: path };
    if (task.forge_pull) {
      // Rule 9: the pull request's own branch, fetched now (never at creation), with its upstream.
      await pruneWorktrees(projectPath);
      const pull = await preparePullBranch(task, projectPath, path);
      if (!pull.ok) return pull;
      await addWorktreeForBranch(projectPath, path, branch);
      return { ok: true, worktree: path };
    }
    // One git process answers both branch checks and the base's upstream (issue 11).
    const facts = await branchFacts(projectPath, [branch, task.base_branch]);
    if (facts.get(branch)?.exists) {
      return {
        ok: false,
        reason: 'branch_exists',
        detail: `branch ${branch} already exists in ${projectPath}`,
      };
    }
    const base = facts.get(task.base_branch);
    if (!base?.exists) {
      return {
        ok: false,
        reason: 'base_branch_missing',
        detail: `base branch ${task.base_branch} does not exist`,
      };
    }
    if (existsSync(path) && readdirSync(path).length > 0) {
      return {
        ok: false,
        reason: 'worktree_path_occupied',
        detail: `${path} exists and is not empty`,
      };
    }
    const start =
      opts.fetchBase && !opts.isLane
        ? await freshStartPoint(projectPath, task.base_branch, undefined, base.upstream)
        : task.base_branch;
    // replaceStale: a registration left by a worktree deleted by hand no longer needs a prune.
    await addWorktree(projectPath, path, branch, start, { replaceStale: true });
    return { ok: true, worktree: path };
  } catch (err) {
    const detail = err instanceof GitError ? err.message : (err as Error).message;
    return { ok: false, reason: 'git_error', detail };
  }
}
