/** Questions about a repository: is it one, its default branch, its branches and refs. */
import { existsSync, lstatSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { GitError, git, gitRaw } from './run.js';

export interface RepoCheck {
  ok: boolean;
  /** Why the path is not a usable repository, in words for a 400. */
  reason?: string;
  toplevel?: string;
}

/** A registrable repository: a directory, the top level of a non-bare work tree, not a linked worktree. */
export async function checkRepository(path: string): Promise<RepoCheck> {
  try {
    if (!statSync(path).isDirectory()) return { ok: false, reason: `${path} is not a directory` };
  } catch {
    return { ok: false, reason: `${path} does not exist` };
  }
  const r = await gitRaw(path, [
    'rev-parse',
    '--path-format=absolute',
    '--is-bare-repository',
    '--show-toplevel',
    '--git-dir',
    '--git-common-dir',
  ]);
  if (r.code !== 0) return { ok: false, reason: `${path} is not a git repository` };
  const [bare, toplevel, gitDir, commonDir] = r.stdout.trim().split('\n');
  if (bare === 'true')
    return { ok: false, reason: `${path} is a bare repository; svc needs a work tree` };
  const real = realpathSync(path);
  if (!toplevel || realpathSync(toplevel) !== real) {
    return {
      ok: false,
      reason: `${path} is inside a repository; register its top level ${toplevel}`,
    };
  }
  if (gitDir && commonDir && realpathSync(gitDir) !== realpathSync(commonDir)) {
    return { ok: false, reason: `${path} is a linked worktree; register the main repository` };
  }
  return { ok: true, toplevel: real };
}

/** A branch name simple enough to map onto a loose ref file (no `..`, no empty component). */
const PLAIN_BRANCH =
  /^(?!.*\.\.)(?!.*\/\/)(?!.*\.lock(?:\/|$))[A-Za-z0-9_][A-Za-z0-9._/-]*(?<![/.])$/;
const OBJECT_ID = /^([0-9a-f]{2})([0-9a-f]{38}|[0-9a-f]{62})\n?$/;

/** The repository's own `.git` directory when its refs are plain files; undefined otherwise. */
function refFilesDir(repo: string): string | undefined {
  const gitDir = join(repo, '.git');
  try {
    return lstatSync(gitDir).isDirectory() && !existsSync(join(gitDir, 'reftable'))
      ? gitDir
      : undefined;
  } catch {
    return undefined;
  }
}

/** A ref file's text; null when there is no such file, undefined when it cannot be read. */
function readRefFile(file: string): string | null | undefined {
  try {
    // Most ref files asked for are missing — a new task's branch, the packed-refs of a repository
    // that never packed — and a read of a missing file throws, an exception and its stack on every
    // admission; a stat answers "no entry" without one.
    if (!statSync(file, { throwIfNoEntry: false })) return null;
    return readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR' ? null : undefined;
  }
}

/**
 * The commit a plain-named branch's loose ref file names; null when it has no loose ref,
 * undefined when the files cannot answer plainly (a symbolic or damaged ref, reftable, a gitfile,
 * an unusual name).
 */
function looseTip(gitDir: string | undefined, branch: string): string | null | undefined {
  if (!gitDir || !PLAIN_BRANCH.test(branch)) return undefined;
  const text = readRefFile(join(gitDir, 'refs', 'heads', branch));
  if (typeof text !== 'string') return text;
  const id = OBJECT_ID.exec(text);
  return id ? `${id[1]}${id[2]}` : undefined;
}

/**
 * Answers `git show-ref --verify refs/heads/<branch>` without a git process when the answer is a
 * plain yes: the repository's own `.git` directory holds the branch as a loose ref naming a loose
 * object. Anything else (packed refs or objects, a symbolic ref, reftable, a gitfile, an unusual
 * name) returns false and the caller asks git. Creating a task asked git this once per task, and
 * each git process forks the daemon (issue 11, decision 156).
 */
export function looseBranchExists(repo: string, branch: string): boolean {
  const gitDir = refFilesDir(repo);
  const tip = looseTip(gitDir, branch);
  return (
    typeof tip === 'string' &&
    existsSync(join(gitDir as string, 'objects', tip.slice(0, 2), tip.slice(2)))
  );
}

/**
 * The commit a local branch names, read from the ref files when they answer plainly: its loose
 * ref, else its line in packed-refs, else no such branch (null). Undefined when only git can
 * tell. git writes both files by renaming a finished lock file and packs a ref before deleting
 * its loose file, so a read never sees half.
 */
function tipFromFiles(repo: string, branch: string): string | null | undefined {
  const gitDir = refFilesDir(repo);
  const loose = looseTip(gitDir, branch);
  if (loose !== null) return loose;
  const packed = readRefFile(join(gitDir as string, 'packed-refs'));
  if (packed === undefined) return undefined;
  const tail = ` refs/heads/${branch}`;
  for (const line of (packed ?? '').split('\n')) {
    if (!line.endsWith(tail)) continue;
    const id = OBJECT_ID.exec(line.slice(0, -tail.length));
    return id ? `${id[1]}${id[2]}` : undefined;
  }
  return null;
}

/**
 * The commit `refs/heads/<branch>` names, null when there is no such branch: read from the ref
 * files without a git process when they answer plainly, else asked of git. On an admission's
 * path, where one git process is milliseconds of the latency budget (decision 159).
 */
export async function branchTip(repo: string, branch: string): Promise<string | null> {
  const known = tipFromFiles(repo, branch);
  return known !== undefined ? known : headCommit(repo, `refs/heads/${branch}`);
}

export async function branchExists(repo: string, branch: string): Promise<boolean> {
  if (looseBranchExists(repo, branch)) return true;
  const r = await gitRaw(repo, ['show-ref', '--verify', '--quiet', `refs/heads/${branch}`]);
  return r.code === 0;
}

export interface BranchFacts {
  /** The local branch `refs/heads/<name>` exists. */
  exists: boolean;
  /** Its configured upstream (null when none, when the remote is `.`, or the branch is absent). */
  upstream: { remote: string; ref: string } | null;
}

/**
 * Existence and configured upstream of several local branches in one git process. Admission used
 * to spend five processes on these questions; each spawn forks the daemon, which costs
 * milliseconds of blocked event loop on a busy machine (issue 11, docs/performance.md).
 */
export async function branchFacts(
  repo: string,
  names: string[],
): Promise<Map<string, BranchFacts>> {
  const r = await gitRaw(repo, [
    'for-each-ref',
    '--format=%(refname)%00%(upstream:remotename)%00%(upstream:remoteref)',
    // Ref names cannot hold glob characters, and every line is compared whole below, so a
    // pattern matching `refs/heads/<name>/…` as a prefix never counts as <name>.
    ...names.map((n) => `refs/heads/${n}`),
  ]);
  if (r.code !== 0) throw new GitError(['for-each-ref'], r.code, r.stderr);
  const seen = new Map<string, { remote: string; ref: string }>();
  for (const line of r.stdout.split('\n')) {
    const [ref, remote = '', merge = ''] = line.split('\0');
    if (ref) seen.set(ref, { remote, ref: merge });
  }
  const out = new Map<string, BranchFacts>();
  for (const n of names) {
    const f = seen.get(`refs/heads/${n}`);
    out.set(n, {
      exists: f !== undefined,
      upstream: f?.remote && f.ref && f.remote !== '.' ? { remote: f.remote, ref: f.ref } : null,
    });
  }
  return out;
}

export async function isValidBranchName(repo: string, branch: string): Promise<boolean> {
  if (!branch || branch.startsWith('-')) return false;
  const r = await gitRaw(repo, ['check-ref-format', '--branch', branch]);
  return r.code === 0;
}

/** origin/HEAD's target, else main, else master, else the current branch — each only if it exists locally. */
export async function detectDefaultBranch(repo: string): Promise<string | null> {
  const originHead = await gitRaw(repo, [
    'symbolic-ref',
    '--quiet',
    '--short',
    'refs/remotes/origin/HEAD',
  ]);
  if (originHead.code === 0) {
    const name = originHead.stdout.trim().replace(/^origin\//, '');
    if (name && (await branchExists(repo, name))) return name;
  }
  for (const name of ['main', 'master']) if (await branchExists(repo, name)) return name;
  const head = await gitRaw(repo, ['symbolic-ref', '--quiet', '--short', 'HEAD']);
  if (head.code === 0 && head.stdout.trim() && (await branchExists(repo, head.stdout.trim())))
    return head.stdout.trim();
  return null;
}

/** Commits on `branch` that `base` does not have; null when git cannot judge. */
export async function commitsPastBase(
  repo: string,
  base: string,
  branch: string,
): Promise<number | null> {
  const r = await gitRaw(repo, ['rev-list', '--count', `${base}..${branch}`]);
  if (r.code !== 0) return null;
  return Number(r.stdout.trim());
}

export async function headCommit(repo: string, ref = 'HEAD'): Promise<string | null> {
  const r = await gitRaw(repo, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  return r.code === 0 ? r.stdout.trim() : null;
}

export { git };
