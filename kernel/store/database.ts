/**
 * The SQLite database: WAL mode, foreign keys on, numbered migrations applied in one transaction
 * at open, and a transaction helper that publishes work queued with `afterCommit` only once the
 * outermost transaction has committed (so an event is announced if and only if it is stored).
 */
import { chmodSync, closeSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import { type Migration, migrations, NEWEST_MIGRATION } from './migrations/index.js';

export type Db = Database.Database;

export class SchemaTooNewError extends Error {
  constructor(
    readonly file: string,
    readonly found: number,
    readonly supported: number,
  ) {
    super(
      `database ${file} has schema version ${found}, newer than this svc supports (${supported}); ` +
        'run the newer svc, or restore a backup taken by this version',
    );
    this.name = 'SchemaTooNewError';
  }
}

export interface OpenOptions {
  /** Apply pending migrations (the daemon); false opens read-mostly for doctor-style reads. */
  migrate?: boolean;
  readonly?: boolean;
}

export function schemaVersion(db: Db): number {
  return db.pragma('user_version', { simple: true }) as number;
}

function applyMigrations(db: Db, list: Migration[]): void {
  const current = schemaVersion(db);
  // Recorded versions, not just user_version: a lower number merged after a higher one (parallel
  // branches reserve numbers, decision 169) is still applied once.
  const hasLedger =
    db
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
      .get() !== undefined;
  const done = new Set(
    hasLedger
      ? (db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[])
      : list.filter((m) => m.version <= current).map((m) => m.version),
  );
  const pending = list.filter((m) => !done.has(m.version));
  if (pending.length === 0) return;
  db.transaction(() => {
    db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
    const record = db.prepare(
      'INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)',
    );
    for (const m of pending) {
      db.exec(m.sql);
      record.run(m.version, m.name, new Date().toISOString());
      db.pragma(`user_version = ${Math.max(m.version, schemaVersion(db))}`);
    }
  })();
}

/** Creates the file owner-only before SQLite does; SQLite gives -wal and -shm the same mode. */
export function ensurePrivateFile(file: string): void {
  closeSync(openSync(file, 'a', 0o600));
  if (process.platform !== 'win32') chmodSync(file, 0o600);
}

/** How many distinct SQL texts keep their compiled statement (the tables use about a hundred). */
const STATEMENT_CACHE_SIZE = 500;

/**
 * Makes `db.prepare` reuse the compiled statement of a SQL text it has seen. The tables call
 * `prepare(sql).get()` inline, and compiling the statement again each time cost about a fifth of
 * a task's JavaScript time from create to done (issue 11, docs/performance.md). A reused
 * statement is handed back in its default mode (no `pluck`, `expand` or `raw`); one still busy
 * iterating is never shared. Least recently used texts leave first, so SQL built per call cannot
 * grow it unbounded.
 */
export function cacheStatements(db: Db, size = STATEMENT_CACHE_SIZE): Db {
  const compile = db.prepare.bind(db);
  const cache = new Map<string, Database.Statement>();
  db.prepare = ((sql: string) => {
    const hit = cache.get(sql);
    if (hit && !hit.busy) {
      cache.delete(sql);
      cache.set(sql, hit);
      return hit.reader ? hit.pluck(false).expand(false).raw(false) : hit;
    }
    const stmt = compile(sql);
    if (hit) return stmt;
    cache.set(sql, stmt);
    if (cache.size > size) cache.delete(cache.keys().next().value as string);
    return stmt;
  }) as Db['prepare'];
  return db;
}

export function openDatabase(file: string, opts: OpenOptions = {}): Db {
  if (!opts.readonly) ensurePrivateFile(file);
  const db = cacheStatements(
    new Database(file, {
      readonly: opts.readonly ?? false,
      fileMustExist: opts.readonly ?? false,
    }),
  );
  try {
    if (!opts.readonly) {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
    }
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    const found = schemaVersion(db);
    if (found > NEWEST_MIGRATION.version)
      throw new SchemaTooNewError(file, found, NEWEST_MIGRATION.version);
    if (opts.migrate !== false && !opts.readonly) applyMigrations(db, migrations);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/**
 * Wraps the connection with a transaction helper that defers side effects to after commit.
 * better-sqlite3 is synchronous, so one connection serializes every write in this process.
 */
export class Store {
  private depth = 0;
  private pending: Array<() => void> = [];
  /**
   * Transaction control as statements compiled once: `db.transaction(fn)` builds a new wrapper on
   * every call, a measurable share of a task's CPU at seven transactions and a dozen nested ones
   * per one-step task (issue 22). Same semantics: BEGIN IMMEDIATE outermost, a savepoint when
   * nested, rolled back on an exception (and on a failed commit).
   */
  private readonly sql: Record<
    'begin' | 'commit' | 'rollback' | 'savepoint' | 'release' | 'rollbackTo',
    Database.Statement
  >;

  constructor(readonly db: Db) {
    this.sql = {
      begin: db.prepare('BEGIN IMMEDIATE'),
      commit: db.prepare('COMMIT'),
      rollback: db.prepare('ROLLBACK'),
      savepoint: db.prepare('SAVEPOINT svc_tx'),
      release: db.prepare('RELEASE svc_tx'),
      rollbackTo: db.prepare('ROLLBACK TO svc_tx'),
    };
  }

  /** Runs `fn` in a transaction (a savepoint when nested). Work queued by `afterCommit` runs after the outermost commit. */
  tx<T>(fn: () => T): T {
    const mark = this.pending.length;
    const outermost = !this.db.inTransaction;
    const { sql } = this;
    (outermost ? sql.begin : sql.savepoint).run();
    this.depth++;
    let result: T;
    try {
      result = fn();
      if (result instanceof Promise)
        throw new TypeError('Transaction function cannot return a promise');
      (outermost ? sql.commit : sql.release).run();
    } catch (err) {
      this.depth--;
      this.pending.length = mark;
      if (this.db.inTransaction) {
        if (outermost) sql.rollback.run();
        else {
          sql.rollbackTo.run();
          sql.release.run();
        }
      }
      throw err;
    }
    this.depth--;
    if (this.depth === 0) this.flush();
    return result;
  }

  /**
   * Runs `fn`, a single statement's worth of work, in the transaction already open, or in one of
   * its own: no savepoint is needed for one statement, which is atomic by itself.
   */
  join<T>(fn: () => T): T {
    if (this.depth === 0 || !this.db.inTransaction) return this.tx(fn);
    return fn();
  }

  /** Queues `fn` to run once the current transaction commits; runs it at once outside one. */
  afterCommit(fn: () => void): void {
    if (this.depth === 0) fn();
    else this.pending.push(fn);
  }

  get inTransaction(): boolean {
    return this.depth > 0;
  }

  private flush(): void {
    const work = this.pending;
    this.pending = [];
    for (const fn of work) fn();
  }

  close(): void {
    if (this.db.open) {
      try {
        this.db.pragma('wal_checkpoint(TRUNCATE)');
      } catch {}
      this.db.close();
    }
  }
}
