/**
 * Diffs for review (issue 16, decision 170): a commit against another commit, or against a
 * worktree as it is on disk — committed, staged and unstaged changes and the untracked files that
 * are not ignored, shown as new files. git runs with argv only, no pager, no colour, no external
 * diff or textconv program, and its output is read through a byte counter: past `limit` git is
 * stopped and the text is cut at the last file boundary that fits.
 */
import { copyFileSync, mkdtempSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GitError } from './run.js';
import { collectGit, streamGit } from './stream.js';
import { worktreeGitDir } from './worktree.js';

/** The most a diff answer holds (issue 16: 16 MiB, cut at a file boundary). */
export const DIFF_LIMIT = 16 * 1024 * 1024;

/**
 * What to compare: `from` (a commit id) against `to` (a commit id), or against the working tree
 * of `cwd` when `to` is null — then `env` names the temporary index holding the untracked files
 * (withUntrackedIndex).
 */
export interface DiffRange {
  cwd: string;
  from: string;
  to: string | null;
  env?: NodeJS.ProcessEnv;
}

export type DiffStatus = 'added' | 'modified' | 'deleted' | 'renamed';

export interface DiffFile {
  path: string;
  old_path?: string;
  status: DiffStatus;
  additions: number;
  deletions: number;
  binary: boolean;
}

/**
 * The same rendering whatever the user's git config says: plain `a/` `b/` prefixes, paths from
 * the top, renames found, non-ASCII paths as UTF-8, no fsmonitor hook run on the daemon's behalf.
 */
const DIFF_ARGS = [
  '-c',
  'core.quotePath=false',
  '-c',
  'core.fsmonitor=false',
  'diff',
  '--no-color',
  '--no-ext-diff',
  '--no-textconv',
  '--no-relative',
  '--src-prefix=a/',
  '--dst-prefix=b/',
  '--find-renames',
];

function rangeArgs(r: DiffRange, paths?: readonly string[]): string[] {
  const revs = r.to ? [r.from, r.to] : [r.from];
  // Literal pathspecs from the top: a path is never a glob or a magic word.
  return [...revs, '--', ...(paths ?? []).map((p) => `:(top,literal)${p}`)];
}

function failed(args: string[], code: number | null, stderr: string): GitError {
  return new GitError(args, code, stderr);
}

/** `rev^{commit}` as a full id, or null when it names no commit. */
export async function resolveCommit(
  cwd: string,
  rev: string,
  signal?: AbortSignal,
): Promise<string | null> {
  if (rev.startsWith('-')) return null;
  const r = await collectGit(cwd, ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`], {
    signal,
  });
  const id = r.stdout.toString('utf8').trim();
  return r.code === 0 && /^[0-9a-f]{40,64}$/.test(id) ? id : null;
}

/** The best common ancestor of two commits, or null when they share none. */
export async function mergeBase(
  cwd: string,
  a: string,
  b: string,
  signal?: AbortSignal,
): Promise<string | null> {
  const r = await collectGit(cwd, ['merge-base', a, b], { signal });
  const id = r.stdout.toString('utf8').trim();
  return r.code === 0 && id ? id : null;
}

/**
 * Runs `fn` with an environment whose `GIT_INDEX_FILE` is a private copy of the worktree's index
 * with every untracked, not ignored file added as intent-to-add: `git diff <commit>` then shows
 * them as new files. The user's own index is only read. The copy keeps the original's mtime (one
 * millisecond earlier), or git's racy-entry check would trust stat data it must not.
 */
export async function withUntrackedIndex<T>(
  worktree: string,
  signal: AbortSignal | undefined,
  fn: (env: NodeJS.ProcessEnv) => Promise<T>,
): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-diff-'));
  const index = join(dir, 'index');
  const env = { GIT_INDEX_FILE: index };
  try {
    const gitDir = worktreeGitDir(worktree);
    let copied = false;
    if (gitDir) {
      const source = join(gitDir, 'index');
      try {
        const st = statSync(source);
        copyFileSync(source, index);
        const earlier = (st.mtimeMs - 1) / 1000;
        utimesSync(index, earlier, earlier);
        copied = true;
      } catch {}
    }
    if (!copied) {
      const r = await collectGit(worktree, ['read-tree', 'HEAD'], { env, signal });
      if (r.code !== 0) throw failed(['read-tree'], r.code, r.stderr);
    }
    const add = [
      '-c',
      'core.fsmonitor=false',
      'add',
      '--intent-to-add',
      '--ignore-errors',
      '--',
      ':/',
    ];
    const r = await collectGit(worktree, add, { env, signal });
    // --ignore-errors: a file git cannot read is left out, and git says so with status 1.
    if (r.code !== 0 && r.code !== 1) throw failed(add, r.code, r.stderr);
    return await fn(env);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Keeps whole file sections of a unified diff (each starts with `diff --git `) while they fit in
 * `limit` bytes. Memory is bounded by the limit plus one chunk: a section that cannot fit any more
 * ends the read.
 */
class FileCutter {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  /** End of the last whole section that fits. */
  private cut = 0;
  private tail = Buffer.alloc(0);
  truncated = false;

  constructor(private readonly limit: number) {}

  private static readonly BOUNDARY = Buffer.from('\ndiff --git ');

  /** Takes a chunk; false once nothing more can be kept. */
  push(chunk: Buffer): boolean {
    const start = this.size;
    this.chunks.push(chunk);
    this.size += chunk.length;
    // A boundary may straddle two chunks: search the previous chunk's tail with this one.
    const probe = Buffer.concat([this.tail, chunk]);
    const probeStart = start - this.tail.length;
    let at = probe.indexOf(FileCutter.BOUNDARY);
    while (at >= 0) {
      const sectionStart = probeStart + at + 1;
      if (sectionStart > this.limit) {
        this.truncated = true;
        return false;
      }
      this.cut = sectionStart;
      at = probe.indexOf(FileCutter.BOUNDARY, at + 1);
    }
    this.tail = probe.subarray(Math.max(0, probe.length - (FileCutter.BOUNDARY.length - 1)));
    if (this.size > this.limit) {
      // The section being read is already past the limit: it cannot be kept whole.
      this.truncated = true;
      return false;
    }
    return true;
  }

  /** The kept text: everything when git finished within the limit, else the whole sections. */
  result(complete: boolean): Buffer {
    const all = Buffer.concat(this.chunks, this.size);
    if (complete && !this.truncated) return all;
    return all.subarray(0, this.cut);
  }
}

/** The unified diff of `r`, cut at a file boundary past `limit` bytes. */
export async function diffText(
  r: DiffRange,
  opts: { paths?: readonly string[]; signal?: AbortSignal; limit?: number } = {},
): Promise<{ body: Buffer; truncated: boolean }> {
  const cutter = new FileCutter(opts.limit ?? DIFF_LIMIT);
  const args = [...DIFF_ARGS, ...rangeArgs(r, opts.paths)];
  const res = await streamGit({
    cwd: r.cwd,
    args,
    env: r.env,
    signal: opts.signal,
    onStdout: (chunk) => cutter.push(chunk),
  });
  if (!res.stopped && res.code !== 0) throw failed(args, res.code, res.stderr);
  return { body: cutter.result(!res.stopped), truncated: cutter.truncated };
}

/** NUL-terminated fields of a `-z` listing; a last field git was stopped inside is dropped. */
function fields(out: Buffer): string[] {
  const parts = out.toString('utf8').split('\0');
  parts.pop();
  return parts;
}

const STATUS: Record<string, DiffStatus> = {
  A: 'added',
  C: 'added',
  D: 'deleted',
  R: 'renamed',
};

interface RawEntry {
  path: string;
  old_path?: string;
  status: DiffStatus;
}

/** `--raw -z` records: `:<modes> <ids> <status>` then one path, or two for a rename or copy. */
function parseRaw(list: string[]): RawEntry[] {
  const out: RawEntry[] = [];
  for (let i = 0; i < list.length; ) {
    const head = list[i] as string;
    const letter = head.split(' ').at(-1)?.[0] ?? 'M';
    const two = letter === 'R' || letter === 'C';
    const need = two ? 3 : 2;
    if (i + need > list.length) break;
    if (two)
      out.push({
        path: list[i + 2] as string,
        ...(letter === 'R' ? { old_path: list[i + 1] as string } : {}),
        status: STATUS[letter] ?? 'modified',
      });
    else out.push({ path: list[i + 1] as string, status: STATUS[letter] ?? 'modified' });
    i += need;
  }
  return out;
}

/** `--numstat -z` records keyed by (new) path: `<add>\t<del>\t<path>`, or `\t` then two paths. */
function parseNumstat(list: string[]): Map<string, { add: number; del: number; binary: boolean }> {
  const out = new Map<string, { add: number; del: number; binary: boolean }>();
  for (let i = 0; i < list.length; ) {
    const [add = '', del = '', path = ''] = (list[i] as string).split('\t');
    let name = path;
    let step = 1;
    if (path === '') {
      if (i + 2 >= list.length) break;
      name = list[i + 2] as string;
      step = 3;
    }
    const binary = add === '-' && del === '-';
    out.set(name, { add: binary ? 0 : Number(add), del: binary ? 0 : Number(del), binary });
    i += step;
  }
  return out;
}

/** The files of `r` with their status and line counts; `truncated` when the list itself passed `limit`. */
export async function diffFiles(
  r: DiffRange,
  opts: {
    paths?: readonly string[];
    signal?: AbortSignal;
    limit?: number;
    /** false: names and statuses only (no line counts, one git process fewer). */
    counts?: boolean;
  } = {},
): Promise<{ files: DiffFile[]; truncated: boolean }> {
  const limit = opts.limit ?? DIFF_LIMIT;
  const run = async (format: string) => {
    const args = [...DIFF_ARGS, format, '-z', ...rangeArgs(r, opts.paths)];
    const res = await collectGit(r.cwd, args, { env: r.env, signal: opts.signal, limit });
    if (!res.over && res.code !== 0) throw failed(args, res.code, res.stderr);
    return { list: fields(res.stdout), over: res.over };
  };
  const raw = await run('--raw');
  const num = opts.counts === false ? { list: [], over: false } : await run('--numstat');
  const counts = parseNumstat(num.list);
  const files: DiffFile[] = [];
  for (const e of parseRaw(raw.list)) {
    const c = counts.get(e.path);
    if (!c && num.over) break;
    files.push({
      ...e,
      additions: c?.add ?? 0,
      deletions: c?.del ?? 0,
      binary: c?.binary ?? false,
    });
  }
  return { files, truncated: raw.over || num.over };
}
