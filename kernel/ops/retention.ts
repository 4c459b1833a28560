/**
 * Retention (SPEC §2.10 `transcript_retention_days`, §8 "transcript pruner", decision 063): at start
 * and every 24 h on the injected clock, delete the transcripts of tasks archived more than the
 * configured number of days ago (measured from `archived_at`; 0 keeps them forever), and drop
 * idempotency keys older than 24 h (SPEC §8), whatever the retention setting.
 *
 * Rows are never deleted. A pruned step run keeps every field but `transcript_path`, which becomes
 * null, so `has_transcript` turns false and the transcript route answers 404 exactly as for a run
 * that never had one — the row does not point at a file that is gone.
 */
import { existsSync, rmSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Clock, Timer } from '../clock/index.js';
import type { ConfigService } from '../config/index.js';
import type { Paths } from '../daemon/paths.js';
import type { Store } from '../store/index.js';
import { isInside } from './archive.js';
import type { OpsQueue } from './serial.js';
import { treeBytes } from './sizes.js';

export const PRUNE_EVERY_MS = 24 * 60 * 60 * 1000;
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface PruneResult {
  /** Archived tasks whose transcripts went in this run. */
  tasks: number[];
  /** Step runs whose transcript_path was cleared. */
  runs: number;
  bytes: number;
  idempotency_keys: number;
}

export interface RetentionDeps {
  store: Store;
  paths: Paths;
  clock: Clock;
  config: ConfigService;
  logger: Logger;
  queue: OpsQueue;
}

export class RetentionService {
  private timer: Timer | null = null;
  private running: Promise<PruneResult> | null = null;
  private stopped = false;

  constructor(private readonly d: RetentionDeps) {}

  start(): void {
    this.stopped = false;
    this.fire();
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = null;
  }

  async whenIdle(): Promise<void> {
    while (this.running) await this.running.catch(() => {});
  }

  private fire(): void {
    if (this.stopped) return;
    this.timer = this.d.clock.setTimer(PRUNE_EVERY_MS, () => this.fire());
    if (this.running) return;
    this.running = this.d.queue
      .run('prune', () => this.prune())
      .catch((err) => {
        this.d.logger.error({ err: (err as Error).message }, 'transcript pruning failed');
        return { tasks: [], runs: 0, bytes: 0, idempotency_keys: 0 };
      })
      .finally(() => {
        this.running = null;
      });
  }

  /** One pass. Public for tests and for an operator-triggered run. */
  async prune(): Promise<PruneResult> {
    const now = this.d.clock.now();
    const db = this.d.store.db;
    const result: PruneResult = { tasks: [], runs: 0, bytes: 0, idempotency_keys: 0 };

    const days = this.d.config.current().transcript_retention_days;
    if (days > 0) {
      const cutoff = now - days * DAY_MS;
      const archived = db
        .prepare(
          "SELECT id, archived_at FROM tasks WHERE state = 'archived' AND archived_at IS NOT NULL ORDER BY id",
        )
        .all() as Array<{ id: number; archived_at: string }>;
      const clear = db.prepare('UPDATE step_runs SET transcript_path = NULL WHERE id = ?');
      for (const t of archived) {
        const at = Date.parse(t.archived_at);
        if (Number.isNaN(at) || at > cutoff) continue;
        const runs = db
          .prepare(
            'SELECT id, transcript_path FROM step_runs WHERE task_id = ? AND transcript_path IS NOT NULL',
          )
          .all(t.id) as Array<{ id: number; transcript_path: string }>;
        const dir = join(this.d.paths.transcriptsDir, String(t.id));
        if (runs.length === 0 && !existsSync(dir)) continue;
        result.bytes += await treeBytes(dir);
        for (const r of runs) {
          if (!isInside(r.transcript_path, dir)) {
            // A path outside the task's own folder (an older layout): count and remove it too.
            result.bytes += await treeBytes(r.transcript_path);
            try {
              unlinkSync(r.transcript_path);
            } catch {}
          }
        }
        rmSync(dir, { recursive: true, force: true });
        this.d.store.tx(() => {
          for (const r of runs) clear.run(r.id);
        });
        result.runs += runs.length;
        result.tasks.push(t.id);
      }
    }

    const keyCutoff = now - IDEMPOTENCY_RETENTION_MS;
    const keys = db.prepare('SELECT route, key, created_at FROM idempotency_keys').all() as Array<{
      route: string;
      key: string;
      created_at: string;
    }>;
    const drop = db.prepare('DELETE FROM idempotency_keys WHERE route = ? AND key = ?');
    const old = keys.filter((k) => {
      const at = Date.parse(k.created_at);
      return !Number.isNaN(at) && at <= keyCutoff;
    });
    if (old.length > 0) {
      this.d.store.tx(() => {
        for (const k of old) drop.run(k.route, k.key);
      });
    }
    result.idempotency_keys = old.length;

    if (result.tasks.length > 0 || result.idempotency_keys > 0)
      this.d.logger.info(
        {
          tasks: result.tasks.length,
          runs: result.runs,
          bytes: result.bytes,
          idempotency_keys: result.idempotency_keys,
        },
        'retention pass',
      );
    return result;
  }
}
