/**
 * Transcript writes take turns (issue 22 point 4, decision 251). Each write goes to libuv's
 * thread pool; with sixteen busy transcripts, four pool threads were writing at once, and on a
 * two-core machine every write handed to the pool woke a thread that took the core from the
 * event loop — measured, four writes in flight left the loop 56% of its core, one left it 97%.
 * The event loop is what frames every output line, so its share of the core is the output's
 * speed. A lane lets `width` writes run at once across every transcript; the others wait their
 * turn, first come first served, while their lines gather into one larger write.
 */
export class DiskLane {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly width: number) {}

  /** Writes running now. */
  get busy(): number {
    return this.running;
  }

  /** Writes waiting for a turn. */
  get queued(): number {
    return this.waiting.length;
  }

  /**
   * Calls `start` once a place is free (at once when one is). `start` is given `done`, which it
   * calls exactly once, when its write has returned; a second call is ignored.
   */
  take(start: (done: () => void) => void): void {
    if (this.running < this.width) this.run(start);
    else this.waiting.push(() => this.run(start));
  }

  private run(start: (done: () => void) => void): void {
    this.running++;
    let released = false;
    start(() => {
      if (released) return;
      released = true;
      this.running--;
      this.waiting.shift()?.();
    });
  }
}

/** The lane every transcript writer shares unless it is given its own. */
export const transcriptLane = new DiskLane(1);
