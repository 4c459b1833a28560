/**
 * git with its output streamed to the caller instead of buffered: a diff can be any size, so the
 * caller counts bytes and stops git once it has read enough. git runs in its own process group
 * (a clean filter or a hook it starts goes with it), killed whole when the caller stops reading or
 * its signal aborts — a client that hangs up mid-diff leaves no git behind (issue 16).
 */
import { inheritedEnv, launch } from '../launch/index.js';
import { GIT_ENV } from './run.js';

export interface GitStreamOptions {
  cwd: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  /** Aborting kills git's process group; the call then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Written to git's stdin, then closed (`--pathspec-from-file=-`). */
  stdin?: Buffer;
  /** Each chunk of stdout as it arrives; `false` stops git (the output is then cut short). */
  onStdout(chunk: Buffer): boolean;
}

export interface GitStreamResult {
  code: number | null;
  /** The first 64 KiB of stderr, for an error message. */
  stderr: string;
  /** The caller stopped reading before git finished. */
  stopped: boolean;
}

const STDERR_KEPT = 64 * 1024;

export class GitAbortedError extends Error {
  constructor() {
    super('the git process was stopped because the request ended');
    this.name = 'GitAbortedError';
  }
}

/** Runs git with argv only, streaming stdout to `onStdout`; resolves once the process is gone. */
export function streamGit(opts: GitStreamOptions): Promise<GitStreamResult> {
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) {
      reject(new GitAbortedError());
      return;
    }
    let stopped = false;
    let aborted = false;
    let stderr = '';
    const child = launch({
      file: 'git',
      args: opts.args,
      cwd: opts.cwd,
      env: { ...inheritedEnv(), ...GIT_ENV, ...opts.env },
      stdin: opts.stdin ?? '',
      onStdout: (chunk) => {
        if (stopped) return;
        if (!opts.onStdout(chunk)) stop();
      },
      onStderr: (chunk) => {
        if (stderr.length < STDERR_KEPT) stderr += chunk.toString('utf8').slice(0, STDERR_KEPT);
      },
    });
    const stop = () => {
      if (stopped) return;
      stopped = true;
      child.signal('SIGKILL');
    };
    const onAbort = () => {
      aborted = true;
      stop();
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    void child.closed.then((end) => {
      opts.signal?.removeEventListener('abort', onAbort);
      if (end.error) reject(end.error);
      else if (aborted) reject(new GitAbortedError());
      else resolve({ code: end.code, stderr, stopped });
    });
  });
}

/**
 * Runs git and collects at most `limit` bytes of stdout: past that git is stopped and `over` is
 * true. For the short answers around a diff (rev-parse, merge-base, the file list).
 */
export async function collectGit(
  cwd: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; signal?: AbortSignal; limit?: number; stdin?: Buffer } = {},
): Promise<{ stdout: Buffer; over: boolean } & GitStreamResult> {
  const limit = opts.limit ?? 1024 * 1024;
  const chunks: Buffer[] = [];
  let size = 0;
  let over = false;
  const r = await streamGit({
    cwd,
    args,
    env: opts.env,
    signal: opts.signal,
    stdin: opts.stdin,
    onStdout: (chunk) => {
      const room = limit - size;
      if (chunk.length > room) {
        chunks.push(chunk.subarray(0, room));
        size = limit;
        over = true;
        return false;
      }
      chunks.push(chunk);
      size += chunk.length;
      return true;
    },
  });
  return { ...r, stdout: Buffer.concat(chunks, size), over };
}
