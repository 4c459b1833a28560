/**
 * The doctor report (SPEC §2.9 doctor table, decisions 060–062). One builder serves both the
 * daemon's `GET /v1/doctor` (its own connection, its own services) and `svc doctor` while the
 * daemon is down (files read directly, see doctor-offline.ts); only the sources differ.
 *
 * `problems[]` is the daemon's verdict and its set is closed (decision 060): a config file that does
 * not parse, an unresponsive daemon, a failed integrity check, a schema newer than this binary,
 * orphaned worktrees, a task left unreconciled, a failed scheduled backup not yet followed by a
 * success, and a task whose worktree lies outside the data directory (decision 194). Nothing else is ever a problem: not a missing or logged-out agent CLI, not blocked tasks,
 * not an overdue backup, not loose permissions (`config_permissions[]` is a warning list).
 */
import { closeSync, existsSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { formatMs } from '../clock/index.js';
import { readConfigFile } from '../config/index.js';
import { looseModes } from '../daemon/modes.js';
import type { Paths } from '../daemon/paths.js';
import type { DiskStatus } from '../disk/index.js';
import { isWithin } from '../input/index.js';
import type { Db } from '../store/index.js';
import { TASK_STATES, type TaskState } from '../task-states.js';
import type { AgentFacts } from './agent-facts.js';
import type { BackupStatus } from './backup.js';
import type { ContainerGroup } from './container-facts.js';
import { type DatabaseReport, inspectDatabase, unknownDatabase } from './database.js';
import { agentWarnings, type DoctorWarning } from './doctor-warnings.js';
import type { Reclaimer, SkipReason } from './orphans.js';
import { diskUsage, modeText, treeBytes } from './sizes.js';

export const PROBLEM_CODES = [
  'config_unparseable',
  'daemon_unresponsive',
  'integrity_check_failed',
  'schema_too_new',
  'orphaned_worktrees',
  'unreconciled_task',
  'scheduled_backup_failed',
  // Decision 194: a task row naming a worktree outside this data directory (a copied database).
  'foreign_worktree',
] as const;
export type ProblemCode = (typeof PROBLEM_CODES)[number];

export interface Problem {
  code: ProblemCode;
  /** The report group holding the evidence. */
  group: 'paths' | 'daemon' | 'database' | 'storage' | 'tasks' | 'backup';
  message: string;
}

export interface PermissionWarning {
  path: string;
  mode: string;
  expected_mode: string;
  remediation: string;
}

export interface PathsGroup {
  config_dir: string;
  data_dir: string;
  config_file: string;
  config_file_exists: boolean;
  config_parses: boolean;
  config_error?: string;
  config_permissions: PermissionWarning[];
}

export interface DaemonGroup {
  /** `running` (it answered), `unresponsive` (its process lives but does not answer), `stopped`. */
  status: 'running' | 'unresponsive' | 'stopped';
  pid: number | null;
  port: number | null;
  started_at: string | null;
  uptime_seconds: number | null;
  version: string | null;
  detail?: string;
}

export interface LogGroup {
  path: string;
  exists: boolean;
  size_bytes: number;
  mod_time: string | null;
  tail: string[];
}

export interface DoctorOrphan {
  name: string;
  path: string;
  kind: 'worktree' | 'transcript';
  task_id: number | null;
  size_bytes: number;
  skip?: SkipReason;
}

export interface StorageGroup {
  worktrees_dir: string;
  disk_free_bytes: number | null;
  disk_total_bytes: number | null;
  disk_error?: string;
  worktree_count: number;
  worktree_bytes: number;
  orphans_known: boolean;
  orphans: DoctorOrphan[];
  scan_error?: string;
  /**
   * The daemon's disk-full mode (decision 180): while `full`, admission holds and refused writes
   * answer 507. null when the report is built without a daemon (svc doctor offline).
   */
  disk_full_mode: DiskStatus | null;
}

export interface Unreconciled {
  task_id: number;
  state: TaskState;
  open_step_runs: number;
}

/** A task (not archived) whose worktree path lies outside this data directory (decision 194). */
export interface ForeignWorktree {
  task_id: number;
  state: TaskState;
  worktree_path: string;
}

export interface TasksGroup {
  known: boolean;
  total: number;
  counts: Record<string, number>;
  unreconciled: Unreconciled[];
  foreign_worktrees: ForeignWorktree[];
  error?: string;
}

export interface DoctorReport {
  generated_at: string;
  paths: PathsGroup;
  daemon: DaemonGroup;
  log: LogGroup;
  database: DatabaseReport;
  agents: AgentFacts[];
  storage: StorageGroup;
  tasks: TasksGroup;
  backup: BackupStatus;
  container: ContainerGroup;
  problems: Problem[];
  /** What a user should know that is not a problem (decision 201); never changes the exit status. */
  warnings: DoctorWarning[];
}

/** States where a step run marked running is wrong (SPEC §2.9). Waiting states are excluded. */
export const UNRECONCILED_STATES: readonly TaskState[] = ['queued', 'done', 'aborted', 'archived'];
export const LOG_TAIL_LINES = 20;
const LOG_TAIL_BYTES = 64 * 1024;

export interface DoctorSources {
  paths: Paths;
  now: number;
  daemon: DaemonGroup;
  /** The database connection (the daemon's own, or a read-only one), or why there is none. */
  db: Db | null;
  dbError?: string;
  agents: () => Promise<AgentFacts[]>;
  /** null when no reclaimer is wired (then `orphans_known` is false). */
  reclaimer: Reclaimer | null;
  backup: () => BackupStatus;
  container: () => Promise<ContainerGroup>;
  /** `agents.<name>.path` as configured, for the warnings about paths that cannot run. */
  agentPaths?: () => Record<string, string>;
  /** The data disk's guard, when a daemon runs (decision 180). */
  disk?: () => DiskStatus;
}

function permissionWarnings(paths: Paths): PermissionWarning[] {
  if (process.platform === 'win32') return [];
  const wanted: Array<[string, number]> = [
    [paths.configDir, 0o700],
    [paths.configFile, 0o600],
    [paths.dataDir, 0o700],
    [paths.tokenFile, 0o600],
  ];
  const out: PermissionWarning[] = [];
  for (const [path, expected] of wanted) {
    let mode: number;
    try {
      mode = statSync(path).mode & 0o777;
    } catch {
      continue;
    }
    // Only bits beyond the expected ones matter: a 0400 token is stricter, not wrong.
    if ((mode & ~expected) === 0) continue;
    out.push({
      path,
      mode: modeText(mode),
      expected_mode: modeText(expected),
      remediation: `chmod ${expected.toString(8)} ${path}`,
    });
  }
  // Anything else under either directory (decision 184): transcripts, backups, workflows, …
  const named = new Set(wanted.map(([p]) => p));
  for (const e of looseModes(paths, PERMISSION_WARNINGS_MAX)) {
    if (named.has(e.path)) continue;
    const expected = e.mode & ~e.loose;
    out.push({
      path: e.path,
      mode: modeText(e.mode),
      expected_mode: modeText(expected),
      remediation: `chmod ${expected.toString(8)} ${e.path}`,
    });
  }
  return out;
}

/**
 * `<file> does not parse: …` when YAML refused it, `<file> is not valid: …` when a value did:
 * the error already says which, and saying it twice read `does not parse: config.yaml does not
 * parse: …` (issue 19 point 14).
 */
export function configFileText(file: string, error: string | undefined): string {
  const why = error ?? 'invalid';
  const yaml = 'config.yaml does not parse: ';
  if (why.startsWith(yaml)) return `${file} does not parse: ${why.slice(yaml.length)}`;
  return `${file} is not valid: ${why}`;
}

/** The longest `config_permissions[]` list (the daemon tightens everything at its next start). */
const PERMISSION_WARNINGS_MAX = 100;

function pathsGroup(paths: Paths): PathsGroup {
  const exists = existsSync(paths.configFile);
  const load = readConfigFile(paths.configFile);
  const group: PathsGroup = {
    config_dir: paths.configDir,
    data_dir: paths.dataDir,
    config_file: paths.configFile,
    config_file_exists: exists,
    config_parses: load.ok,
    config_permissions: permissionWarnings(paths),
  };
  if (!load.ok)
    // Each finding's message already names its key (`max_parallel_tasks: must be at least 1`).
    group.config_error = load.findings
      .map((f) => (f.path && !f.message.includes(f.path) ? `${f.path}: ${f.message}` : f.message))
      .join('; ');
  return group;
}

export function logGroup(file: string): LogGroup {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return { path: file, exists: false, size_bytes: 0, mod_time: null, tail: [] };
  }
  try {
    const st = fstatSync(fd);
    const len = Math.min(st.size, LOG_TAIL_BYTES);
    const buf = Buffer.alloc(len);
    const n = readSync(fd, buf, 0, len, st.size - len);
    let lines = buf.subarray(0, n).toString('utf8').split('\n');
    if (st.size > len) lines = lines.slice(1); // the first line is cut
    lines = lines.filter((l) => l !== '');
    return {
      path: file,
      exists: true,
      size_bytes: st.size,
      mod_time: formatMs(st.mtimeMs),
      tail: lines.slice(-LOG_TAIL_LINES),
    };
  } finally {
    closeSync(fd);
  }
}

export function tasksGroup(db: Db, worktreesDir: string): TasksGroup {
  const counts: Record<string, number> = Object.fromEntries(TASK_STATES.map((s) => [s, 0]));
  try {
    for (const r of db
      .prepare('SELECT state, COUNT(*) AS n FROM tasks GROUP BY state')
      .all() as Array<{
      state: string;
      n: number;
    }>)
      counts[r.state] = r.n;
    const unreconciled = db
      .prepare(
        `SELECT t.id AS task_id, t.state AS state, COUNT(r.id) AS open_step_runs
           FROM tasks t JOIN step_runs r ON r.task_id = t.id AND r.state = 'running'
          WHERE t.state IN (${UNRECONCILED_STATES.map(() => '?').join(', ')})
          GROUP BY t.id ORDER BY t.id`,
      )
      .all(...UNRECONCILED_STATES) as Unreconciled[];
    // The SQL narrows by spelling; real paths then keep a data directory reached through a link.
    const foreign_worktrees = (
      db
        .prepare(
          `SELECT id AS task_id, state, worktree_path FROM tasks
          WHERE worktree_path IS NOT NULL AND state <> 'archived'
            AND substr(worktree_path, 1, ?) <> ? ORDER BY id`,
        )
        .all(worktreesDir.length + 1, `${worktreesDir}/`) as ForeignWorktree[]
    ).filter((f) => !isWithin(f.worktree_path, worktreesDir));
    return {
      known: true,
      total: Object.values(counts).reduce((a, b) => a + b, 0),
      counts,
      unreconciled,
      foreign_worktrees,
    };
  } catch (err) {
    return {
      known: false,
      total: 0,
      counts,
      unreconciled: [],
      foreign_worktrees: [],
      error: (err as Error).message,
    };
  }
}

async function storageGroup(
  paths: Paths,
  reclaimer: Reclaimer | null,
  guard: (() => DiskStatus) | undefined,
): Promise<StorageGroup> {
  const disk = diskUsage(existsSync(paths.worktreesDir) ? paths.worktreesDir : paths.dataDir);
  let names: string[] = [];
  try {
    names = await readdir(paths.worktreesDir);
  } catch {}
  const group: StorageGroup = {
    worktrees_dir: paths.worktreesDir,
    disk_free_bytes: disk.free_bytes,
    disk_total_bytes: disk.total_bytes,
    worktree_count: names.length,
    worktree_bytes: await treeBytes(paths.worktreesDir),
    orphans_known: reclaimer !== null,
    orphans: [],
    disk_full_mode: guard ? guard() : null,
  };
  if (disk.error) group.disk_error = disk.error;
  if (reclaimer) {
    try {
      group.orphans = (await reclaimer.scan()).map((o) => ({
        name: o.path.slice(o.path.lastIndexOf('/') + 1),
        path: o.path,
        kind: o.kind,
        task_id: o.task_id,
        size_bytes: o.bytes,
        ...(o.skip_reason ? { skip: o.skip_reason } : {}),
      }));
    } catch (err) {
      group.orphans_known = false;
      group.scan_error = (err as Error).message;
    }
  }
  return group;
}

export function problemsOf(
  r: Omit<DoctorReport, 'problems' | 'warnings' | 'generated_at'>,
): Problem[] {
  const out: Problem[] = [];
  if (!r.paths.config_parses)
    out.push({
      code: 'config_unparseable',
      group: 'paths',
      message: configFileText(r.paths.config_file, r.paths.config_error),
    });
  if (r.daemon.status !== 'running')
    out.push({
      code: 'daemon_unresponsive',
      group: 'daemon',
      message:
        r.daemon.status === 'unresponsive'
          ? `the daemon (pid ${r.daemon.pid}) is alive but does not answer${r.daemon.detail ? `: ${r.daemon.detail}` : ''}`
          : `the daemon is not running${r.daemon.detail ? ` (${r.daemon.detail})` : ''}`,
    });
  const integrity = r.database.integrity_check;
  if (integrity !== 'ok' && integrity !== 'not_checked')
    out.push({
      code: 'integrity_check_failed',
      group: 'database',
      message: `the database ${r.database.path} failed its integrity check: ${integrity}`,
    });
  if (r.database.schema_version !== null && r.database.schema_version > r.database.newest_migration)
    out.push({
      code: 'schema_too_new',
      group: 'database',
      message: `the database has schema version ${r.database.schema_version}, newer than this svc supports (${r.database.newest_migration}); run the newer svc or restore a backup taken by this version`,
    });
  const orphaned = r.storage.orphans.filter((o) => o.kind === 'worktree');
  if (orphaned.length > 0)
    out.push({
      code: 'orphaned_worktrees',
      group: 'storage',
      message: `${orphaned.length} worktree${orphaned.length === 1 ? '' : 's'} under ${r.storage.worktrees_dir} belong${orphaned.length === 1 ? 's' : ''} to no task: ${orphaned.map((o) => o.name).join(', ')} (svc doctor --fix or svc gc)`,
    });
  for (const u of r.tasks.unreconciled)
    out.push({
      code: 'unreconciled_task',
      group: 'tasks',
      message: `task ${u.task_id} is ${u.state} but holds ${u.open_step_runs} step run${u.open_step_runs === 1 ? '' : 's'} marked running`,
    });
  for (const f of r.tasks.foreign_worktrees)
    out.push({
      code: 'foreign_worktree',
      group: 'tasks',
      message: `task ${f.task_id} (${f.state}) names the worktree ${f.worktree_path}, outside ${r.storage.worktrees_dir}: another installation's directory (a database copied from elsewhere?); svc never works there, and cuts the task's own worktree from its branch when it next runs`,
    });
  if (r.backup.failing)
    out.push({
      code: 'scheduled_backup_failed',
      group: 'backup',
      message: `the scheduled backup failed at ${r.backup.last_error_at} and has not succeeded since: ${r.backup.last_error}`,
    });
  return out;
}

export async function buildDoctorReport(s: DoctorSources): Promise<DoctorReport> {
  const database = s.db
    ? inspectDatabase(s.db, s.paths.dbFile)
    : existsSync(s.paths.dbFile)
      ? unknownDatabase(s.paths.dbFile, s.dbError ?? 'the database could not be opened')
      : {
          ...unknownDatabase(s.paths.dbFile, s.dbError ?? 'no database yet'),
          integrity_check: 'not_checked',
        };
  const tasks: TasksGroup = s.db
    ? tasksGroup(s.db, s.paths.worktreesDir)
    : {
        known: false,
        total: 0,
        counts: Object.fromEntries(TASK_STATES.map((st) => [st, 0])),
        unreconciled: [],
        foreign_worktrees: [],
      };
  const [agents, storage, container] = await Promise.all([
    s.agents(),
    storageGroup(s.paths, s.db ? s.reclaimer : null, s.disk),
    s.container(),
  ]);
  const body = {
    paths: pathsGroup(s.paths),
    daemon: s.daemon,
    log: logGroup(s.paths.logFile),
    database,
    agents,
    storage,
    tasks,
    backup: s.backup(),
    container,
  };
  return {
    generated_at: formatMs(s.now),
    ...body,
    problems: problemsOf(body),
    warnings: agentWarnings(agents, s.agentPaths?.() ?? {}),
  };
}
