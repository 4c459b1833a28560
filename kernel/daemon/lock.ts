/**
 * One daemon per data directory (decision 002). The lock is an exclusive SQLite lock held on
 * {data_dir}/daemon.lock for the life of the process. It is an OS advisory lock, so the kernel
 * drops it the moment the process dies — a `kill -9` can never leave a stale lock that blocks
 * the next start, and there is no PID file to judge.
 */
import { existsSync, readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { ensurePrivateFile } from '../store/index.js';

export class DaemonLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number | null,
  ) {
    super(
      `another svc daemon${pid ? ` (pid ${pid})` : ''} is already running on data directory ${dataDir}; ` +
        'stop it with `svc daemon stop` or use another SVC_DATA_DIR',
    );
    this.name = 'DaemonLockedError';
  }
}

export interface DaemonLock {
  release(): void;
}

function pidFromDaemonJson(file: string): number | null {
  try {
    if (!existsSync(file)) return null;
    const pid = (JSON.parse(readFileSync(file, 'utf8')) as { pid?: unknown }).pid;
    return typeof pid === 'number' ? pid : null;
  } catch {
    return null;
  }
}

export function acquireDaemonLock(
  lockFile: string,
  dataDir: string,
  daemonJson: string,
): DaemonLock {
  ensurePrivateFile(lockFile);
  const db = new Database(lockFile, { timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    try {
      // The first write takes the exclusive lock; EXCLUSIVE locking mode keeps it after commit.
      db.exec('CREATE TABLE IF NOT EXISTS holder (pid INTEGER)');
      db.exec(`DELETE FROM holder; INSERT INTO holder (pid) VALUES (${process.pid})`);
    } catch (err) {
      // A full disk (decision 180): an exclusive transaction takes the same lock writing nothing,
      // so a daemon still starts to report the disk and record outcomes.
      if ((err as { code?: string }).code !== 'SQLITE_FULL') throw err;
      db.exec('BEGIN EXCLUSIVE');
      db.exec('COMMIT');
    }
  } catch (err) {
    db.close();
    const code = (err as { code?: string }).code;
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
      throw new DaemonLockedError(dataDir, pidFromDaemonJson(daemonJson));
    }
    throw err;
  }
  return {
    release: () => {
      if (db.open) db.close();
    },
  };
}
