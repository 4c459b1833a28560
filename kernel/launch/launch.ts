/**
 * The one place svc starts a program. Every caller (a step's process, git, a probe, a notifier)
 * goes through `launch`, which either forks here (`localLauncher`) or asks the spawner process to
 * fork for us (spawner-client.ts, decision 247): forking the daemon — a large heap that keeps
 * writing — costs a page-table copy per fork and a copy-on-write fault on every page it writes
 * afterwards, and holds the event loop while the child execs. The contract is the same either
 * way, and test/integration/launch/launch.test.ts runs it against both.
 *
 * Every program runs in a process group of its own (`detached`) so a signal reaches its whole tree;
 * arguments are argv, never a shell line.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { inheritedEnv } from './inherited-env.js';

export interface LaunchSpec {
  file: string;
  args: readonly string[];
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Bytes written to stdin then closed, or `'keep-open'`: `stdin` is then a writable. */
  stdin: string | Uint8Array | 'keep-open';
  /** Without a callback that stream is not read at all (the child's writes go nowhere). */
  onStdout?: (chunk: Buffer) => void;
  onStderr?: (chunk: Buffer) => void;
  /**
   * The callbacks may be given a view of a read buffer that is used again once they return: they
   * copy whatever they keep (decision 254). A launch may still give them buffers of their own.
   */
  borrowed?: boolean;
  /**
   * The output is wanted whole once the program ends, not as it comes (decision 255): a launcher
   * may keep it and hand each stream to its callback in one piece just before `closed` resolves.
   * At most this many bytes in all are kept, plus one to show it went over; past that the program
   * is killed. The callbacks must still accept pieces, since a launcher may stream instead.
   */
  keepUpTo?: number;
}

export interface LaunchEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The program could not start (ENOENT, a missing cwd, the spawner gone). */
  error: NodeJS.ErrnoException | null;
}

export interface Launched {
  /** The pid once known (at once here, after one message through the spawner). */
  readonly pid: number | undefined;
  /** Linux process start time in clock ticks (to recognize our own orphan after a crash). */
  readonly startTicks: string | null;
  /** Resolves once the program runs (or failed to start: `pid` then stays undefined). */
  readonly spawned: Promise<void>;
  /** With `stdin: 'keep-open'`. */
  readonly stdin: Writable | null;
  /** Resolves after the exit and the last byte of output (what `close` means for ChildProcess). */
  readonly closed: Promise<LaunchEnd>;
  /** Signals the process group (the process alone if the group is gone); before the pid is known, once it is. */
  signal(sig: NodeJS.Signals): void;
  /** Stops reading output (the program's writes block once the buffers fill) until `resumeOutput`. */
  pauseOutput(): void;
  resumeOutput(): void;
}

export interface Launcher {
  launch(spec: LaunchSpec): Launched;
}

export function signalGroup(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pid, sig);
  } catch {
    try {
      process.kill(pid, sig);
    } catch {}
  }
}

/** A spawn error as Node reports one, rebuilt from its parts (the spawner sends them). */
export function spawnErrorOf(parts: {
  message: string;
  code?: string | undefined;
  errno?: number | undefined;
  syscall?: string | undefined;
  path?: string | undefined;
}): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(parts.message);
  if (parts.code !== undefined) err.code = parts.code;
  if (parts.errno !== undefined) err.errno = parts.errno;
  if (parts.syscall !== undefined) err.syscall = parts.syscall;
  if (parts.path !== undefined) err.path = parts.path;
  return err;
}

export function processStartTicks(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

/**
 * A program's stdin as both launchers open it: nothing to write is /dev/null, which reads as the
 * same immediate end of input as a pipe written empty and closed, without the pipe and its stream
 * (about a tenth of what a fork costs the spawner; decision 247, amended).
 */
export function stdinOf(stdin: LaunchSpec['stdin']): 'ignore' | 'pipe' {
  return stdin !== 'keep-open' && stdin.length === 0 ? 'ignore' : 'pipe';
}

/** Forks from this process: the fallback, and what a short-lived command line uses. */
export const localLauncher: Launcher = {
  launch(spec) {
    const child = spawn(spec.file, spec.args, {
      cwd: spec.cwd,
      env: spec.env,
      detached: process.platform !== 'win32',
      stdio: [
        stdinOf(spec.stdin),
        spec.onStdout ? 'pipe' : 'ignore',
        spec.onStderr ? 'pipe' : 'ignore',
      ],
      windowsHide: true,
    });
    let error: NodeJS.ErrnoException | null = null;
    const pid = child.pid;
    const spawned = new Promise<void>((resolve) => {
      if (pid !== undefined) resolve();
      else child.once('error', () => resolve());
    });
    if (spec.onStdout) child.stdout?.on('data', spec.onStdout);
    if (spec.onStderr) child.stderr?.on('data', spec.onStderr);
    // The program may exit before reading its input: its closed pipe is not our error.
    child.stdin?.on('error', () => {});
    if (spec.stdin !== 'keep-open') child.stdin?.end(spec.stdin);
    const closed = new Promise<LaunchEnd>((resolve) => {
      let done = false;
      child.on('error', (err: NodeJS.ErrnoException) => {
        error = err;
        if (child.pid === undefined && !done) {
          done = true;
          resolve({ code: null, signal: null, error });
        }
      });
      child.on('close', (code, signal) => {
        if (done) return;
        done = true;
        resolve({ code, signal, error });
      });
    });
    return {
      pid,
      startTicks: pid !== undefined ? processStartTicks(pid) : null,
      spawned,
      stdin: spec.stdin === 'keep-open' ? child.stdin : null,
      closed,
      signal: (sig) => {
        if (pid !== undefined) signalGroup(pid, sig);
      },
      pauseOutput: () => {
        child.stdout?.pause();
        child.stderr?.pause();
      },
      resumeOutput: () => {
        child.stdout?.resume();
        child.stderr?.resume();
      },
    };
  },
};

let current: Launcher = localLauncher;

/** Starts a program through the launcher in use (the spawner while a daemon runs, decision 247). */
export function launch(spec: LaunchSpec): Launched {
  return current.launch(spec);
}

/** Which launcher `launch` uses; `null` is forking here. */
export function setLauncher(l: Launcher | null): void {
  current = l ?? localLauncher;
}

export interface Collected {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Could not start (ENOENT …), or printed more than `maxBytes` (code `ERR_CHILD_PROCESS_STDIO_MAXBUFFER`). */
  error: NodeJS.ErrnoException | null;
}

/**
 * Runs a short program and collects its output as text: what `execFile` did for git and the
 * container runtime, through `launch`. The timeout is real time, as execFile's was (SIGTERM to
 * the group); past `maxBytes` of output the program is killed.
 */
export function collect(
  file: string,
  args: readonly string[],
  opts: {
    cwd?: string;
    env?: Readonly<Record<string, string | undefined>>;
    timeoutMs?: number;
    maxBytes?: number;
  } = {},
): Promise<Collected> {
  const max = opts.maxBytes ?? 64 * 1024 * 1024;
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  let size = 0;
  let over = false;
  const take = (into: Buffer[]) => (c: Buffer) => {
    if (over) return;
    size += c.length;
    if (size > max) {
      over = true;
      child.signal('SIGKILL');
      return;
    }
    into.push(c);
  };
  const child = launch({
    file,
    args,
    cwd: opts.cwd ?? process.cwd(),
    env: opts.env ?? inheritedEnv(),
    stdin: '',
    onStdout: take(out),
    onStderr: take(err),
    keepUpTo: max,
  });
  const timer =
    opts.timeoutMs && opts.timeoutMs > 0
      ? setTimeout(() => child.signal('SIGTERM'), opts.timeoutMs)
      : null;
  return child.closed.then((end) => {
    if (timer) clearTimeout(timer);
    let error = end.error;
    if (!error && over) {
      error = new Error(`${file} printed more than ${max} bytes`);
      error.code = 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER';
    }
    return {
      code: end.code,
      signal: end.signal,
      stdout: Buffer.concat(out).toString('utf8'),
      stderr: Buffer.concat(err).toString('utf8'),
      error,
    };
  });
}
