/**
 * The forge reconciler (SPEC §2.10 `forge.poll_interval`, decision 087). Every interval (0 is
 * off, read again after each pass and on every config change) it looks at the pull request of
 * every unarchived task created with `forge_pull` and records what the code host says now (open,
 * closed or merged, and the head commit) beside the task, announcing a change as
 * `task.forge_updated`. It never changes a task's state, never re-reads an issue snapshot (those
 * are frozen at creation) and never touches git: it tells people, it does not act for them.
 */
import type { Logger } from 'pino';
import { type Clock, formatMs, type Timer } from '../clock/index.js';
import { type ConfigService, parseDuration } from '../config/index.js';
import type { EventLog } from '../events/index.js';
import type { ProjectService } from '../projects/index.js';
import type { Store } from '../store/index.js';
import type { ForgeService } from './service.js';

export interface PullStateRow {
  task_id: number;
  state: string | null;
  head_sha: string | null;
  checked_at: string;
  error: string | null;
}

export interface ReconcileReport {
  checked: number;
  changed: number;
  failed: number;
}

export interface ReconcilerDeps {
  forge: ForgeService;
  store: Store;
  config: ConfigService;
  clock: Clock;
  logger: Logger;
  events: EventLog;
  projects: ProjectService;
}

export class ForgeReconciler {
  private timer: Timer | null = null;
  private running: Promise<ReconcileReport> | null = null;
  private stopped = true;
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly d: ReconcilerDeps) {}

  private intervalMs(): number {
    return parseDuration(this.d.config.current().forge.poll_interval);
  }

  start(): void {
    this.stopped = false;
    this.unsubscribe = this.d.config.onChange((next, prev) => {
      if (
        next.forge.poll_interval !== prev.forge.poll_interval ||
        next.forge.enabled !== prev.forge.enabled
      )
        this.arm();
    });
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = null;
    this.unsubscribe?.();
  }

  /** Waits for a pass in progress (tests). */
  async idle(): Promise<void> {
    await this.running;
  }

  private arm(): void {
    this.timer?.cancel();
    this.timer = null;
    if (this.stopped) return;
    const ms = this.intervalMs();
    if (ms <= 0 || !this.d.config.current().forge.enabled) return;
    this.timer = this.d.clock.setTimer(ms, () => {
      this.timer = null;
      // A pass whose writes were refused (a full disk) is logged; the next one is armed anyway.
      void this.tick()
        .catch((err: unknown) =>
          this.d.logger.error({ err: (err as Error).message }, 'forge reconcile pass failed'),
        )
        .finally(() => this.arm());
    });
  }

  state(taskId: number): PullStateRow | undefined {
    return this.d.store.db
      .prepare('SELECT * FROM forge_pull_state WHERE task_id = ?')
      .get(taskId) as PullStateRow | undefined;
  }

  /** One pass over every unarchived pull-request task. */
  tick(): Promise<ReconcileReport> {
    if (this.running) return this.running;
    this.running = this.pass().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async pass(): Promise<ReconcileReport> {
    const report: ReconcileReport = { checked: 0, changed: 0, failed: 0 };
    const rows = this.d.store.db
      .prepare(
        "SELECT id, project_id, forge_pull FROM tasks WHERE forge_pull IS NOT NULL AND state <> 'archived' ORDER BY id",
      )
      .all() as Array<{ id: number; project_id: number; forge_pull: string }>;
    const byProject = new Map<number, typeof rows>();
    for (const r of rows) byProject.set(r.project_id, [...(byProject.get(r.project_id) ?? []), r]);
    for (const [projectId, tasks] of byProject) {
      const project = this.d.projects.get(projectId);
      if (!project) continue;
      const resolved = await this.d.forge.resolve(project);
      for (const t of tasks) {
        report.checked++;
        const now = formatMs(this.d.clock.now());
        const number = (JSON.parse(t.forge_pull) as { number?: number }).number;
        if (!resolved.ok || typeof number !== 'number') {
          report.failed++;
          this.record(
            t.id,
            null,
            null,
            now,
            resolved.ok ? 'no pull number on the link' : resolved.reason,
          );
          continue;
        }
        const pull = await resolved.conn.pull(resolved.repo, number);
        if (!pull.ok) {
          report.failed++;
          this.record(t.id, null, null, now, `forge_${pull.reason}`);
          continue;
        }
        const before = this.state(t.id);
        const { state, head_sha } = pull.value;
        const changed = before?.state !== state || before?.head_sha !== head_sha;
        this.d.store.tx(() => {
          this.record(t.id, state, head_sha, now, null);
          if (changed) {
            report.changed++;
            this.d.events.append(
              'task.forge_updated',
              { project_id: projectId, task_id: t.id },
              {
                pull: number,
                state,
                head_sha,
                previous_state: before?.state ?? null,
                previous_head_sha: before?.head_sha ?? null,
              },
            );
          }
        });
      }
    }
    if (report.failed > 0)
      this.d.logger.warn({ ...report }, 'forge reconciler: some pull requests could not be read');
    return report;
  }

  private record(
    taskId: number,
    state: string | null,
    head: string | null,
    at: string,
    error: string | null,
  ): void {
    const before = this.state(taskId);
    this.d.store.db
      .prepare(
        `INSERT INTO forge_pull_state (task_id, state, head_sha, checked_at, error) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(task_id) DO UPDATE SET state = excluded.state, head_sha = excluded.head_sha,
           checked_at = excluded.checked_at, error = excluded.error`,
      )
      // A failed look keeps the last known state: the error says why it is not fresh.
      .run(taskId, state ?? before?.state ?? null, head ?? before?.head_sha ?? null, at, error);
  }

  /** Adds `forge_pull.live` to task views: the reconciler's last look, when it has one. */
  decorate(taskId: number, view: Record<string, unknown>): void {
    const link = view.forge_pull;
    if (!link || typeof link !== 'object') return;
    const s = this.state(taskId);
    if (!s) return;
    (link as Record<string, unknown>).live = {
      state: s.state,
      head_sha: s.head_sha,
      checked_at: s.checked_at,
      ...(s.error ? { error: s.error } : {}),
    };
  }
}
