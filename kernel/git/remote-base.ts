/**
 * A base branch that exists only on a remote (issue 19 point 11, decision 205): a colleague's
 * pushed branch that was fetched but never checked out is `refs/remotes/<remote>/<name>` and no
 * local branch. Creation accepts it (with a warning, running no network call); admission fetches
 * it and creates the local branch tracking it, as `git switch <name>` would, then cuts from it.
 * Remotes are taken in order, `origin` first; the remote is never guessed beyond the ones the
 * repository has.
 */
import { branchExists } from './repo.js';
import { gitRaw } from './run.js';

export interface RemoteBranch {
  remote: string;
  /** `refs/remotes/<remote>/<name>`. */
  trackingRef: string;
}

/** The remote-tracking branch `<remote>/<name>` of the first remote that has one, or null. */
export async function remoteTrackingBranch(
  repo: string,
  name: string,
): Promise<RemoteBranch | null> {
  const r = await gitRaw(repo, ['remote']);
  if (r.code !== 0) return null;
  const remotes = r.stdout.split('\n').filter(Boolean);
  remotes.sort((a, b) => (a === 'origin' ? -1 : b === 'origin' ? 1 : 0));
  for (const remote of remotes) {
    const trackingRef = `refs/remotes/${remote}/${name}`;
    const seen = await gitRaw(repo, ['show-ref', '--verify', '--quiet', trackingRef]);
    if (seen.code === 0) return { remote, trackingRef };
  }
  return null;
}

export type RemoteBaseResult =
  | { ok: true; remote: string; fetched: boolean }
  | { ok: false; detail: string };

const FETCH_ENV = { GIT_SSH_COMMAND: 'ssh -o BatchMode=yes -o ConnectTimeout=10' };

/**
 * Fetches `<remote>/<name>` and creates the local branch `name` tracking it. An unreachable
 * remote falls back to the remote-tracking branch already there (decision 012); a remote that
 * answers that it has no such branch means it was deleted, and so does a tracking ref that is
 * gone: both are refusals naming what to do.
 */
export async function checkoutRemoteBase(
  repo: string,
  name: string,
  timeoutMs = 60_000,
): Promise<RemoteBaseResult> {
  if (await branchExists(repo, name)) return { ok: true, remote: '', fetched: false };
  const found = await remoteTrackingBranch(repo, name);
  if (!found)
    return {
      ok: false,
      detail: `base branch ${name} is neither a local branch nor on a remote of ${repo}`,
    };
  const f = await gitRaw(
    repo,
    ['fetch', '--quiet', '--no-tags', found.remote, `+refs/heads/${name}:${found.trackingRef}`],
    { timeoutMs, env: FETCH_ENV },
  );
  if (f.code !== 0 && /couldn't find remote ref|no such ref/i.test(f.stderr))
    return {
      ok: false,
      detail: `base branch ${name} is gone from ${found.remote} (deleted since the task was created?)`,
    };
  const made = await gitRaw(repo, ['branch', '--track', name, found.trackingRef]);
  if (made.code !== 0 && !(await branchExists(repo, name)))
    return {
      ok: false,
      detail: `could not create ${name} from ${found.trackingRef}: ${made.stderr.trim()}`,
    };
  return { ok: true, remote: found.remote, fetched: f.code === 0 };
}
