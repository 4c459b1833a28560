/** The trigger_state table: one row per trigger that has polled or been armed. */
import type { Db } from './database.js';

export interface TriggerStateRow {
  trigger_id: string;
  cursor: string | null;
  seeded: number;
  source_digest: string | null;
  last_poll_at: string | null;
  ok: number | null;
  error: string | null;
  last_fire_at: string | null;
  /** Events past the per-poll cap at the last poll (migration 0011, decision 196). */
  held_back: number;
  /** Of those, the ones recorded in the ledger as `truncated` (the source moved past them). */
  truncated: number;
}

export class TriggerStateTable {
  constructor(private readonly db: Db) {}

  get(id: string): TriggerStateRow | undefined {
    return this.db.prepare('SELECT * FROM trigger_state WHERE trigger_id = ?').get(id) as
      | TriggerStateRow
      | undefined;
  }

  /** Writes the given columns, creating the row when it is missing. */
  upsert(id: string, patch: Partial<Omit<TriggerStateRow, 'trigger_id'>>): void {
    const keys = Object.keys(patch);
    this.db.prepare('INSERT OR IGNORE INTO trigger_state (trigger_id) VALUES (?)').run(id);
    if (keys.length === 0) return;
    this.db
      .prepare(
        `UPDATE trigger_state SET ${keys.map((k) => `${k} = @${k}`).join(', ')} WHERE trigger_id = @__id`,
      )
      .run({ ...patch, __id: id });
  }

  delete(id: string): void {
    this.db.prepare('DELETE FROM trigger_state WHERE trigger_id = ?').run(id);
  }
}
