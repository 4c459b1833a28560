/**
 * Child processes for steps, checks and agents. Each runs in its own process group so cancel and
 * timeout reach the whole tree (agents start shells, MCP servers, sub-agents): SIGTERM to the
 * group, then SIGKILL after a grace period measured on the injected clock. Arguments are always
 * argv; nothing here builds a shell line.
 */
import { randomBytes } from 'node:crypto';
import type { Writable } from 'node:stream';
import type { Clock, Timer } from '../clock/index.js';
import { launch, processStartTicks } from '../launch/index.js';
import { killMarked, MARK_VAR, signalMarked } from './marks.js';

export { processStartTicks };

export const KILL_GRACE_MS = 10_000;

export interface SpawnSpec {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** Text written to stdin then closed; `'keep-open'` leaves stdin writable (agent control protocols). */
  stdin?: string | 'keep-open';
  /** Called once when termination starts (a containerized step also stops its container). */
  onTerminate?: () => void;
  /** With `keep-open`: written first, stdin stays open. */
  initialStdin?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  clock: Clock;
  killGraceMs?: number;
  onStdout?: (chunk: Buffer) => void;
  onStderr?: (chunk: Buffer) => void;
  /** The output callbacks copy what they keep: they may be lent a reused read buffer (decision 254). */
  borrowed?: boolean;
  /**
   * The owner's attempt marker (`<data-dir key>.<owner>`, decision 182): the process and every
   * descendant carry it with a nonce of this spawn, and termination reaches each of them even
   * after it left the process group.
   */
  mark?: string;
}

export interface SpawnResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** The caller's signal aborted the process (cancel, shutdown, transcript latch). */
  aborted: boolean;
  /** The process could not start: ENOENT and friends. */
  spawnError: NodeJS.ErrnoException | null;
}

export interface RunningProcess {
  /** Known once `spawned` resolves (a launch through the spawner learns it a message later). */
  readonly pid: number | undefined;
  /** Linux process start time (clock ticks since boot), to recognize our own orphan after a crash. */
  readonly startTicks: string | null;
  /** Resolves once the process runs or failed to start (`pid` then stays undefined). */
  spawned: Promise<void>;
  stdin: Writable | null;
  done: Promise<SpawnResult>;
  /** Terminates the process group: SIGTERM now, SIGKILL after the grace period. */
  terminate(): void;
  /** Stops the timeout clock (while the process waits for a human); resumeTimeout restarts it. */
  pauseTimeout(): void;
  resumeTimeout(): void;
  /**
   * Stops reading the process's output (its writes block once the pipes fill) until
   * `resumeOutput`: how a transcript that cannot keep up holds a producer back (decision 232).
   */
  pauseOutput(): void;
  resumeOutput(): void;
}

/** Kills a process group left by a previous daemon, if the pid still names the process we started. */
export function killOrphan(pid: number, startTicks: string | null): boolean {
  if (!startTicks || processStartTicks(pid) !== startTicks) return false;
  try {
    process.kill(-pid, 'SIGKILL');
    return true;
  } catch {
    try {
      process.kill(pid, 'SIGKILL');
      return true;
    } catch {
      return false;
    }
  }
}

export function startProcess(spec: SpawnSpec): RunningProcess {
  const mark = spec.mark ? `${spec.mark}.${randomBytes(6).toString('hex')}` : null;
  const child = launch({
    file: spec.file,
    args: spec.args,
    cwd: spec.cwd,
    env: mark ? { ...spec.env, [MARK_VAR]: mark } : spec.env,
    stdin: spec.stdin === 'keep-open' ? 'keep-open' : (spec.stdin ?? ''),
    onStdout: (c) => spec.onStdout?.(c),
    onStderr: (c) => spec.onStderr?.(c),
    borrowed: spec.borrowed === true,
  });
  let timedOut = false;
  let aborted = false;
  let graceTimer: Timer | null = null;
  let timeoutTimer: Timer | null = null;
  let exited = false;

  let terminated = false;
  const terminate = () => {
    if (exited || graceTimer) return;
    terminated = true;
    spec.onTerminate?.();
    child.signal('SIGTERM');
    if (mark) signalMarked(mark, 'SIGTERM');
    graceTimer = spec.clock.setTimer(spec.killGraceMs ?? KILL_GRACE_MS, () => {
      if (exited) return;
      child.signal('SIGKILL');
      if (mark) killMarked(mark);
    });
  };

  const onAbort = () => {
    aborted = true;
    terminate();
  };
  if (spec.signal?.aborted) onAbort();
  else spec.signal?.addEventListener('abort', onAbort, { once: true });
  // The timeout is a budget that can be paused (an agent waiting for a human's answer does not
  // spend its step time), so it is kept as remaining milliseconds plus the time it was armed.
  let remaining = spec.timeoutMs && spec.timeoutMs > 0 ? spec.timeoutMs : 0;
  let armedAt = 0;
  const arm = () => {
    if (remaining <= 0 || exited || timeoutTimer) return;
    armedAt = spec.clock.now();
    timeoutTimer = spec.clock.setTimer(remaining, () => {
      timedOut = true;
      terminate();
    });
  };
  const pauseTimeout = () => {
    if (!timeoutTimer) return;
    timeoutTimer.cancel();
    timeoutTimer = null;
    remaining = Math.max(1, remaining - (spec.clock.now() - armedAt));
  };
  arm();

  if (spec.stdin === 'keep-open' && spec.initialStdin) child.stdin?.write(spec.initialStdin);

  const done = child.closed.then((end) => {
    exited = true;
    // Checked after the kill: whatever the attempt started and is still alive, inside the
    // group or out of it, is gone before the caller hears that the process ended.
    if (terminated && mark) killMarked(mark);
    graceTimer?.cancel();
    timeoutTimer?.cancel();
    spec.signal?.removeEventListener('abort', onAbort);
    return { exitCode: end.code, signal: end.signal, timedOut, aborted, spawnError: end.error };
  });

  return {
    get pid() {
      return child.pid;
    },
    get startTicks() {
      return child.startTicks;
    },
    spawned: child.spawned,
    stdin: child.stdin,
    done,
    terminate,
    pauseTimeout,
    resumeTimeout: arm,
    pauseOutput: () => child.pauseOutput(),
    resumeOutput: () => child.resumeOutput(),
  };
}

/** Splits a byte stream into complete lines, holding a partial line until more arrives. */
export class LineSplitter {
  private rest = '';
  private readonly decoder = new TextDecoder();

  push(chunk: Buffer, onLine: (line: string) => void): void {
    this.rest += this.decoder.decode(chunk, { stream: true });
    let i = this.rest.indexOf('\n');
    while (i >= 0) {
      onLine(this.rest.slice(0, i).replace(/\r$/, ''));
      this.rest = this.rest.slice(i + 1);
      i = this.rest.indexOf('\n');
    }
  }

  flush(onLine: (line: string) => void): void {
    this.rest += this.decoder.decode();
    if (this.rest.length > 0) onLine(this.rest);
    this.rest = '';
  }
}
