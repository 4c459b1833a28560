/**
 * Output is read as it comes and handled in turns (issue 22 point 4, decision 239). libuv reads a
 * pipe up to 32 times in one go while the producer keeps it full, so sixteen busy steps could hand
 * the daemon hundreds of chunks in a single turn of the event loop, and encoding them all there
 * held every request and timer for a fifth of a second at a time. Now a chunk read is only queued
 * (`OutputQueue.push`); the queues of every running process are worked round-robin in slices of a
 * few milliseconds, each slice its own turn of the event loop (`setImmediate`), so requests,
 * timers and the other pipes are served between them. A process whose queue holds more than
 * `QUEUE_HOLD` bytes is not read (its producer blocks on the pipe, as with a slow disk) until its
 * queue is worked down: what waits in memory stays bounded.
 */

/** Queued bytes past which a process's pipes are no longer read until its queue is worked. */
export const QUEUE_HOLD = 256 * 1024;
/** Milliseconds one slice may work before the event loop gets its turn back. */
export const SLICE_MS = 4;

interface Item {
  stream: 'stdout' | 'stderr';
  chunk: Buffer;
}

const ready: OutputQueue[] = [];
let scheduled = false;

function schedule(): void {
  if (scheduled || ready.length === 0) return;
  scheduled = true;
  setImmediate(slice);
}

/** Works the ready queues a chunk at a time, round-robin, for at most SLICE_MS. */
function slice(): void {
  scheduled = false;
  const until = performance.now() + SLICE_MS;
  do {
    const q = ready.shift();
    if (!q) break;
    if (q.workOne()) ready.push(q);
  } while (performance.now() < until);
  schedule();
}

/** One process's output waiting to be handled, in the order it was read (stdout and stderr). */
export class OutputQueue {
  private items: Item[] = [];
  private head = 0;
  private queued = 0;
  private listed = false;
  private held = false;
  private idleWaiters: Array<() => void> = [];

  /**
   * `handle` turns a chunk into transcript lines; `hold(true)` asks the caller to stop reading
   * the process's pipes, `hold(false)` to read them again.
   */
  constructor(
    private readonly handle: (stream: 'stdout' | 'stderr', chunk: Buffer) => void,
    private readonly hold: (on: boolean) => void,
  ) {}

  /** Bytes read and not handled yet. */
  get bytes(): number {
    return this.queued;
  }

  push(stream: 'stdout' | 'stderr', chunk: Buffer): void {
    this.items.push({ stream, chunk });
    this.queued += chunk.length;
    if (!this.held && this.queued > QUEUE_HOLD) {
      this.held = true;
      this.hold(true);
    }
    if (!this.listed) {
      this.listed = true;
      ready.push(this);
      schedule();
    }
  }

  /** Resolves once every chunk pushed so far has been handled. */
  idle(): Promise<void> {
    if (this.queued === 0 && this.head === this.items.length) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  /** Handles the oldest chunk; true while more wait. */
  workOne(): boolean {
    const item = this.items[this.head];
    if (item) {
      this.items[this.head++] = undefined as unknown as Item;
      this.queued -= item.chunk.length;
      this.handle(item.stream, item.chunk);
    }
    if (this.head < this.items.length) {
      if (this.held && this.queued <= QUEUE_HOLD / 2) {
        this.held = false;
        this.hold(false);
      }
      return true;
    }
    this.items = [];
    this.head = 0;
    this.listed = false;
    if (this.held) {
      this.held = false;
      this.hold(false);
    }
    for (const w of this.idleWaiters.splice(0)) w();
    return false;
  }
}
