/**
 * The operational sections of `GET /v1/info` (SPEC §2.9 "Other top-level fields", §4.1, decision
 * 066): `agents[]`, `slots`, `orphans`, `database`, `container` and `update`. Each is cheap enough
 * for every request: no process is spawned (agents come from the probe cache, availability from a
 * PATH lookup), orphans are one query and two directory listings, database bytes are three stats.
 */
import type { ConfigService } from '../config/index.js';
import type { Paths } from '../daemon/paths.js';
import type { DaemonState } from '../daemon/state.js';
import type { Store } from '../store/index.js';
import { SLOT_STATES } from '../task-states.js';
import type { AgentFactsSource } from './agent-facts.js';
import { containerInfo } from './container-facts.js';
import { databaseFiles } from './database.js';
import type { Reclaimer } from './orphans.js';
import type { UpdateService } from './update.js';

export interface InfoDeps {
  daemon: DaemonState;
  store: Store;
  paths: Paths;
  config: ConfigService;
  agentFacts: () => AgentFactsSource;
  reclaimer: Reclaimer;
  updates: UpdateService;
}

/** Chats holding a live process, once the chats table exists (chats land in another room). */
function chatsInUse(store: Store): number {
  const db = store.db;
  const cols = db.prepare("SELECT name FROM pragma_table_info('chats')").pluck().all() as string[];
  if (!cols.includes('state')) return 0;
  return db
    .prepare("SELECT COUNT(*) FROM chats WHERE state IN ('running', 'awaiting_input')")
    .pluck()
    .get() as number;
}

export function contributeOpsInfo(d: InfoDeps): void {
  d.daemon.contributeInfo('agents', () => d.agentFacts().rows('none'));
  d.daemon.contributeInfo('slots', () => {
    const c = d.config.current();
    const tasks = d.store.db
      .prepare(
        `SELECT COUNT(*) FROM tasks WHERE state IN (${SLOT_STATES.map(() => '?').join(', ')})`,
      )
      .pluck()
      .get(...SLOT_STATES) as number;
    return {
      tasks: { in_use: tasks, max: c.max_parallel_tasks },
      chats: { in_use: chatsInUse(d.store), max: c.max_parallel_chats },
    };
  });
  d.daemon.contributeInfo('orphans', () => {
    try {
      return d.reclaimer.count();
    } catch {
      return null;
    }
  });
  d.daemon.contributeInfo('database', () => databaseFiles(d.paths.dbFile));
  d.daemon.contributeInfo('container', () => containerInfo(d.config.current()));
  d.daemon.contributeInfo('update', () => {
    const u = d.updates.view();
    return {
      enabled: u.enabled,
      latest_version: u.latest_version,
      update_available: u.update_available,
    };
  });
}
