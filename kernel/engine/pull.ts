/**
 * Tasks on a pull request (SPEC §4.4 rules 8–9). At creation the engine writes a link (no git
 * runs then); at admission the head is fetched and the pull request's own branch is checked out
 * in the task's worktree, tracking the remote branch when the head lives in the same repository.
 * A head in a fork is fetched through the base repository's `refs/pull/N/head` into a branch of
 * svc's own (`svc/pr-<n>-<owner>-<head>`, decision 199) and gets no upstream: nothing can be
 * pushed back. Failures block the task with one of three reasons:
 * `pull_fetch_failed`, `pull_branch_checked_out`, `pull_branch_diverged` (decision 086).
 */
import { GitError, git, gitRaw } from '../git/index.js';
import type { ForgePull, ForgeRepo } from '../plugin/index.js';
import type { TaskRow } from '../store/index.js';
import { jsonOr } from './model.js';
import { branchNameProblem } from './refname.js';

export interface PullLink {
  number: number;
  url: string;
  title: string;
  /** `owner/name` of the repository the pull request targets. */
  repo: string;
  head_ref: string;
  head_sha: string;
  head_repo: string | null;
  base_ref: string;
  /** `human` for POST /v1/tasks, `trigger` when a trigger's action created the task. */
  source: 'human' | 'trigger';
  /** The task works on the pull request's own branch. */
  branch: true;
  /** The head lives in another repository: no upstream, nothing pushed back. */
  fork: boolean;
}

export function pullLink(pull: ForgePull, repo: ForgeRepo, via: string | undefined): PullLink {
  return {
    number: pull.number,
    url: pull.url,
    title: pull.title,
    repo: repo.full_name,
    head_ref: pull.head_ref,
    head_sha: pull.head_sha,
    head_repo: pull.head_repo,
    base_ref: pull.base_ref,
    source: via?.startsWith('trigger') ? 'trigger' : 'human',
    branch: true,
    fork: pull.fork,
  };
}

/**
 * The local branch a fork's pull request is fetched into (decision 199): svc's own,
 * `svc/pr-<n>-<owner>-<head>`, never the fork's head name, which may well be `main` — a fork's
 * head must never be checked out onto, fetched into or claim a branch that is not svc's own.
 * A name git would refuse falls back to `svc/pr-<n>-fork`.
 */
export function forkBranchName(pull: Pick<ForgePull, 'number' | 'head_ref' | 'head_repo'>): string {
  const owner = (pull.head_repo?.split('/')[0] ?? '').toLowerCase().replace(/[^a-z0-9._-]/g, '-');
  const name = `svc/pr-${pull.number}-${owner || 'fork'}-${pull.head_ref}`;
  return branchNameProblem(name) === null && Buffer.byteLength(name) <= 512
    ? name
    : `svc/pr-${pull.number}-fork`;
}

export function pullLinkOf(task: Pick<TaskRow, 'forge_pull'>): PullLink | null {
  return task.forge_pull ? jsonOr<PullLink | null>(task.forge_pull, null) : null;
}

export type PullVerdict = { ok: true } | { ok: false; reason: string; detail: string };

const FETCH_ENV = { GIT_SSH_COMMAND: 'ssh -o BatchMode=yes -o ConnectTimeout=10' };

async function rev(repo: string, ref: string): Promise<string | null> {
  const r = await gitRaw(repo, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  return r.code === 0 ? r.stdout.trim() : null;
}

async function isAncestor(repo: string, a: string, b: string): Promise<boolean> {
  return (await gitRaw(repo, ['merge-base', '--is-ancestor', a, b])).code === 0;
}

/** The worktree (other than `ours`) that has `branch` checked out, if any. */
async function checkedOutAt(repo: string, branch: string, ours: string): Promise<string | null> {
  const r = await gitRaw(repo, ['worktree', 'list', '--porcelain']);
  let path = '';
  for (const line of r.stdout.split('\n')) {
    if (line.startsWith('worktree ')) path = line.slice('worktree '.length);
    else if (line === `branch refs/heads/${branch}` && path !== ours) return path;
  }
  return null;
}

/**
 * What to do about a failed fetch (decision 216): the daemon fetches with this machine's own git
 * credentials, without prompting, so the fix is on the machine; the task waits for a retry.
 */
export function fetchAdvice(taskId: number, projectPath: string): string {
  return `The daemon fetches with this machine's git credentials and never prompts: check that \`git -C ${projectPath} fetch origin\` works without asking (an SSH key in the agent; for HTTPS a credential helper, e.g. \`gh auth login\` then \`gh auth setup-git\`), then \`svc task retry ${taskId}\``;
}

/**
 * Makes the local branch `task.branch_name` the pull request's head: fetched now, fast-forwarded
 * when behind, kept when ahead (unpushed work of an earlier task), refused when diverged.
 */
export async function preparePullBranch(
  task: TaskRow,
  projectPath: string,
  worktreePath: string,
): Promise<PullVerdict> {
  const link = pullLinkOf(task);
  const branch = task.branch_name;
  if (!link || !branch)
    return { ok: false, reason: 'pull_fetch_failed', detail: 'the task has no pull request link' };
  const tracking = link.fork
    ? `refs/svc-pull/${link.number}`
    : `refs/remotes/origin/${link.head_ref}`;
  const source = link.fork ? `refs/pull/${link.number}/head` : `refs/heads/${link.head_ref}`;
  const fetched = await gitRaw(
    projectPath,
    ['fetch', '--quiet', '--no-tags', 'origin', `+${source}:${tracking}`],
    { timeoutMs: 120_000, env: FETCH_ENV },
  );
  if (fetched.code !== 0)
    return {
      ok: false,
      reason: 'pull_fetch_failed',
      detail: `git fetch origin ${source} failed: ${fetched.stderr.trim().split('\n').slice(-2).join(' ')}. ${fetchAdvice(task.id, projectPath)}`,
    };
  const tip = await rev(projectPath, tracking);
  if (!tip)
    return { ok: false, reason: 'pull_fetch_failed', detail: `${tracking} is not a commit` };
  const elsewhere = await checkedOutAt(projectPath, branch, worktreePath);
  if (elsewhere !== null)
    return {
      ok: false,
      reason: 'pull_branch_checked_out',
      detail: `branch ${branch} is checked out in ${elsewhere}`,
    };
  try {
    const local = await rev(projectPath, `refs/heads/${branch}`);
    if (local === null) await git(projectPath, ['branch', branch, tip]);
    else if (local !== tip) {
      if (await isAncestor(projectPath, local, tip))
        await git(projectPath, ['update-ref', `refs/heads/${branch}`, tip, local]);
      else if (!(await isAncestor(projectPath, tip, local)))
        return {
          ok: false,
          reason: 'pull_branch_diverged',
          detail: `local branch ${branch} and the pull request's head have diverged`,
        };
    }
    if (link.fork) await gitRaw(projectPath, ['branch', '--unset-upstream', branch]);
    else await git(projectPath, ['branch', `--set-upstream-to=origin/${link.head_ref}`, branch]);
  } catch (err) {
    return {
      ok: false,
      reason: 'pull_fetch_failed',
      detail: err instanceof GitError ? err.message : (err as Error).message,
    };
  }
  return { ok: true };
}
