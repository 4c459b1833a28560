/**
 * Writing one backup archive (SPEC §4.1 backup rules 1–3, §2.9 backup result, decision 062).
 *
 * The archive is a `.tar.gz` holding `manifest.json`, `svc.db` (a consistent copy), `transcripts/`,
 * `workflows/` (the global workflow files of {config_dir}), `triggers/` (the trigger files, secrets
 * included, 0600 like the files themselves) and `config.yaml` — everything a restore needs to run
 * again (decision 195). The database copy is SQLite's
 * online backup on the daemon's own connection: it runs while tasks write, and because every write
 * goes through that same connection SQLite folds each change into the copy, so the copy is one
 * consistent state without stopping the API. The copy is made before the transcripts are read, so
 * every transcript a copied row names is in the archive (transcripts only grow; the pruner and gc
 * wait for the backup, see serial.ts).
 *
 * Everything is assembled under a private `.svc-backup-*` directory next to the destination and
 * linked into place at the end — a link, not a rename, because a link refuses to replace a file
 * that appeared meanwhile: a backup never overwrites anything.
 */
import {
  chmodSync,
  constants,
  copyFileSync,
  type Dirent,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, sep } from 'node:path';
import Database from 'better-sqlite3';
import { type Clock, formatNs } from '../clock/index.js';
import type { Paths } from '../daemon/paths.js';
import type { Db } from '../store/index.js';

export interface BackupResult {
  path: string;
  /** Size of the archive. */
  bytes: number;
  /** Size of the database copy inside it. */
  database_bytes: number;
  /** Bytes of transcript files inside it. */
  transcript_bytes: number;
  schema_version: number;
  /** Nanosecond RFC 3339: when the database copy began. */
  created_at: string;
}

/** What `svc restore` reads first; also tells a human what an archive is. */
export interface BackupManifest {
  format: 'svc-backup';
  format_version: 1;
  svc_version: string;
  schema_version: number;
  created_at: string;
  data_dir: string;
  config_dir: string;
  transcripts_dir: string;
  workflows_dir: string;
  /** Absent in archives written before triggers and the config file were kept (decision 195). */
  triggers_dir?: string;
  config_file?: string;
  /** The top-level entries the archive holds. */
  contents?: string[];
}

export const ARCHIVE_DB = 'svc.db';
export const ARCHIVE_MANIFEST = 'manifest.json';
export const ARCHIVE_TRANSCRIPTS = 'transcripts';
export const ARCHIVE_WORKFLOWS = 'workflows';
export const ARCHIVE_TRIGGERS = 'triggers';
export const ARCHIVE_CONFIG = 'config.yaml';
/** Prefix of the private directories a backup is assembled in. */
export const STAGE_PREFIX = '.svc-backup-';

export interface ArchiveSources {
  db: Db;
  paths: Pick<
    Paths,
    'dataDir' | 'configDir' | 'transcriptsDir' | 'workflowsDir' | 'triggersDir' | 'configFile'
  >;
  clock: Clock;
  version: string;
}

/** True when `child` is `parent` or lies below it (both absolute, already normalized). */
export function isInside(child: string, parent: string): boolean {
  return child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep);
}

/** Copies the database and turns the copy into a plain rollback-journal file; returns its schema version. */
async function copyDatabase(db: Db, dest: string): Promise<number> {
  await db.backup(dest);
  const copy = new Database(dest);
  try {
    // The copy inherits WAL mode from its source; a single self-contained file is what an archive
    // wants (the daemon turns WAL back on when it opens a restored file).
    copy.pragma('journal_mode = DELETE');
    return copy.pragma('user_version', { simple: true }) as number;
  } finally {
    copy.close();
  }
}

/**
 * Copies the regular files and directories of `from` to `to` (symlinks and anything else are
 * left out: svc writes none there), tolerating files that vanish meanwhile. Returns the bytes copied.
 */
function snapshotTree(from: string, to: string): number {
  let names: Dirent[];
  try {
    names = readdirSync(from, { withFileTypes: true });
  } catch (err) {
    // A tree that does not exist (yet) is simply not in the archive.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
  mkdirSync(to, { recursive: true, mode: 0o700 });
  let bytes = 0;
  for (const entry of names) {
    const src = join(from, entry.name);
    const dest = join(to, entry.name);
    if (entry.isDirectory()) bytes += snapshotTree(src, dest);
    else if (entry.isFile()) {
      try {
        copyFileSync(src, dest, constants.COPYFILE_FICLONE);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw err;
      }
      chmodSync(dest, 0o600);
      bytes += statSync(dest).size;
    }
  }
  return bytes;
}

/** Copies one file (owner-only) when it exists; a file that is not there is simply not archived. */
function copyIfPresent(from: string, to: string): void {
  try {
    copyFileSync(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  chmodSync(to, 0o600);
}

/**
 * Makes every file in the stage 0600 and every directory 0700, so the archive stores them
 * owner-only whatever made them (SQLite's copy of the database was 0644): a restore writes what the
 * archive says (issue 17 point 10, decision 184).
 */
function ownerOnly(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      chmodSync(path, 0o700);
      ownerOnly(path);
    } else if (entry.isFile()) chmodSync(path, 0o600);
  }
}

/**
 * Writes the archive to `target` (absolute, not existing, in an existing directory). The staging
 * directory is created beside `target` so the final link never crosses filesystems.
 */
export async function writeArchive(src: ArchiveSources, target: string): Promise<BackupResult> {
  const stage = mkdtempSync(join(dirname(target), STAGE_PREFIX));
  chmodSync(stage, 0o700);
  try {
    const createdAt = formatNs(src.clock.nowNs());
    const dbCopy = join(stage, ARCHIVE_DB);
    const schema = await copyDatabase(src.db, dbCopy);
    // The trees are copied into the stage before tar reads them: tar refuses a file that grows
    // between its stat and its read ("did not encounter expected EOF"), and a running step's
    // transcript grows all the time. A copy is a fixed snapshot (a reflink where the filesystem
    // has them, so usually no extra space).
    const transcriptBytes = snapshotTree(
      src.paths.transcriptsDir,
      join(stage, ARCHIVE_TRANSCRIPTS),
    );
    snapshotTree(src.paths.workflowsDir, join(stage, ARCHIVE_WORKFLOWS));
    snapshotTree(src.paths.triggersDir, join(stage, ARCHIVE_TRIGGERS));
    copyIfPresent(src.paths.configFile, join(stage, ARCHIVE_CONFIG));
    const held = [
      ARCHIVE_DB,
      ARCHIVE_TRANSCRIPTS,
      ARCHIVE_WORKFLOWS,
      ARCHIVE_TRIGGERS,
      ARCHIVE_CONFIG,
    ].filter((name) => existsSync(join(stage, name)));
    const manifest: BackupManifest = {
      format: 'svc-backup',
      format_version: 1,
      svc_version: src.version,
      schema_version: schema,
      created_at: createdAt,
      data_dir: src.paths.dataDir,
      config_dir: src.paths.configDir,
      transcripts_dir: src.paths.transcriptsDir,
      workflows_dir: src.paths.workflowsDir,
      triggers_dir: src.paths.triggersDir,
      config_file: src.paths.configFile,
      contents: [ARCHIVE_MANIFEST, ...held],
    };
    writeFileSync(join(stage, ARCHIVE_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, {
      mode: 0o600,
    });
    const entries = [ARCHIVE_MANIFEST, ...held];
    ownerOnly(stage);
    const archive = join(stage, 'archive.tar.gz');
    // Loaded on first backup, not at every daemon start (issue 11, cold start).
    const { create: tarCreate } = await import('tar');
    await tarCreate(
      { gzip: true, file: archive, cwd: stage, mode: 0o600, portable: true },
      entries,
    );
    chmodSync(archive, 0o600);
    linkSync(archive, target);
    return {
      path: target,
      bytes: statSync(target).size,
      database_bytes: statSync(dbCopy).size,
      transcript_bytes: transcriptBytes,
      schema_version: schema,
      created_at: createdAt,
    };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}
