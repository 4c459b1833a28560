/**
 * One maintenance job at a time. A backup archives the transcripts tree while the pruner or gc could
 * delete parts of it, and a compaction rewrites the database a backup is copying; running them in
 * turn keeps every archive whole. Jobs queue; none is dropped.
 */
export class OpsQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private current: string | null = null;

  /** What runs now (`backup`, `prune`, `gc`, `compact`), or null. */
  get busy(): string | null {
    return this.current;
  }

  run<T>(what: string, fn: () => Promise<T>): Promise<T> {
    const next = this.tail.then(async () => {
      this.current = what;
      try {
        return await fn();
      } finally {
        this.current = null;
      }
    });
    this.tail = next.catch(() => {});
    return next;
  }

  /** Resolves once every job queued so far has finished. */
  async idle(): Promise<void> {
    for (;;) {
      const t = this.tail;
      await t;
      if (t === this.tail) return;
    }
  }
}
