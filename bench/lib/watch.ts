/** Waits on the daemon's own event log: no polling, so the bench adds nothing to what it measures. */
import type { EventLog, StoredEvent } from '../../kernel/events/index.js';

const SETTLED = new Set(['done', 'blocked', 'aborted', 'archived']);

export class TaskWatcher {
  private readonly waiters = new Map<number, (e: StoredEvent) => void>();
  private readonly settled = new Map<number, StoredEvent>();
  private readonly unsubscribe: () => void;

  constructor(events: EventLog) {
    this.unsubscribe = events.subscribe((e) => {
      if (e.kind !== 'task.state_changed' || e.task_id === null) return;
      if (!SETTLED.has(String(e.payload.to))) return;
      const w = this.waiters.get(e.task_id);
      if (w) {
        this.waiters.delete(e.task_id);
        w(e);
      } else this.settled.set(e.task_id, e);
    });
  }

  /** Resolves with the settling event of task `id` (done, blocked, aborted). */
  settle(id: number): Promise<StoredEvent> {
    const seen = this.settled.get(id);
    if (seen) {
      this.settled.delete(id);
      return Promise.resolve(seen);
    }
    return new Promise((r) => this.waiters.set(id, r));
  }

  close(): void {
    this.unsubscribe();
  }
}
