/**
 * Restoring a backup archive (SPEC §4.1 backup rule 4, decisions 062, 194, 195): client-side, with the daemon
 * down. `svc restore` takes the data directory's daemon lock for the whole operation, so a daemon
 * cannot be running and cannot start half-way through.
 *
 * The archive is unpacked into a private directory inside {data_dir} and checked (manifest, schema
 * no newer than this binary, SQLite's quick check) before anything in place is touched. Existing
 * data is never silently replaced: without `force` a non-empty database, transcripts, workflows or
 * triggers directory, or a config file the archive also holds, refuses the restore; with it they are
 * moved aside into `{data_dir}/pre-restore-<stamp>/`. Trigger files and config.yaml come back
 * owner-only, so an armed trigger, its cursor and its ledger meet again (decision 195).
 * Step runs name their transcript by absolute path, so paths under the archive's old transcripts
 * directory are rewritten to this data directory (a restore into a fresh directory keeps every
 * transcript readable). Worktrees are not in an archive. A restore is a copy, never a link to
 * the original (decision 194): worktree paths under the archive's data directory are rewritten to
 * this one, so a live task is cut again here from its branch (or blocks `worktree_missing` while
 * the original still has that branch checked out) and never runs in the other installation's
 * directories; the pids of step runs left open are cleared, since those processes are the other
 * installation's and crash recovery must never stop them. Missing worktrees are counted.
 */
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { acquireDaemonLock } from '../daemon/lock.js';
import { ensurePrivateDir, type Paths } from '../daemon/paths.js';
import { NEWEST_MIGRATION, openDatabase } from '../store/index.js';
import {
  ARCHIVE_CONFIG,
  ARCHIVE_DB,
  ARCHIVE_MANIFEST,
  ARCHIVE_TRANSCRIPTS,
  ARCHIVE_TRIGGERS,
  ARCHIVE_WORKFLOWS,
  type BackupManifest,
} from './archive.js';

export interface RestoreOptions {
  /** Move existing data aside instead of refusing. */
  force?: boolean;
  /** The moment used in the name of the moved-aside folder (tests pass a fixed one). */
  now?: number;
}

export interface RestoreResult {
  archive: string;
  created_at: string;
  svc_version: string;
  schema_version: number;
  tasks: number;
  step_runs: number;
  transcript_files: number;
  workflow_files: number;
  /** Trigger files put back (decision 195; 0 for an archive written before they were kept). */
  trigger_files: number;
  /** Whether the archive's config.yaml was put back. */
  config_file: boolean;
  /** Step runs whose transcript path was moved to this data directory. */
  rewritten_paths: number;
  /** Task and chat rows whose worktree path was moved to this data directory (decision 194). */
  rewritten_worktrees: number;
  /** Rows whose worktree directory does not exist here. */
  missing_worktrees: number;
  /** Where existing data was moved (force), or null. */
  displaced: string | null;
}

export class RestoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RestoreError';
  }
}

function nonEmptyDir(p: string): boolean {
  try {
    return statSync(p).isDirectory() && readdirSync(p).length > 0;
  } catch {
    return false;
  }
}

function countFiles(dir: string): number {
  let n = 0;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    const p = join(dir, name);
    const st = lstatSync(p);
    if (st.isDirectory()) n += countFiles(p);
    else if (st.isFile()) n++;
  }
  return n;
}

/** Renames, or copies then deletes when the two paths are on different filesystems. */
function move(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    cpSync(from, to, { recursive: true, preserveTimestamps: true });
    rmSync(from, { recursive: true, force: true });
  }
}

/** Owner-only modes throughout a restored tree: directories 0700, files 0600. */
function tighten(p: string): void {
  if (process.platform === 'win32' || !existsSync(p)) return;
  const st = lstatSync(p);
  if (st.isSymbolicLink()) return;
  if (st.isDirectory()) {
    chmodSync(p, 0o700);
    for (const name of readdirSync(p)) tighten(join(p, name));
  } else chmodSync(p, 0o600);
}

function readManifest(stage: string): BackupManifest {
  const file = join(stage, ARCHIVE_MANIFEST);
  if (!existsSync(file) || !existsSync(join(stage, ARCHIVE_DB)))
    throw new RestoreError('this is not an svc backup archive (no manifest.json or svc.db inside)');
  let m: Partial<BackupManifest>;
  try {
    m = JSON.parse(readFileSync(file, 'utf8')) as Partial<BackupManifest>;
  } catch {
    throw new RestoreError('the archive manifest is not valid JSON');
  }
  if (m.format !== 'svc-backup' || m.format_version !== 1)
    throw new RestoreError(
      `unknown archive format ${JSON.stringify(m.format)} version ${JSON.stringify(m.format_version)}`,
    );
  return m as BackupManifest;
}

function checkCopy(file: string): number {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > NEWEST_MIGRATION.version)
      throw new RestoreError(
        `the archive's database has schema version ${version}, newer than this svc supports (${NEWEST_MIGRATION.version}); restore it with the newer svc`,
      );
    const check = db.pragma('quick_check', { simple: true });
    if (check !== 'ok')
      throw new RestoreError(`the archive's database is damaged: ${String(check)}`);
    return version;
  } finally {
    db.close();
  }
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * Moves every value of `column` (in every table that has it) lying under `from` to the same place
 * under `to`. Returns how many rows changed.
 */
function rewritePrefix(
  db: ReturnType<typeof openDatabase>,
  column: string,
  from: string,
  to: string,
): number {
  const oldPrefix = `${from}/`;
  const newPrefix = `${to}/`;
  if (oldPrefix === newPrefix) return 0;
  const tables = (
    db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
      .pluck()
      .all() as string[]
  ).filter((t) =>
    (db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(t) as string[]).includes(
      column,
    ),
  );
  let n = 0;
  db.transaction(() => {
    for (const t of tables) {
      const c = quote(column);
      n += db
        .prepare(`UPDATE ${quote(t)} SET ${c} = ? || substr(${c}, ?) WHERE substr(${c}, 1, ?) = ?`)
        .run(newPrefix, oldPrefix.length + 1, oldPrefix.length, oldPrefix).changes;
    }
  })();
  return n;
}

export async function restoreBackup(
  archive: string,
  paths: Paths,
  opts: RestoreOptions = {},
): Promise<RestoreResult> {
  let isFile = false;
  try {
    isFile = statSync(archive).isFile();
  } catch {}
  if (!isFile) throw new RestoreError(`${archive} is not a file`);
  ensurePrivateDir(paths.dataDir);
  // Throws DaemonLockedError while a daemon runs on this data directory.
  const lock = acquireDaemonLock(paths.lockFile, paths.dataDir, paths.daemonJson);
  const stage = mkdtempSync(join(paths.dataDir, '.svc-restore-'));
  try {
    // Loaded on first use, not at every daemon start (issue 11, cold start).
    const { extract: tarExtract } = await import('tar');
    await tarExtract({ file: archive, cwd: stage, strict: true, preserveOwner: false });
    const manifest = readManifest(stage);
    const schema = checkCopy(join(stage, ARCHIVE_DB));

    const existing: Array<[string, string]> = [];
    if (existsSync(paths.dbFile) && statSync(paths.dbFile).size > 0)
      existing.push([paths.dbFile, 'svc.db']);
    if (nonEmptyDir(paths.transcriptsDir)) existing.push([paths.transcriptsDir, 'transcripts']);
    if (nonEmptyDir(paths.workflowsDir)) existing.push([paths.workflowsDir, 'workflows']);
    // Trigger files and the config file are replaced only when the archive holds them.
    const hasTriggers = existsSync(join(stage, ARCHIVE_TRIGGERS));
    const hasConfig = existsSync(join(stage, ARCHIVE_CONFIG));
    if (hasTriggers && nonEmptyDir(paths.triggersDir))
      existing.push([paths.triggersDir, 'triggers']);
    if (hasConfig && existsSync(paths.configFile)) existing.push([paths.configFile, 'config.yaml']);
    let displaced: string | null = null;
    if (existing.length > 0) {
      if (!opts.force)
        throw new RestoreError(
          `refusing to replace existing data (${existing.map(([p]) => p).join(', ')}); restore into an empty data directory, or pass --force to move it aside`,
        );
      const stamp = new Date(opts.now ?? Date.now())
        .toISOString()
        .slice(0, 19)
        .replaceAll('-', '')
        .replaceAll(':', '');
      displaced = join(paths.dataDir, `pre-restore-${stamp}Z`);
      ensurePrivateDir(displaced);
      for (const [from, name] of existing) move(from, join(displaced, name));
    }
    // Sidecars of a previous database must not be replayed over the restored file.
    for (const side of ['-wal', '-shm', '-journal']) {
      const p = `${paths.dbFile}${side}`;
      if (existsSync(p)) {
        if (displaced) move(p, join(displaced, `svc.db${side}`));
        else rmSync(p, { force: true });
      }
    }

    move(join(stage, ARCHIVE_DB), paths.dbFile);
    tighten(paths.dbFile);
    if (existsSync(join(stage, ARCHIVE_TRANSCRIPTS))) {
      rmSync(paths.transcriptsDir, { recursive: true, force: true });
      move(join(stage, ARCHIVE_TRANSCRIPTS), paths.transcriptsDir);
      tighten(paths.transcriptsDir);
    }
    if (existsSync(join(stage, ARCHIVE_WORKFLOWS))) {
      ensurePrivateDir(paths.configDir);
      rmSync(paths.workflowsDir, { recursive: true, force: true });
      move(join(stage, ARCHIVE_WORKFLOWS), paths.workflowsDir);
    }
    if (hasTriggers) {
      ensurePrivateDir(paths.configDir);
      rmSync(paths.triggersDir, { recursive: true, force: true });
      move(join(stage, ARCHIVE_TRIGGERS), paths.triggersDir);
      tighten(paths.triggersDir);
    }
    if (hasConfig) {
      ensurePrivateDir(paths.configDir);
      move(join(stage, ARCHIVE_CONFIG), paths.configFile);
      tighten(paths.configFile);
    }

    const db = openDatabase(paths.dbFile);
    try {
      const rewritten = rewritePrefix(
        db,
        'transcript_path',
        manifest.transcripts_dir,
        paths.transcriptsDir,
      );
      const rewrittenWorktrees = rewritePrefix(
        db,
        'worktree_path',
        join(manifest.data_dir, 'worktrees'),
        paths.worktreesDir,
      );
      // Processes of runs left open belong to the installation the backup was taken from.
      db.prepare(
        "UPDATE step_runs SET pid = NULL, proc_started_at = NULL WHERE state = 'running'",
      ).run();
      const worktrees = db
        .prepare('SELECT worktree_path FROM tasks WHERE worktree_path IS NOT NULL')
        .pluck()
        .all() as string[];
      const result: RestoreResult = {
        archive,
        created_at: manifest.created_at,
        svc_version: manifest.svc_version,
        schema_version: schema,
        tasks: db.prepare('SELECT COUNT(*) FROM tasks').pluck().get() as number,
        step_runs: db.prepare('SELECT COUNT(*) FROM step_runs').pluck().get() as number,
        transcript_files: countFiles(paths.transcriptsDir),
        workflow_files: countFiles(paths.workflowsDir),
        trigger_files: hasTriggers ? countFiles(paths.triggersDir) : 0,
        config_file: hasConfig,
        rewritten_paths: rewritten,
        rewritten_worktrees: rewrittenWorktrees,
        missing_worktrees: worktrees.filter((p) => !existsSync(p)).length,
        displaced,
      };
      return result;
    } finally {
      db.pragma('wal_checkpoint(TRUNCATE)');
      db.close();
    }
  } finally {
    rmSync(stage, { recursive: true, force: true });
    lock.release();
  }
}
