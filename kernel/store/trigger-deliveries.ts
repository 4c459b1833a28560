/** The trigger_deliveries table: the delivery ledger, append-only, newest last. */
import type { Db } from './database.js';

export interface TriggerDeliveryRow {
  id: number;
  trigger_id: string;
  event_id: string;
  dedupe_key: string | null;
  concurrency_key: string | null;
  outcome: string;
  task_id: number | null;
  superseded_task_id: number | null;
  /** JSON: the replayed route's error envelope (refused) or a message (error). */
  detail: string | null;
  created_at: string;
}

export type TriggerDeliveryInsert = Omit<TriggerDeliveryRow, 'id'>;

export class TriggerDeliveriesTable {
  constructor(private readonly db: Db) {}

  insert(row: TriggerDeliveryInsert): TriggerDeliveryRow {
    const info = this.db
      .prepare(
        `INSERT INTO trigger_deliveries (trigger_id, event_id, dedupe_key, concurrency_key, outcome, task_id, superseded_task_id, detail, created_at)
         VALUES (@trigger_id, @event_id, @dedupe_key, @concurrency_key, @outcome, @task_id, @superseded_task_id, @detail, @created_at)`,
      )
      .run(row);
    return { id: Number(info.lastInsertRowid), ...row };
  }

  get(id: number): TriggerDeliveryRow | undefined {
    return this.db.prepare('SELECT * FROM trigger_deliveries WHERE id = ?').get(id) as
      | TriggerDeliveryRow
      | undefined;
  }

  /** Newest first. */
  recent(triggerId: string, limit: number): TriggerDeliveryRow[] {
    return this.db
      .prepare('SELECT * FROM trigger_deliveries WHERE trigger_id = ? ORDER BY id DESC LIMIT ?')
      .all(triggerId, limit) as TriggerDeliveryRow[];
  }

  any(triggerId: string): boolean {
    return (
      this.db
        .prepare('SELECT 1 FROM trigger_deliveries WHERE trigger_id = ? LIMIT 1')
        .get(triggerId) !== undefined
    );
  }

  /** True when a fired or seeded row holds the key (SPEC §2.6 `deduped`). */
  holdsKey(triggerId: string, dedupeKey: string): boolean {
    return (
      this.db
        .prepare(
          "SELECT 1 FROM trigger_deliveries WHERE trigger_id = ? AND dedupe_key = ? AND outcome IN ('fired', 'seeded') LIMIT 1",
        )
        .get(triggerId, dedupeKey) !== undefined
    );
  }

  /** Fired rows at or after `since` (a nanosecond timestamp): the rate limit counts these only. */
  firedSince(triggerId: string, since: string): number {
    return (
      this.db
        .prepare(
          "SELECT COUNT(*) AS n FROM trigger_deliveries WHERE trigger_id = ? AND outcome = 'fired' AND created_at >= ?",
        )
        .get(triggerId, since) as { n: number }
    ).n;
  }

  /** Task ids of fired rows under one concurrency key, oldest first. */
  firedTasks(triggerId: string, concurrencyKey: string): number[] {
    return (
      this.db
        .prepare(
          "SELECT DISTINCT task_id FROM trigger_deliveries WHERE trigger_id = ? AND concurrency_key = ? AND outcome = 'fired' AND task_id IS NOT NULL ORDER BY id",
        )
        .all(triggerId, concurrencyKey) as Array<{ task_id: number }>
    ).map((r) => r.task_id);
  }
}
