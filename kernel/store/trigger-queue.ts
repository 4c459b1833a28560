/** The trigger_queue table: events waiting for their concurrency key to settle (overrun: queue). */
import type { Db } from './database.js';

export interface TriggerQueueRow {
  id: number;
  trigger_id: string;
  delivery_id: number;
  dedupe_key: string | null;
  concurrency_key: string;
  /** JSON of the event, judged again when released. */
  event: string;
  created_at: string;
}

export class TriggerQueueTable {
  constructor(private readonly db: Db) {}

  insert(row: Omit<TriggerQueueRow, 'id'>): number {
    const info = this.db
      .prepare(
        `INSERT INTO trigger_queue (trigger_id, delivery_id, dedupe_key, concurrency_key, event, created_at)
         VALUES (@trigger_id, @delivery_id, @dedupe_key, @concurrency_key, @event, @created_at)`,
      )
      .run(row);
    return Number(info.lastInsertRowid);
  }

  /** Oldest first. */
  ofTrigger(triggerId: string): TriggerQueueRow[] {
    return this.db
      .prepare('SELECT * FROM trigger_queue WHERE trigger_id = ? ORDER BY id')
      .all(triggerId) as TriggerQueueRow[];
  }

  holdsKey(triggerId: string, dedupeKey: string): boolean {
    return (
      this.db
        .prepare('SELECT 1 FROM trigger_queue WHERE trigger_id = ? AND dedupe_key = ? LIMIT 1')
        .get(triggerId, dedupeKey) !== undefined
    );
  }

  triggers(): string[] {
    return (
      this.db.prepare('SELECT DISTINCT trigger_id FROM trigger_queue').all() as Array<{
        trigger_id: string;
      }>
    ).map((r) => r.trigger_id);
  }

  delete(id: number): boolean {
    return this.db.prepare('DELETE FROM trigger_queue WHERE id = ?').run(id).changes === 1;
  }

  deleteOfTrigger(triggerId: string): void {
    this.db.prepare('DELETE FROM trigger_queue WHERE trigger_id = ?').run(triggerId);
  }
}
