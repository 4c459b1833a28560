/**
 * The trigger runtime's bookkeeping of work in progress: every poll, delivery and release is
 * tracked so shutdown and tests can wait for quiet, and deliveries of one trigger run one after
 * another on its chain, so dedupe, the rate limit and the overrun check always see the rows
 * written before them.
 */
export class DeliveryChains {
  private readonly chains = new Map<string, Promise<unknown>>();
  private readonly pending = new Set<Promise<unknown>>();

  /** Resolves when no poll, delivery or release is in progress (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  track<T>(p: Promise<T>): Promise<T> {
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p)).catch(() => {});
    return p;
  }

  /** Runs `fn` after every earlier delivery of the same trigger. */
  serial<T>(id: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.chains.get(id) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    const settled = next.catch(() => {});
    this.chains.set(id, settled);
    void settled.then(() => {
      if (this.chains.get(id) === settled) this.chains.delete(id);
    });
    return this.track(next);
  }
}
