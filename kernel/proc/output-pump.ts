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
 *
 * A chunk read while nothing of its process waits is handled at once, as long as this turn of
 * the event loop has spent less than SLICE_MS on such chunks (decision 254): the reads are lent
 * from one buffer, so only a chunk that has to wait is copied, and most are never allocated.
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
/** When the chunks handled as they are read in this turn of the event loop must stop; -1 between turns. */
let turnEnds = -1;

function endTurn(): void {
  turnEnds = -1;
}

/**
 * Whether a chunk read now may be handled at once: the first in a turn of the event loop opens
 * a budget of SLICE_MS, and chunks read after it ran out wait in their queue like before.
 */
function withinTurn(): boolean {
  const t = performance.now();
  if (turnEnds < 0) {
    turnEnds = t + SLICE_MS;
    setImmediate(endTurn);
    return true;
  }
  return t < turnEnds;
}

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

  /**
   * A chunk read: handled at once when nothing of this process waits and the turn's budget
   * allows (decision 254), else copied into the queue — it may be a view of a read buffer that
   * the next read fills again.
   */
  push(stream: 'stdout' | 'stderr', chunk: Buffer): void {
    if (this.head === this.items.length && withinTurn()) {
      this.handle(stream, chunk);
      return;
    }
    this.items.push({ stream, chunk: Buffer.from(chunk) });
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
