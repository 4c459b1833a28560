/**
 * The launches the daemon gave up on before they started (a stream that could not connect): the
 * spawner closes a stream of one that arrives late instead of holding it for a request that will
 * never come. A late stream is one whose connection was already under way when the daemon gave
 * up, so it arrives within moments; an id is forgotten once `keepMs` have passed, where the set
 * used to keep every id for the spawner's whole life.
 */
export class DroppedLaunches {
  /** Ids by the time they were dropped, oldest first (a Map keeps insertion order). */
  private readonly at = new Map<string, number>();

  constructor(
    private readonly keepMs = 60_000,
    /** A monotonic clock: a wall clock set back would keep ids past their time. */
    private readonly now: () => number = () => performance.now(),
  ) {}

  add(id: string): void {
    this.forgetOld();
    this.at.delete(id);
    this.at.set(id, this.now());
  }

  has(id: string): boolean {
    const t = this.at.get(id);
    return t !== undefined && this.now() - t <= this.keepMs;
  }

  /** Ids still kept (for tests). */
  get size(): number {
    return this.at.size;
  }

  private forgetOld(): void {
    const cutoff = this.now() - this.keepMs;
    for (const [id, t] of this.at) {
      if (t >= cutoff) break;
      this.at.delete(id);
    }
  }
}
