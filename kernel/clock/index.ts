/**
 * clock: the container's one source of time (ARCHITECTURE "Tests"). Everything that waits or
 * timestamps asks the clock, so a test of a 24 h input timeout runs in milliseconds with
 * `FakeClock.advance('24h')` while SQLite, child processes and fastify keep real time.
 */
import { parseDuration } from '../config/duration.js';

export interface Timer {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Nanoseconds since the epoch; strictly increasing within one process. */
  nowNs(): bigint;
  /** Calls `fn` once after `ms`. */
  setTimer(ms: number, fn: () => void): Timer;
  /** Resolves after `ms`, rejects with the signal's reason when aborted first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

function sleepOn(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      timer.cancel();
      reject(signal?.reason);
    };
    const timer = clock.setTimer(ms, () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export class SystemClock implements Clock {
  // Anchor wall time once and advance it with the monotonic high-resolution clock, so event
  // timestamps carry real nanoseconds and never go backwards when NTP adjusts the wall clock.
  private readonly baseNs = BigInt(Date.now()) * 1_000_000n;
  private readonly baseHr = process.hrtime.bigint();
  private lastNs = 0n;

  now(): number {
    return Date.now();
  }

  nowNs(): bigint {
    let ns = this.baseNs + (process.hrtime.bigint() - this.baseHr);
    if (ns <= this.lastNs) ns = this.lastNs + 1n;
    this.lastNs = ns;
    return ns;
  }

  setTimer(ms: number, fn: () => void): Timer {
    // Node caps timers at 2^31-1 ms (~24.8 days); longer waits are chained.
    const max = 2_147_483_647;
    let handle: NodeJS.Timeout;
    const arm = (left: number) => {
      handle = setTimeout(() => (left > max ? arm(left - max) : fn()), Math.min(left, max));
      handle.unref?.();
    };
    arm(Math.max(0, ms));
    return { cancel: () => clearTimeout(handle) };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }
}

interface PendingTimer {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/** A clock that only moves when a test says so. Timers due at or before the new time fire in order. */
export class FakeClock implements Clock {
  private ms: number;
  private seq = 0;
  private subNs = 0n;
  private timers: PendingTimer[] = [];

  constructor(start: number | Date = Date.UTC(2026, 0, 1, 0, 0, 0)) {
    this.ms = typeof start === 'number' ? start : start.getTime();
  }

  now(): number {
    return this.ms;
  }

  nowNs(): bigint {
    this.subNs += 1n;
    return BigInt(this.ms) * 1_000_000n + (this.subNs % 1_000_000n);
  }

  setTimer(ms: number, fn: () => void): Timer {
    const t: PendingTimer = {
      at: this.ms + Math.max(0, ms),
      seq: this.seq++,
      fn,
      cancelled: false,
    };
    this.timers.push(t);
    return {
      cancel: () => {
        t.cancelled = true;
      },
    };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }

  /** Number of timers still waiting; lets tests assert that a wait was armed before advancing. */
  pending(): number {
    return this.timers.filter((t) => !t.cancelled).length;
  }

  /** Moves time forward by a duration (`'24h'`) or milliseconds, firing due timers in order. */
  async advance(by: number | string): Promise<void> {
    const target = this.ms + (typeof by === 'number' ? by : parseDuration(by));
    for (;;) {
      const due = this.timers
        .filter((t) => !t.cancelled && t.at <= target)
        .sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.ms = Math.max(this.ms, due.at);
      due.fn();
      // Let promise continuations scheduled by the timer run before the next one fires.
      await new Promise((r) => setImmediate(r));
    }
    this.ms = target;
  }
}

/** RFC 3339 UTC with nanoseconds, e.g. `2026-11-21T10:00:00.123456789Z`. */
export function formatNs(ns: bigint): string {
  const ms = Number(ns / 1_000_000n);
  const frac = (ns % 1_000_000_000n).toString().padStart(9, '0');
  return `${new Date(ms).toISOString().slice(0, 19)}.${frac}Z`;
}

/**
 * RFC 3339 UTC with millisecond precision, e.g. `2026-11-27T19:12:44.142Z`: the wire form of
 * ordinary timestamps (tasks, step runs, projects, chats; decision 230), so a fast step's duration
 * and an admission gap read from the API. Rows written before it carry whole seconds
 * (`2026-11-27T19:12:44Z`); `Date.parse`, which every reader of a stored time uses, reads both.
 */
export function formatMs(ms: number): string {
  return new Date(ms).toISOString();
}
