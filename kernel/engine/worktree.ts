/**
 * Admission checks that need git, run when a task is admitted for the first time (SPEC §3.2
 * "queued | admission check"): the project path, the platform, the branch (`branch_exists`), the
 * base (`base_branch_missing`), then the worktree itself under {data_dir}/worktrees/{task_id}.
 * A task on a pull request checks out the pull request's head instead (pull.ts).
 * A task re-admitted after a crash reuses the worktree it already has. A worktree cut ahead while
 * the task waited for a slot is adopted (decision 159); one a never-started task left behind in a
 * crash is cut again, since a kill mid-`worktree add` can leave a checkout half written.
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  addWorktree,
  addWorktreeForBranch,
  branchFacts,
  branchTip,
  checkoutRemoteBase,
  commitsPastBase,
  freshStartPoint,
  GitError,
  git,
  gitRaw,
  knownUpstreamOf,
  pruneWorktrees,
  removeWorktree,
  restoreWorktree,
} from '../git/index.js';
import { isWithin } from '../input/index.js';
import type { TaskRow } from '../store/index.js';
import type { WorkflowSnapshot } from './model.js';
import { preparePullBranch } from './pull.js';

export type AdmissionVerdict =
  | { ok: true; worktree: string }
  | { ok: false; reason: string; detail: string };

/**
 * A worktree path outside this installation's worktrees directory (decision 194), judged on real
 * paths too: a data directory reached through a link is still ours.
 */
export function isForeignWorktree(path: string, worktreesDir: string): boolean {
  return !isWithin(path, worktreesDir);
}

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

/** What `tasks.worktree_cut` records: the branch svc is cutting for a task, and the commit. */
export interface WorktreeCut {
  branch: string;
  start: string;
}

/** A worktree cut while its task waited for a slot (precut.ts, decision 159). */
export interface Precut extends WorktreeCut {
  repo: string;
  path: string;
  base: string;
}

export function cutOf(task: Pick<TaskRow, 'worktree_cut'>): WorktreeCut | null {
  if (!task.worktree_cut) return null;
  try {
    const v = JSON.parse(task.worktree_cut) as Partial<WorktreeCut>;
    return typeof v.branch === 'string' && typeof v.start === 'string'
      ? { branch: v.branch, start: v.start }
      : null;
  } catch {
    return null;
  }
}

/**
 * Removes the worktree of a task that never started, and its branch while that holds no work.
 * With `cut` (svc recorded that it cut this branch for this path) the path is svc's whatever state
 * a kill left it in, and the branch goes while it still points at the cut's start. Without one,
 * only a worktree on `branch` counts as svc's, and the branch goes while the base contains it.
 * Returns whether anything was svc's to remove.
 */
export async function discardUnstarted(
  repo: string,
  path: string,
  branch: string,
  base: string,
  cut: WorktreeCut | null,
): Promise<boolean> {
  const present = existsSync(path);
  if (cut) {
    if (present) {
      await removeWorktree(repo, path, true).catch(() => {});
      // A kill mid-add can leave files git no longer knows as a worktree.
      rmSync(path, { recursive: true, force: true });
    }
    await pruneWorktrees(repo);
  } else if (!present || !(await isOurWorktree(path, branch))) return false;
  else await removeWorktree(repo, path, true);
  const name = cut?.branch ?? branch;
  const tip = await branchTip(repo, name);
  if (!tip) return true;
  const empty = cut ? tip === cut.start : (await commitsPastBase(repo, base, tip)) === 0;
  // update-ref with the old value deletes only if nobody moved the branch since it was read.
  if (empty) await gitRaw(repo, ['update-ref', '-d', `refs/heads/${name}`, tip]);
  return true;
}

/**
 * Takes a pre-cut worktree for its task, moved to the base's current tip when the base moved while
 * the task waited (the branch holds nothing else yet). False, with the cut undone, when it no
 * longer fits: the task's branch or base changed, or the directory or the base is gone.
 */
async function adoptPrecut(task: TaskRow, path: string, pre: Precut): Promise<boolean> {
  const fits =
    pre.path === path &&
    pre.branch === task.branch_name &&
    pre.base === task.base_branch &&
    existsSync(path);
  const tip = fits ? await branchTip(pre.repo, pre.base) : null;
  if (!tip) {
    await discardUnstarted(pre.repo, pre.path, pre.branch, pre.base, pre);
    return false;
  }
  if (tip !== pre.start) await git(path, ['reset', '--hard', '--quiet', tip]);
  return true;
}

/** A missing base's detail, with the ways out (SPEC §2.1 `base_branch_missing`). */
function recovery(task: TaskRow, why: string): string {
  return `${why}; to recover, create or push ${task.base_branch} again and retry the task (svc task retry ${task.id}), or cancel it and create it anew with another base (--base)`;
}

export async function prepareWorktree(
  task: TaskRow,
  projectPath: string,
  snapshot: WorkflowSnapshot,
  worktreesDir: string,
  opts: {
    fetchBase: boolean;
    isLane: boolean;
    precut?: Precut | null;
    /** Records the cut on the row before git runs. */
    markCut?: (cut: WorktreeCut) => void;
  },
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
    // A path outside this data directory is another installation's (a database copied or restored
    // from elsewhere, decision 194): never worked in; the task's own place is under ours.
    const foreign = isForeignWorktree(task.worktree_path, worktreesDir);
    const at = foreign ? join(worktreesDir, String(task.id)) : task.worktree_path;
    if (await isOurWorktree(at, branch)) return { ok: true, worktree: at };
    // Gone from disk but the branch is still there (decision 151): check the branch out again at
    // the same path. Every commit survives; only uncommitted changes went with the directory.
    if (!existsSync(at)) {
      const facts = await branchFacts(projectPath, [branch]);
      if (facts.get(branch)?.exists) {
        try {
          await restoreWorktree(projectPath, at, branch);
          return { ok: true, worktree: at };
        } catch (err) {
          return {
            ok: false,
            reason: 'worktree_missing',
            detail: `worktree ${at} is gone and checking ${branch} out there again failed (${(err as Error).message}); retry once the branch is free`,
          };
        }
      }
    }
    return {
      ok: false,
      reason: 'worktree_missing',
      detail: `worktree ${at} is gone or not on ${branch}`,
    };
  }
  try {
    if (task.forge_pull) {
      if (await isOurWorktree(path, branch)) return { ok: true, worktree: path };
      // Rule 9: the pull request's own branch, fetched now (never at creation), with its upstream.
      await pruneWorktrees(projectPath);
      const pull = await preparePullBranch(task, projectPath, path);
      if (!pull.ok) return pull;
      await addWorktreeForBranch(projectPath, path, branch);
      return { ok: true, worktree: path };
    }
    if (opts.precut && (await adoptPrecut(task, path, opts.precut)))
      return { ok: true, worktree: path };
    const left = cutOf(task);
    if (!opts.precut && (left || existsSync(path)))
      await discardUnstarted(projectPath, path, branch, task.base_branch, left);
    // The branch checks and the base's upstream come from the ref and config files, git only
    // where they cannot answer plainly: a git process forks the daemon (decision 234).
    if ((await branchTip(projectPath, branch)) !== null) {
      return {
        ok: false,
        reason: 'branch_exists',
        detail: `branch ${branch} already exists in ${projectPath}`,
      };
    }
    let baseTip = await branchTip(projectPath, task.base_branch);
    if (baseTip === null) {
      // A base only on a remote was accepted at creation: fetched now, as `git switch` would
      // check it out (decision 205). Gone from the remote too: say how to recover.
      const remote = await checkoutRemoteBase(projectPath, task.base_branch);
      if (!remote.ok)
        return { ok: false, reason: 'base_branch_missing', detail: recovery(task, remote.detail) };
      baseTip = await branchTip(projectPath, task.base_branch);
      if (baseTip === null) {
        return {
          ok: false,
          reason: 'base_branch_missing',
          detail: recovery(task, `base branch ${task.base_branch} does not exist`),
        };
      }
    }
    if (existsSync(path) && readdirSync(path).length > 0) {
      return {
        ok: false,
        reason: 'worktree_path_occupied',
        detail: `${path} exists and is not empty`,
      };
    }
    const from =
      opts.fetchBase && !opts.isLane
        ? await freshStartPoint(
            projectPath,
            task.base_branch,
            undefined,
            await knownUpstreamOf(projectPath, task.base_branch),
          )
        : task.base_branch;
    // The commit itself, so the mark below names exactly what the branch is cut at.
    const start = from === task.base_branch ? baseTip : from;
    if (!start) {
      return {
        ok: false,
        reason: 'base_branch_missing',
        detail: recovery(task, `base branch ${task.base_branch} does not exist`),
      };
    }
    opts.markCut?.({ branch, start });
    // replaceStale: a registration left by a worktree deleted by hand no longer needs a prune.
    await addWorktree(projectPath, path, branch, start, { replaceStale: true });
    return { ok: true, worktree: path };
  } catch (err) {
    const detail = err instanceof GitError ? err.message : (err as Error).message;
    return { ok: false, reason: 'git_error', detail };
  }
}
