/**
 * What the doctor (SPEC §2.9 `database`) and `/v1/info.database` say about the SQLite file: sizes
 * of the file and its sidecars, the schema version against this binary's newest migration, an
 * integrity check, row counts of every table the schema itself lists, the oldest event and the
 * bytes held by workflow snapshots. Works on the daemon's own connection or on one opened read-only
 * while the daemon is down; every query failure is data, never a throw.
 */
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { type Db, NEWEST_MIGRATION, schemaVersion } from '../store/index.js';
import { fileBytes } from './sizes.js';

export interface DatabaseFiles {
  path: string;
  size_bytes: number;
  wal_bytes: number;
  shm_bytes: number;
  /** File plus sidecars; a missing sidecar counts zero. */
  total_bytes: number;
}

export interface DatabaseReport extends DatabaseFiles {
  /** false only offline, when the file could not be opened or read at all. */
  known: boolean;
  schema_version: number | null;
  newest_migration: number;
  /** `ok`, or what SQLite found (several findings joined by `; `), or `failed: <error>`. */
  integrity_check: string;
  table_rows: Record<string, number>;
  oldest_event_at: string | null;
  workflow_snapshot_bytes: number;
  error?: string;
}

/** Most findings `PRAGMA integrity_check` may list; a broken file can produce thousands. */
const INTEGRITY_FINDINGS = 20;

export function databaseFiles(dbFile: string): DatabaseFiles {
  const size = fileBytes(dbFile);
  const wal = fileBytes(`${dbFile}-wal`);
  const shm = fileBytes(`${dbFile}-shm`);
  return {
    path: dbFile,
    size_bytes: size,
    wal_bytes: wal,
    shm_bytes: shm,
    total_bytes: size + wal + shm,
  };
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export function integrityCheck(db: Db): string {
  try {
    const rows = db.pragma(`integrity_check(${INTEGRITY_FINDINGS})`) as Array<
      Record<string, unknown>
    >;
    const findings = rows.map((r) => String(Object.values(r)[0] ?? ''));
    return findings.length === 1 && findings[0] === 'ok' ? 'ok' : findings.join('; ');
  } catch (err) {
    return `failed: ${(err as Error).message}`;
  }
}

/** Every table the schema lists (sqlite_master), so a new migration's table shows without code here. */
export function tableRows(db: Db): Record<string, number> {
  const names = db
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
    )
    .pluck()
    .all() as string[];
  const out: Record<string, number> = {};
  for (const name of names) {
    out[name] = db
      .prepare(`SELECT COUNT(*) FROM ${quoteIdent(name)}`)
      .pluck()
      .get() as number;
  }
  return out;
}

function hasTable(db: Db, name: string): boolean {
  return (
    db
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?")
      .pluck()
      .get(name) === 1
  );
}

/** The full `database` group. `known` stays true when the file opened, even if queries then fail. */
export function inspectDatabase(db: Db, dbFile: string): DatabaseReport {
  const report: DatabaseReport = {
    ...databaseFiles(dbFile),
    known: true,
    schema_version: null,
    newest_migration: NEWEST_MIGRATION.version,
    integrity_check: 'ok',
    table_rows: {},
    oldest_event_at: null,
    workflow_snapshot_bytes: 0,
  };
  const errors: string[] = [];
  try {
    report.schema_version = schemaVersion(db);
  } catch (err) {
    errors.push((err as Error).message);
  }
  report.integrity_check = integrityCheck(db);
  try {
    report.table_rows = tableRows(db);
    if (hasTable(db, 'events')) {
      report.oldest_event_at =
        (db.prepare('SELECT ts FROM events ORDER BY id LIMIT 1').pluck().get() as
          | string
          | undefined) ?? null;
    }
    if (hasTable(db, 'tasks')) {
      report.workflow_snapshot_bytes = db
        .prepare('SELECT COALESCE(SUM(LENGTH(CAST(workflow_snapshot AS BLOB))), 0) FROM tasks')
        .pluck()
        .get() as number;
    }
  } catch (err) {
    errors.push((err as Error).message);
  }
  if (errors.length > 0) report.error = errors.join('; ');
  return report;
}

export type OfflineDatabase = { db: Db; error?: undefined } | { db: null; error: string };

/**
 * Opens the database read-only for a report while the daemon is down (or wedged). Never migrates
 * and never refuses a newer schema: the doctor must be able to say that the schema is too new.
 */
export function openForInspection(dbFile: string): OfflineDatabase {
  if (!existsSync(dbFile)) return { db: null, error: `no database at ${dbFile}` };
  try {
    const db = new Database(dbFile, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 2000');
    return { db };
  } catch (err) {
    return { db: null, error: (err as Error).message };
  }
}

/** The report when the file cannot be opened at all (offline only). */
export function unknownDatabase(dbFile: string, error: string): DatabaseReport {
  return {
    ...databaseFiles(dbFile),
    known: false,
    schema_version: null,
    newest_migration: NEWEST_MIGRATION.version,
    integrity_check: `failed: ${error}`,
    table_rows: {},
    oldest_event_at: null,
    workflow_snapshot_bytes: 0,
    error,
  };
}
