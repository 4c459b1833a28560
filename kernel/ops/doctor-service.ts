/**
 * The daemon's doctor (SPEC §4.1 `GET /v1/doctor`, `POST /v1/doctor/fix`): the report over the
 * daemon's own connection and services, and the two repairs a machine may make on its own.
 *
 * Fix actions (decision 060): `remove_worktree` for each orphaned worktree (a dirty or unjudgeable
 * one only with `force`, a non-directory never), and `compact_database` (VACUUM, then a WAL
 * truncation), skipped while any task is in flight — running or awaiting_input, whose writes would
 * queue behind a rewrite of the whole file. Every skip carries its reason. Both run in the
 * maintenance queue, so neither overlaps a backup.
 */
import type { Clock } from '../clock/index.js';
import type { ConfigService } from '../config/index.js';
import type { Paths } from '../daemon/paths.js';
import type { DaemonState } from '../daemon/state.js';
import type { DiskGuard } from '../disk/index.js';
import type { Store } from '../store/index.js';
import { SLOT_STATES } from '../task-states.js';
import type { AgentFactsSource } from './agent-facts.js';
import type { BackupService } from './backup.js';
import { containerGroup } from './container-facts.js';
import { databaseFiles } from './database.js';
import { buildDoctorReport, type DoctorReport } from './doctor.js';
import { configuredAgentPaths } from './doctor-warnings.js';
import type { Reclaimer } from './orphans.js';
import type { OpsQueue } from './serial.js';

export interface FixAction {
  action: 'remove_worktree' | 'compact_database';
  target: string;
  status: 'done' | 'skipped' | 'failed';
  freed_bytes?: number;
  /** Why it was skipped, as a code: worktree_dirty, dirty_unknown, not_a_directory, tasks_in_flight. */
  reason?: string;
  detail: string;
}

export interface DoctorDeps {
  paths: Paths;
  clock: Clock;
  store: Store;
  config: ConfigService;
  daemon: DaemonState;
  /** Resolved per report, so a later registration (the agents service) takes over at once. */
  agentFacts: () => AgentFactsSource;
  reclaimer: Reclaimer;
  backups: BackupService;
  queue: OpsQueue;
  /** Disk-full mode shown in the report (decision 180); absent in tests that build no guard. */
  disk?: DiskGuard;
}

const SKIP_DETAIL: Record<string, string> = {
  worktree_dirty: 'the worktree has uncommitted changes; commit or stash them, or fix with force',
  dirty_unknown:
    'git cannot judge this directory (not a worktree, or its repository is gone); fix with force to delete it',
  not_a_directory: 'not a directory; left for a human to look at',
};

export class DoctorService {
  constructor(private readonly d: DoctorDeps) {}

  report(probe: boolean): Promise<DoctorReport> {
    const now = this.d.clock.now();
    const daemon = this.d.daemon;
    return buildDoctorReport({
      paths: this.d.paths,
      now,
      daemon: {
        status: 'running',
        pid: daemon.pid,
        port: daemon.port || null,
        started_at: new Date(daemon.startedAtMs).toISOString(),
        uptime_seconds: Math.floor((now - daemon.startedAtMs) / 1000),
        version: daemon.version,
      },
      db: this.d.store.db,
      agents: () => this.d.agentFacts().rows(probe ? 'fresh' : 'cached'),
      reclaimer: this.d.reclaimer,
      backup: () => this.d.backups.status(),
      container: () => containerGroup(this.d.config.current(), probe),
      agentPaths: () => configuredAgentPaths(this.d.config.current()),
      ...(this.d.disk ? { disk: () => (this.d.disk as DiskGuard).status() } : {}),
    });
  }

  async fix(force: boolean): Promise<{ actions: FixAction[]; report: DoctorReport }> {
    const actions: FixAction[] = [];
    const gc = await this.d.queue.run('gc', () =>
      this.d.reclaimer.gc({ force, kinds: ['worktree'] }),
    );
    for (const o of gc.orphans) {
      if (o.removed)
        actions.push({
          action: 'remove_worktree',
          target: o.path,
          status: 'done',
          freed_bytes: o.bytes,
          detail: 'removed; its branch was kept',
        });
      else if (o.skip_reason)
        actions.push({
          action: 'remove_worktree',
          target: o.path,
          status: 'skipped',
          reason: o.skip_reason,
          detail: SKIP_DETAIL[o.skip_reason] ?? o.skip_reason,
        });
      else
        actions.push({
          action: 'remove_worktree',
          target: o.path,
          status: 'failed',
          detail: o.error ?? 'not removed',
        });
    }
    actions.push(await this.d.queue.run('compact', async () => this.compact()));
    return { actions, report: await this.report(false) };
  }

  private compact(): FixAction {
    const target = this.d.paths.dbFile;
    const db = this.d.store.db;
    const inFlight = db
      .prepare(
        `SELECT COUNT(*) FROM tasks WHERE state IN (${SLOT_STATES.map(() => '?').join(', ')})`,
      )
      .pluck()
      .get(...SLOT_STATES) as number;
    if (inFlight > 0)
      return {
        action: 'compact_database',
        target,
        status: 'skipped',
        reason: 'tasks_in_flight',
        detail: `${inFlight} task${inFlight === 1 ? ' is' : 's are'} in flight (running or awaiting_input); compaction would stall their writes`,
      };
    const before = databaseFiles(target).total_bytes;
    try {
      db.exec('VACUUM');
      db.pragma('wal_checkpoint(TRUNCATE)');
    } catch (err) {
      return {
        action: 'compact_database',
        target,
        status: 'failed',
        detail: (err as Error).message,
      };
    }
    const after = databaseFiles(target).total_bytes;
    return {
      action: 'compact_database',
      target,
      status: 'done',
      freed_bytes: Math.max(0, before - after),
      detail: `${before} → ${after} bytes`,
    };
  }
}
