/**
 * Open transcript files kept between a follower's polls (decision 243). A client following a
 * running step asks for the next page every few milliseconds; opening, and closing the file for
 * each poll cost three of the four file system calls a page needed. Files of running steps stay
 * open here, a bounded few, until they have not been read for `idleMs`; every other read opens
 * and closes its own handle as before.
 */
import { type FileHandle, open } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';

/** Opens a transcript for reading; null when it is not there (a gate's row, a pruned file). */
async function openIfPresent(path: string): Promise<FileHandle | null> {
  try {
    return await open(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** A handle lent to one read, and the file's size when it was lent. */
export interface TranscriptLease {
  fh: FileHandle;
  size: number;
  /** Gives the handle back; call it exactly once, after the last read. */
  release(): void;
}

interface Entry {
  path: string;
  fh: FileHandle;
  users: number;
  lastUsed: number;
  /** Out of the cache (evicted, stale, or never in it): closed when its last user releases it. */
  dropped: boolean;
}

export interface TranscriptFilesOptions {
  /** At most this many files stay open (default 64). */
  max?: number;
  /** A file not read for this long is closed (default 10 s). */
  idleMs?: number;
  now?: () => number;
}

export class TranscriptFiles {
  /** Kept handles, least recently used first (an entry is re-inserted on each use). */
  private readonly entries = new Map<string, Entry>();
  private readonly max: number;
  private readonly idleMs: number;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(opts: TranscriptFilesOptions = {}) {
    this.max = opts.max ?? 64;
    this.idleMs = opts.idleMs ?? 10_000;
    this.now = opts.now ?? Date.now;
  }

  /** Files held open now (in use or idle). */
  get size(): number {
    return this.entries.size;
  }

  /**
   * A handle on `path` and its size, or null when there is no such file. `keep`: the file is
   * still being written (a follower will be back), so the handle stays open after this read.
   */
  async acquire(path: string, keep: boolean): Promise<TranscriptLease | null> {
    let entry = this.entries.get(path);
    if (entry) {
      // Most recently used last.
      this.entries.delete(path);
      this.entries.set(path, entry);
      entry.users++;
      entry.lastUsed = this.now();
      try {
        const st = await entry.fh.stat();
        // Unlinked (or replaced) since it was opened: what the path names now is another file.
        if (st.nlink > 0) return this.lease(entry, st.size);
      } catch {
        // A handle that cannot be stat-ed is dropped and the path opened afresh.
      }
      this.drop(entry);
      this.release(entry);
    }
    const fh = await openIfPresent(path);
    if (!fh) return null;
    entry = { path, fh, users: 1, lastUsed: this.now(), dropped: true };
    let size: number;
    try {
      size = (await fh.stat()).size;
    } catch (err) {
      this.release(entry);
      throw err;
    }
    // Another poll may have opened the same file meanwhile: that one stays, this one is closed.
    if (keep && !this.closed && !this.entries.has(path) && this.makeRoom()) {
      entry.dropped = false;
      this.entries.set(path, entry);
      this.arm();
    }
    return this.lease(entry, size);
  }

  /** Closes the files not read for `idleMs` (run by a timer; tests call it with their clock). */
  sweep(): void {
    const cutoff = this.now() - this.idleMs;
    for (const entry of [...this.entries.values()]) {
      if (entry.users === 0 && entry.lastUsed <= cutoff) this.drop(entry);
    }
    if (this.entries.size === 0) this.disarm();
  }

  /** Closes every idle file now and the others as their reads end (the app is closing). */
  close(): void {
    this.closed = true;
    for (const entry of [...this.entries.values()]) this.drop(entry);
    this.disarm();
  }

  private lease(entry: Entry, size: number): TranscriptLease {
    let released = false;
    return {
      fh: entry.fh,
      size,
      release: () => {
        if (released) return;
        released = true;
        entry.lastUsed = this.now();
        this.release(entry);
      },
    };
  }

  private release(entry: Entry): void {
    entry.users--;
    if (entry.users === 0 && entry.dropped) void entry.fh.close().catch(() => undefined);
  }

  private drop(entry: Entry): void {
    if (this.entries.get(entry.path) === entry) this.entries.delete(entry.path);
    entry.dropped = true;
    if (entry.users === 0) void entry.fh.close().catch(() => undefined);
  }

  /** Frees a place for one more file: false when every kept file is being read right now. */
  private makeRoom(): boolean {
    if (this.entries.size < this.max) return true;
    for (const entry of this.entries.values()) {
      if (entry.users === 0) {
        this.drop(entry);
        return true;
      }
    }
    return false;
  }

  private arm(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.sweep(), Math.max(1, this.idleMs / 2));
    this.timer.unref();
  }

  private disarm(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

const perApp = new WeakMap<FastifyInstance, TranscriptFiles>();

/** The app's open transcript files, closed with the app (its routes share them). */
export function transcriptFilesOf(app: FastifyInstance): TranscriptFiles {
  let files = perApp.get(app);
  if (!files) {
    const made = new TranscriptFiles();
    files = made;
    perApp.set(app, made);
    app.addHook('onClose', async () => made.close());
  }
  return files;
}
