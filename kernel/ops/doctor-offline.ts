/**
 * `svc doctor` while the daemon does not answer (SPEC §2.9, decision 060): the same report, built
 * from the files — config.yaml parsed as the daemon would, daemon.json and the process table for
 * the daemon group, the database opened read-only (never migrated, so a too-new schema can be
 * reported instead of refused), the directories, the backup state file, and the agent CLIs probed
 * directly. The daemon group then always carries a `daemon_unresponsive` problem: either its
 * process lives and does not answer, or there is no daemon.
 */
import { existsSync, readFileSync } from 'node:fs';
import { SystemClock } from '../clock/index.js';
import { type Config, defaultConfig, readConfigFile } from '../config/index.js';
import type { Paths } from '../daemon/paths.js';
import { loadPlugins, pluginCacheDir, Registry } from '../plugin/index.js';
import { ProbingAgentFacts } from './agent-facts.js';
import { backupStatus, readBackupState } from './backup.js';
import { containerGroup } from './container-facts.js';
import { openForInspection } from './database.js';
import { buildDoctorReport, type DaemonGroup, type DoctorReport } from './doctor.js';
import { configuredAgentPaths } from './doctor-warnings.js';
import { Reclaimer } from './orphans.js';

export interface OfflineDoctorOptions {
  /** Probe agent CLIs and the container runtime (the default, as `GET /v1/doctor` does). */
  probe?: boolean;
  /** Why the client could not reach the daemon, for the daemon group's detail. */
  unreachable?: string;
  /** Overrides the built-in plugin folder (tests). */
  builtinPluginRoot?: string;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function daemonFromFiles(paths: Paths, detail: string | undefined, now: number): DaemonGroup {
  let info: { pid?: unknown; port?: unknown; started_at?: unknown; version?: unknown } | null =
    null;
  try {
    if (existsSync(paths.daemonJson)) info = JSON.parse(readFileSync(paths.daemonJson, 'utf8'));
  } catch {}
  const pid = typeof info?.pid === 'number' ? info.pid : null;
  const startedAt = typeof info?.started_at === 'string' ? info.started_at : null;
  const alive = pid !== null && pid !== process.pid && processAlive(pid);
  const started = startedAt ? Date.parse(startedAt) : Number.NaN;
  return {
    status: alive ? 'unresponsive' : 'stopped',
    pid: alive ? pid : null,
    port: alive && typeof info?.port === 'number' ? info.port : null,
    started_at: alive ? startedAt : null,
    uptime_seconds: alive && !Number.isNaN(started) ? Math.floor((now - started) / 1000) : null,
    version: alive && typeof info?.version === 'string' ? info.version : null,
    ...(alive
      ? { detail: detail ?? 'it did not answer GET /v1/health' }
      : pid !== null
        ? { detail: `daemon.json names pid ${pid}, which is not running` }
        : {}),
  };
}

async function registryFor(config: Config, paths: Paths, builtinRoot?: string): Promise<Registry> {
  const registry = new Registry();
  try {
    await loadPlugins({
      registry,
      extra: config.plugins,
      configDir: paths.configDir,
      builtinRoot,
      cacheDir: pluginCacheDir(paths.dataDir),
    });
    return registry;
  } catch {
    // A broken user plugin must not stop a diagnosis: fall back to the built-in adapters.
    const builtin = new Registry();
    try {
      await loadPlugins({ registry: builtin, extra: [], configDir: paths.configDir, builtinRoot });
    } catch {}
    return builtin;
  }
}

export async function offlineDoctor(
  paths: Paths,
  opts: OfflineDoctorOptions = {},
): Promise<DoctorReport> {
  const clock = new SystemClock();
  const now = clock.now();
  const load = readConfigFile(paths.configFile);
  const config = load.ok ? load.config : defaultConfig();
  const probe = opts.probe !== false;
  const opened = openForInspection(paths.dbFile);
  try {
    const registry = await registryFor(config, paths, opts.builtinPluginRoot);
    const agents = new ProbingAgentFacts(registry, () => config);
    const db = opened.db;
    return await buildDoctorReport({
      paths,
      now,
      daemon: daemonFromFiles(paths, opts.unreachable, now),
      db,
      dbError: opened.error,
      agents: () => agents.rows(probe ? 'fresh' : 'none'),
      reclaimer: db ? new Reclaimer(() => db, paths) : null,
      backup: () => backupStatus(config, paths, now, readBackupState(paths.dataDir), false),
      container: () => containerGroup(config, probe),
      agentPaths: () => configuredAgentPaths(config),
    });
  } finally {
    opened.db?.close();
  }
}
