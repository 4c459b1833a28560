/**
 * The data disk's guard (decision 180). A full disk is an outcome the daemon lives through, never a
 * crash: the first write the disk refuses (a transcript line, a SQLite transaction, a worktree, a
 * backup) puts the daemon in disk-full mode, where
 *
 * - admission holds (queued tasks wait; nothing new is started into the same wall),
 * - every live attempt's transcript refuses its next line, so each writer stops and blocks
 *   `disk_full` instead of eating what little room is left,
 * - the writes that must not be lost (an attempt's outcome, a task's block, crash recovery) may
 *   spend a reserve: a file of RESERVE_BYTES kept in the data directory and truncated to nothing
 *   the first time such a write is refused, so SQLite finds room to record the outcome,
 * - routes keep serving reads, and a refused write answers 507 `disk_full`.
 *
 * The mode ends on its own once the file system has room for the reserve and as much again (looked
 * at every RECHECK_MS, and whenever admission asks): the reserve is written back and admission
 * resumes. A reserve found empty at start says the previous daemon stopped with the disk full;
 * recovery then blocks the tasks it interrupted instead of running them into the same wall.
 */
import {
  closeSync,
  openSync,
  renameSync,
  rmSync,
  statfsSync,
  statSync,
  truncateSync,
  writeSync,
} from 'node:fs';
import type { Logger } from 'pino';
import { type Clock, formatMs, type Timer } from '../clock/index.js';
import { diskFullCode } from './full.js';

/** Room set aside for the writes that record outcomes (a few SQLite pages each; generous). */
export const RESERVE_BYTES = 2 * 1024 * 1024;
/** How often a full disk is looked at again. */
export const RECHECK_MS = 5_000;

export interface DiskStatus {
  /** The daemon is in disk-full mode: admission holds, transcripts refuse. */
  full: boolean;
  /** When the mode began (null when not full). */
  since: string | null;
  /** The code the refused write gave (`ENOSPC`, `SQLITE_FULL`, …). */
  code: string | null;
  /** Bytes the reserve holds now, and what it holds when the disk has room. */
  reserve_bytes: number;
  reserve_target: number;
  /** The previous daemon stopped while the disk was full (its reserve was found spent). */
  ended_full: boolean;
}

export interface DiskGuardOptions {
  /** The directory whose file system is watched (the data directory). */
  dir: string;
  /** The reserve file, inside `dir`. */
  file: string;
  clock: Clock;
  logger: Logger;
  bytes?: number;
}

/** An ENOSPC-shaped error for a write refused because the daemon is in disk-full mode. */
function refusal(code: string): NodeJS.ErrnoException {
  return Object.assign(
    new Error(`${code}: no space left on device (the data disk is full; svc stopped writing)`),
    { code: code === 'EDQUOT' ? 'EDQUOT' : 'ENOSPC' },
  );
}

export class DiskGuard {
  private fullSince: number | null = null;
  private code: string | null = null;
  private timer: Timer | null = null;
  private stopped = false;
  private readonly listeners = new Set<() => void>();
  private readonly bytes: number;
  /** The previous daemon stopped with the disk full (read once, at start). */
  endedFull = false;

  constructor(private readonly o: DiskGuardOptions) {
    this.bytes = o.bytes ?? RESERVE_BYTES;
  }

  /** Reads what the last daemon left and sets the reserve aside; a disk with no room starts full. */
  start(): void {
    this.stopped = false;
    const held = this.held();
    this.endedFull = held !== null && held < this.bytes;
    if (held !== this.bytes && this.fill() === 'full') this.enter('ENOSPC');
    // Less room than the reserve is a full disk too: nothing the daemon interrupted is run again
    // into it (recovery asks), and admission waits.
    else if (this.freeBytes() < this.bytes) this.enter('ENOSPC');
  }

  private freeBytes(): number {
    try {
      const s = statfsSync(this.o.dir);
      return s.bavail * s.bsize;
    } catch {
      return Number.POSITIVE_INFINITY;
    }
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = null;
  }

  /** True while in disk-full mode; looks at the file system again first, so room ends it at once. */
  get full(): boolean {
    if (this.fullSince === null) return false;
    this.recheck();
    return this.fullSince !== null;
  }

  /** The error a transcript write gets while the mode holds (cheap: no file-system call). */
  refusing(): NodeJS.ErrnoException | null {
    return this.fullSince === null ? null : refusal(this.code ?? 'ENOSPC');
  }

  /**
   * A write failed: when the disk refused it, the mode begins (or goes on) and the disk's code is
   * returned; any other fault returns null and changes nothing.
   */
  noteRefusal(err: unknown): string | null {
    const code = diskFullCode(err);
    // A refusal from another file system (a backup's destination, a device) while the data disk
    // has room is that write's failure alone: the daemon's writers carry on.
    if (code && !this.roomNow()) this.enter(code);
    return code;
  }

  /**
   * True when the data disk lacks room right now. For a child's failure whose text names no cause
   * (git's "unable to write new index file"): on a disk this full, the disk is the cause.
   */
  short(): boolean {
    return !this.roomNow();
  }

  /** Room for the reserve and as much again on the data disk. */
  private roomNow(): boolean {
    return this.freeBytes() + (this.held() ?? 0) >= 2 * this.bytes;
  }

  /**
   * Runs a write that records an outcome. When the disk refuses it, the reserve is given up and the
   * write tried once more; a second refusal (or none left to give) is thrown to the caller.
   */
  rescue<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      // Only for the data disk: a refusal elsewhere (or with room here) gains nothing from it.
      if (this.noteRefusal(err) === null || this.fullSince === null || !this.release()) throw err;
      this.o.logger.warn({ code: this.code }, 'the disk reserve was spent to record an outcome');
      return fn();
    }
  }

  /** `rescue` of one transaction on `store`. */
  rescueTx<T>(store: { tx<R>(fn: () => R): R }, fn: () => T): T {
    return this.rescue(() => store.tx(fn));
  }

  /** Calls `fn` each time the mode ends. */
  onRoom(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  status(): DiskStatus {
    return {
      full: this.full,
      since: this.fullSince === null ? null : formatMs(this.fullSince),
      code: this.fullSince === null ? null : this.code,
      reserve_bytes: this.held() ?? 0,
      reserve_target: this.bytes,
      ended_full: this.endedFull,
    };
  }

  private enter(code: string): void {
    this.code = code;
    if (this.fullSince !== null) return;
    this.fullSince = this.o.clock.now();
    this.o.logger.error(
      { code, dir: this.o.dir },
      'the data disk is full: admission holds and writers stop until there is room',
    );
    this.arm();
  }

  private arm(): void {
    if (this.stopped || this.timer) return;
    this.timer = this.o.clock.setTimer(RECHECK_MS, () => {
      this.timer = null;
      this.recheck();
      if (this.fullSince !== null) this.arm();
    });
  }

  /** Ends the mode when the file system has room for the reserve and as much again. */
  recheck(): void {
    if (this.fullSince === null) return;
    if (!this.roomNow()) return;
    if ((this.held() ?? 0) < this.bytes && this.fill() !== 'ok') return;
    const since = this.fullSince;
    this.fullSince = null;
    this.code = null;
    this.timer?.cancel();
    this.timer = null;
    this.o.logger.info(
      { full_since: formatMs(since) },
      'the data disk has room again: admission resumes',
    );
    for (const fn of this.listeners) {
      try {
        fn();
      } catch (err) {
        this.o.logger.error({ err }, 'a disk-room listener failed');
      }
    }
  }

  private held(): number | null {
    try {
      return statSync(this.o.file).size;
    } catch {
      return null;
    }
  }

  /** Truncates the reserve to nothing; true when that freed something. */
  private release(): boolean {
    const held = this.held();
    if (!held) return false;
    try {
      truncateSync(this.o.file, 0);
      return true;
    } catch {
      return false;
    }
  }

  /** Writes the reserve whole through a sibling and a rename, so it is either whole or spent. */
  private fill(): 'ok' | 'full' | 'failed' {
    const tmp = `${this.o.file}.tmp`;
    let fd: number | null = null;
    try {
      fd = openSync(tmp, 'w', 0o600);
      const chunk = Buffer.alloc(64 * 1024);
      for (let done = 0; done < this.bytes; done += chunk.length)
        writeSync(fd, chunk, 0, Math.min(chunk.length, this.bytes - done));
      closeSync(fd);
      fd = null;
      renameSync(tmp, this.o.file);
      return 'ok';
    } catch (err) {
      if (fd !== null) {
        try {
          closeSync(fd);
        } catch {}
      }
      rmSync(tmp, { force: true });
      if (diskFullCode(err) !== null) return 'full';
      this.o.logger.warn({ err: (err as Error).message }, 'the disk reserve could not be written');
      return 'failed';
    }
  }
}
