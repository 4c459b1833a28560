/**
 * git with its output streamed to the caller instead of buffered: a diff can be any size, so the
 * caller counts bytes and stops git once it has read enough. git runs in its own process group
 * (a clean filter or a hook it starts goes with it), killed whole when the caller stops reading or
 * its signal aborts — a client that hangs up mid-diff leaves no git behind (issue 16).
 */
import { spawn } from 'node:child_process';
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

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
  }
}

/** Runs git with argv only, streaming stdout to `onStdout`; resolves once the process is gone. */
export function streamGit(opts: GitStreamOptions): Promise<GitStreamResult> {
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) {
      reject(new GitAbortedError());
      return;
    }
    const child = spawn('git', opts.args, {
      cwd: opts.cwd,
      env: { ...process.env, ...GIT_ENV, ...opts.env },
      detached: process.platform !== 'win32',
      stdio: [opts.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
      windowsHide: true,
    });
    let stopped = false;
    let aborted = false;
    let stderr = '';
    const stop = () => {
      if (stopped) return;
      stopped = true;
      killGroup(child.pid);
    };
    const onAbort = () => {
      aborted = true;
      stop();
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout?.on('data', (chunk: Buffer) => {
      if (stopped) return;
      if (!opts.onStdout(chunk)) stop();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      if (stderr.length < STDERR_KEPT) stderr += chunk.toString('utf8').slice(0, STDERR_KEPT);
    });
    if (opts.stdin && child.stdin) {
      // git may exit before reading everything (a bad argument): its closed pipe is not our error.
      child.stdin.on('error', () => {});
      child.stdin.end(opts.stdin);
    }
    child.on('error', (err) => {
      opts.signal?.removeEventListener('abort', onAbort);
      reject(err);
    });
    child.on('close', (code) => {
      opts.signal?.removeEventListener('abort', onAbort);
      if (aborted) reject(new GitAbortedError());
      else resolve({ code, stderr, stopped });
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
