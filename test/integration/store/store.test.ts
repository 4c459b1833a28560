import { statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  cacheStatements,
  migrations,
  NEWEST_MIGRATION,
  openDatabase,
  SchemaTooNewError,
  Store,
  schemaVersion,
} from '../../../kernel/store/index.js';
import { buildTestApp } from '../../support/app.js';
import { tempDir } from '../../support/tmp.js';

describe('store', () => {
  it('opens in WAL mode, owner-only, with every migration applied once', () => {
    const file = join(tempDir(), 'svc.db');
    const db = openDatabase(file);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(schemaVersion(db)).toBe(NEWEST_MIGRATION.version);
    const tables = (
      db.prepare("SELECT name FROM sqlite_master WHERE type='table'").all() as Array<{
        name: string;
      }>
    ).map((r) => r.name);
    expect(tables).toEqual(
      expect.arrayContaining(['events', 'idempotency_keys', 'schema_migrations']),
    );
    db.close();
    const again = openDatabase(file);
    expect(
      (again.prepare('SELECT COUNT(*) AS n FROM schema_migrations').get() as { n: number }).n,
    ).toBe(migrations.length);
    again.close();
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('applies a migration it has not recorded even below user_version (decision 169)', () => {
    const file = join(tempDir(), 'svc.db');
    openDatabase(file).close();
    // A database migrated by a build that lacked 0007 while a higher number landed first.
    const raw = new Database(file);
    raw.exec(
      'DROP TABLE chat_turns; DROP TABLE chats; DELETE FROM schema_migrations WHERE version = 7',
    );
    raw.close();
    const db = openDatabase(file);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'chats'").get()).toBeTruthy();
    expect(schemaVersion(db)).toBe(NEWEST_MIGRATION.version);
    db.close();
  });

  it('refuses a database whose schema is newer than this binary, clearly', () => {
    const file = join(tempDir(), 'svc.db');
    const raw = new Database(file);
    raw.pragma(`user_version = ${NEWEST_MIGRATION.version + 5}`);
    raw.close();
    expect(() => openDatabase(file)).toThrow(SchemaTooNewError);
    expect(() => openDatabase(file)).toThrow(/newer than this svc supports/);
  });

  it('reuses a compiled statement in its default mode, never one busy iterating', () => {
    const db = cacheStatements(new Database(':memory:'), 2);
    db.exec('CREATE TABLE t (a INTEGER, b INTEGER); INSERT INTO t VALUES (1, 2), (3, 4)');
    const sql = 'SELECT a, b FROM t ORDER BY a';
    expect(db.prepare(sql).pluck().all()).toEqual([1, 3]);
    expect(db.prepare(sql)).toBe(db.prepare(sql));
    expect(db.prepare(sql).raw().all()).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(db.prepare(sql).expand().get()).toEqual({ t: { a: 1, b: 2 } });
    expect(db.prepare(sql).all()).toEqual([
      { a: 1, b: 2 },
      { a: 3, b: 4 },
    ]);
    const seen: number[] = [];
    for (const row of db.prepare(sql).iterate() as Iterable<{ a: number }>)
      seen.push(row.a, db.prepare(sql).pluck().all().length);
    expect(seen).toEqual([1, 2, 3, 2]);
    // Beyond the size, the least recently used text is compiled again.
    const first = db.prepare('SELECT 1');
    db.prepare('SELECT 2');
    db.prepare('SELECT 3');
    expect(db.prepare('SELECT 1')).not.toBe(first);
    db.close();
  });

  it('runs after-commit work only when the outermost transaction commits', () => {
    const store = new Store(openDatabase(join(tempDir(), 'svc.db')));
    const ran: string[] = [];
    store.tx(() => {
      store.afterCommit(() => ran.push('outer'));
      store.tx(() => store.afterCommit(() => ran.push('inner')));
      expect(ran).toEqual([]);
    });
    expect(ran).toEqual(['outer', 'inner']);
    expect(() =>
      store.tx(() => {
        store.afterCommit(() => ran.push('rolled back'));
        throw new Error('no');
      }),
    ).toThrow('no');
    expect(ran).toEqual(['outer', 'inner']);
    store.close();
  });

  // Issue 22: transactions run on statements compiled once instead of a wrapper built per call;
  // what they do must not change.
  it('undoes a nested transaction that throws and keeps the rest; a failed outer one leaves nothing', () => {
    const store = new Store(openDatabase(join(tempDir(), 'svc.db')));
    const { db } = store;
    db.exec('CREATE TABLE t (v TEXT)');
    const put = (v: string) => db.prepare('INSERT INTO t (v) VALUES (?)').run(v);
    const rows = () =>
      (db.prepare('SELECT v FROM t ORDER BY rowid').all() as Array<{ v: string }>).map((r) => r.v);
    store.tx(() => {
      put('outer');
      expect(() =>
        store.tx(() => {
          put('inner');
          throw new Error('inner fails');
        }),
      ).toThrow('inner fails');
      store.tx(() => put('second inner'));
      store.join(() => put('joined'));
    });
    expect(rows()).toEqual(['outer', 'second inner', 'joined']);
    expect(() =>
      store.tx(() => {
        put('lost');
        store.tx(() => put('lost too'));
        throw new Error('outer fails');
      }),
    ).toThrow('outer fails');
    expect(rows()).toEqual(['outer', 'second inner', 'joined']);
    expect(db.inTransaction).toBe(false);
    expect(() => store.tx(() => Promise.resolve())).toThrow(/promise/);
    expect(db.inTransaction).toBe(false);
    // Outside a transaction, join opens its own: its after-commit work runs once it commits.
    const ran: string[] = [];
    store.join(() => store.afterCommit(() => ran.push('joined alone')));
    expect(ran).toEqual(['joined alone']);
    store.close();
  });

  it('the kernel refuses to start on a too-new schema', async () => {
    const root = tempDir();
    const first = await buildTestApp({ root, keepOpen: true });
    await first.close();
    const raw = new Database(first.paths.dbFile);
    raw.pragma(`user_version = ${NEWEST_MIGRATION.version + 1}`);
    raw.close();
    await expect(buildTestApp({ root })).rejects.toThrow(SchemaTooNewError);
  });
});
