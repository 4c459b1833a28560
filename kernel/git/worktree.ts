/**
 * Worktrees and branches for tasks and chats (SPEC §2.10 `fetch_base_branch`,
 * `delete_empty_branch_on_archive`, `delete_remote_branch_on_archive`). Branches are deleted
 * only with `git branch -d` (never forced) and remotes are never guessed.
 */
import { existsSync, readdirSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { configUpstream } from './config-file.js';
import { branchExists, commitsPastBase, headCommit } from './repo.js';
import { GitError, git, gitRaw } from './run.js';

const queues = new Map<string, Promise<void>>();

/**
 * Runs `fn` once every earlier worktree operation on `repo` has settled. git's worktree
 * administration is not safe to run concurrently in one repository: `worktree add` reads every
 * entry under .git/worktrees and fails on one that another add, remove or prune is writing
 * ("failed to read .git/worktrees/N/commondir"). Tasks admitted together in one project would
 * block with git_error, so adds, removes and prunes of one repository queue here (issue 11).
 */
function serially<T>(repo: string, fn: () => Promise<T>): Promise<T> {
  const run = (queues.get(repo) ?? Promise.resolve()).then(fn);
  const tail = run.then(
    () => {},
    () => {},
  );
  queues.set(repo, tail);
  void tail.then(() => {
    if (queues.get(repo) === tail) queues.delete(repo);
  });
  return run;
}

export function pruneWorktrees(repo: string): Promise<void> {
  return serially(repo, async () => {
    await gitRaw(repo, ['worktree', 'prune']);
  });
}

/**
 * Creates `path` on a new `branch` cut from `startPoint`. `replaceStale` adds `--force`, which
 * (with `-b`, on a path the caller found absent or empty) only overrides git's refusal of a path
 * still registered to a worktree that was deleted by hand — what a `worktree prune` before every
 * add used to clear, one git process more per task.
 */
export async function addWorktree(
  repo: string,
  path: string,
  branch: string,
  startPoint: string,
  opts: { replaceStale?: boolean } = {},
): Promise<void> {
  const force = opts.replaceStale ? ['--force'] : [];
  await serially(repo, () =>
    git(repo, ['worktree', 'add', '--quiet', ...force, '-b', branch, path, startPoint]),
  );
}

/** Creates `path` checking out an existing `branch`. */
export async function addWorktreeForBranch(
  repo: string,
  path: string,
  branch: string,
): Promise<void> {
  await serially(repo, () => git(repo, ['worktree', 'add', '--quiet', path, branch]));
}

/**
 * Checks `branch` out again at `path` after the directory was deleted by hand: the stale
 * registration is pruned first, so no `--force` is needed (which would also let a branch live
 * in two worktrees).
 */
export async function restoreWorktree(repo: string, path: string, branch: string): Promise<void> {
  await serially(repo, async () => {
    await git(repo, ['worktree', 'prune']);
    await git(repo, ['worktree', 'add', '--quiet', path, branch]);
  });
}

/** The git directory of a worktree (its `.git` file names it), read without running git. */
export function worktreeGitDir(worktree: string): string | null {
  const dotGit = join(worktree, '.git');
  try {
    if (statSync(dotGit).isDirectory()) return dotGit;
    const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, 'utf8'));
    if (!m?.[1]) return null;
    const dir = m[1].trim();
    return isAbsolute(dir) ? dir : resolve(worktree, dir);
  } catch {
    return null;
  }
}

/**
 * Removes the worktree's `index.lock`. Only for a caller that knows the lock is a leftover: the
 * process tree that could hold it was killed and has exited (decision 152). The daemon's own git
 * calls never take it (GIT_OPTIONAL_LOCKS=0). True when a lock was removed.
 */
export function removeLeftIndexLock(worktree: string): boolean {
  const dir = worktreeGitDir(worktree);
  if (!dir) return false;
  try {
    unlinkSync(join(dir, 'index.lock'));
    return true;
  } catch {
    return false;
  }
}

export async function removeWorktree(repo: string, path: string, force: boolean): Promise<void> {
  if (!existsSync(repo)) return;
  await serially(repo, async () => {
    const r = await gitRaw(repo, [
      'worktree',
      'remove',
      ...(force ? ['--force', '--force'] : []),
      path,
    ]);
    if (r.code !== 0 && existsSync(path))
      throw new GitError(['worktree', 'remove', path], r.code, r.stderr);
    await gitRaw(repo, ['worktree', 'prune']);
  });
}

/** True when the worktree has uncommitted changes, untracked files included; null when git cannot tell. */
export async function isDirty(worktree: string): Promise<boolean | null> {
  if (!existsSync(worktree)) return null;
  const r = await gitRaw(worktree, ['status', '--porcelain', '--untracked-files=normal']);
  if (r.code !== 0) return null;
  return r.stdout.trim().length > 0;
}

export interface Upstream {
  remote: string;
  /** The ref on the remote, e.g. `refs/heads/main`. */
  ref: string;
}

/** The branch's configured upstream; null when none is configured (the remote is never guessed). */
export async function upstreamOf(repo: string, branch: string): Promise<Upstream | null> {
  const remote = await gitRaw(repo, ['config', '--get', `branch.${branch}.remote`]);
  const merge = await gitRaw(repo, ['config', '--get', `branch.${branch}.merge`]);
  if (remote.code !== 0 || merge.code !== 0) return null;
  const r = remote.stdout.trim();
  const m = merge.stdout.trim();
  if (!r || !m || r === '.') return null;
  return { remote: r, ref: m };
}

const upstreams = new Map<string, { stamp: string; up: Upstream | null }>();

/**
 * The branch's configured upstream, read from the repository's config file when it answers plainly
 * (config-file.ts, decision 234), else `upstreamOf`, remembered per repository and branch while the
 * repository's `.git/config` keeps its size, mtime and inode: admission and a task cut ahead of it
 * ask for every task (decision 159). A change made only in a file the config includes is not
 * noticed until the config itself changes.
 */
export async function knownUpstreamOf(repo: string, branch: string): Promise<Upstream | null> {
  const plain = configUpstream(repo, branch);
  if (plain !== undefined) return plain;
  let stamp: string;
  try {
    const st = statSync(join(repo, '.git', 'config'));
    stamp = `${st.size}:${st.mtimeMs}:${st.ino}`;
  } catch {
    return upstreamOf(repo, branch);
  }
  const key = `${repo}\0${branch}`;
  const hit = upstreams.get(key);
  if (hit?.stamp === stamp) return hit.up;
  const up = await upstreamOf(repo, branch);
  if (upstreams.size > 1000) upstreams.clear();
  upstreams.set(key, { stamp, up });
  return up;
}

/**
 * Refreshes `base` from its upstream and returns the start point for a new branch (decision 012):
 * the upstream's tip when the local base is behind it (fast-forwardable), else the local base.
 * Any failure — no upstream, no remote, an unreachable host — falls back to the local base silently.
 * `known` is the upstream when the caller already read it (branchFacts), saving two git calls.
 */
export async function freshStartPoint(
  repo: string,
  base: string,
  timeoutMs = 30_000,
  known?: Upstream | null,
): Promise<string> {
  const up = known === undefined ? await upstreamOf(repo, base) : known;
  if (!up) return base;
  const tracking = `refs/svc-fetch/${base}`;
  const r = await gitRaw(
    repo,
    ['fetch', '--quiet', '--no-tags', up.remote, `+${up.ref}:${tracking}`],
    {
      timeoutMs,
      env: { GIT_SSH_COMMAND: 'ssh -o BatchMode=yes -o ConnectTimeout=10' },
    },
  );
  if (r.code !== 0) return base;
  const fetched = await headCommit(repo, tracking);
  const local = await headCommit(repo, base);
  if (!fetched || !local) return base;
  if (fetched === local) return base;
  const ancestor = await gitRaw(repo, ['merge-base', '--is-ancestor', local, fetched]);
  return ancestor.code === 0 ? fetched : base;
}

export type BranchDeleteResult =
  | { result: 'deleted' }
  | { result: 'has_commits' }
  | { result: 'unknown'; error: string }
  | { result: 'error'; error: string };

/** Deletes `branch` when it has no commits past `base`, with `git branch -d` only. */
export async function deleteBranchIfEmpty(
  repo: string,
  base: string,
  branch: string,
): Promise<BranchDeleteResult> {
  if (!(await branchExists(repo, branch)))
    return { result: 'unknown', error: `branch ${branch} does not exist` };
  const past = await commitsPastBase(repo, base, branch);
  if (past === null)
    return { result: 'unknown', error: `git cannot compare ${branch} with ${base}` };
  if (past > 0) return { result: 'has_commits' };
  const r = await gitRaw(repo, ['branch', '-d', branch]);
  if (r.code !== 0) return { result: 'error', error: r.stderr.trim() || 'git branch -d failed' };
  return { result: 'deleted' };
}

export type RemoteDeleteResult = {
  remote: string;
  ref: string;
  result: 'deleted' | 'no_upstream' | 'error';
  error?: string;
};

/** Deletes the upstream leg of a branch whose upstream was read before the local delete. */
export async function deleteRemoteBranch(
  repo: string,
  up: Upstream | null,
  timeoutMs = 60_000,
): Promise<RemoteDeleteResult> {
  if (!up) return { remote: '', ref: '', result: 'no_upstream' };
  const r = await gitRaw(repo, ['push', '--quiet', up.remote, `:${up.ref}`], {
    timeoutMs,
    env: { GIT_SSH_COMMAND: 'ssh -o BatchMode=yes -o ConnectTimeout=10' },
  });
  if (r.code !== 0)
    return { ...up, result: 'error', error: r.stderr.trim() || `git push exited ${r.code}` };
  return { ...up, result: 'deleted' };
}

/** The git operation a worktree is in the middle of, if any (merge, rebase, cherry-pick, revert, bisect). */
export async function operationInProgress(worktree: string): Promise<string | null> {
  const r = await gitRaw(worktree, ['rev-parse', '--path-format=absolute', '--git-dir']);
  if (r.code !== 0) return null;
  const dir = r.stdout.trim();
  const has = (name: string) => existsSync(join(dir, name));
  if (has('MERGE_HEAD')) return 'merge';
  if (has('rebase-merge') || has('rebase-apply')) return 'rebase';
  if (has('CHERRY_PICK_HEAD')) return 'cherry-pick';
  if (has('REVERT_HEAD')) return 'revert';
  if (has('BISECT_LOG')) return 'bisect';
  return null;
}

/** Paths git reports as conflicted in a worktree. */
export async function conflictedPaths(worktree: string): Promise<string[]> {
  const r = await gitRaw(worktree, ['diff', '--name-only', '--diff-filter=U']);
  return r.code === 0 ? r.stdout.split('\n').filter(Boolean) : [];
}

export function listDir(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir) : [];
}
