/**
 * One attempt's transcript: a JSONL file under {data_dir}/transcripts/{task_id}/, readable while
 * it is written. Past `maxBytes` it latches: the crossing line is written whole, one
 * `svc.transcript_limit` line follows, and every later write is dropped (the caller then kills
 * the process tree and fails the step `transcript_limit`).
 *
 * Writes never block the event loop (issue 22 point 4, decision 232): lines are queued in memory
 * and written in batches by the thread pool, one write in flight per file, so sixteen steps
 * printing as fast as they can cost the daemon a few large writes instead of a synchronous write
 * per line. `pending` says how much waits, so the caller can stop reading a process's pipes while
 * the disk catches up (the producer then blocks on its pipe, as it would on a slow disk);
 * `flushed()` resolves when everything queued so far is on disk. The file is opened the same way,
 * off the event loop; `flushed()` also reports whether that worked.
 *
 * A write the file system refuses (ENOSPC on a full disk, EDQUOT, EIO, a directory that cannot be
 * created) never throws: the writer records the first error in `failure`, drops what was queued
 * and everything later, and calls `onFailure`; the caller kills the process tree and fails the
 * step `transcript_unwritable` (issue 11, docs/reliability.md), or `disk_full` for a full disk
 * (decision 180). While the daemon is in disk-full mode, `refuse` answers the error every write
 * gets: it is asked before a line is queued and before each write goes out, and its answer fails
 * the writer the same way. What was written before the error stays in the file. Every byte
 * reaches the disk through one method, `writeOut`.
 */
import { close, fstat, mkdir, open, writev } from 'node:fs';
import { dirname } from 'node:path';
import { type DiskLane, transcriptLane } from './disk-lane.js';
import { RecentBytes, registerWindow } from './transcript-recent.js';

/** Queued bytes past which a producer should be held back (`pending`). */
export const TRANSCRIPT_HIGH_WATER = 1024 * 1024;

export class TranscriptWriter {
  private fd: number | null = null;
  private opening = true;
  private closing = false;
  /** Bytes accepted: on disk, in flight or queued. Offsets are counted in these. */
  private size = 0;
  private latchedFlag = false;
  private failed: NodeJS.ErrnoException | null = null;
  private queue: Buffer[] = [];
  /** Queued plus in flight. */
  private waiting = 0;
  private inFlight = false;
  private idleWaiters: Array<() => void> = [];
  private openWaiters: Array<() => void> = [];
  private drainWaiters: Array<() => void> = [];
  private durableWaiters: Array<{ at: number; done: () => void }> = [];
  /**
   * What the last writes put on disk, for followers (decision 252): from the file's opening to the
   * writer's closing or failing, registered under `path` for the transcript routes to find.
   */
  private window: RecentBytes | null = null;
  private unregister = () => {};

  constructor(
    readonly path: string,
    private readonly maxBytes: number,
    private readonly onLatch?: () => void,
    private readonly onFailure?: (err: NodeJS.ErrnoException) => void,
    /** A full data disk (decision 180): the error every write gets while it holds, else null. */
    private readonly refuse?: () => NodeJS.ErrnoException | null,
    /** Where this writer's writes wait their turn (disk-lane.ts): every transcript's, by default. */
    private readonly lane: DiskLane = transcriptLane,
  ) {
    // The file is opened first and its directory made only when missing: a task's later
    // attempts, and its first once the runner has made the directory ahead (`prepareDir`), cost
    // a step's start one call to the thread pool, not two.
    this.create(true);
  }

  /**
   * Makes a task's transcript directory ahead of its first attempt (the runner asks while the
   * worktree is being cut). Errors are left for the writer's own open to meet and report.
   */
  static prepareDir(dir: string): void {
    mkdir(dir, { recursive: true, mode: 0o700 }, () => {});
  }

  private create(firstTry: boolean): void {
    const path = this.path;
    // A new file (every attempt's is): its first byte goes at 0. One already there is
    // appended to, and the window's offsets start at its size (decision 252) — read only then,
    // so a step's start waits for no extra call.
    open(path, 'ax', 0o600, (err, fd) => {
      if (!err) return this.onOpen(null, fd, 0);
      if (err.code === 'ENOENT' && firstTry) {
        mkdir(dirname(path), { recursive: true, mode: 0o700 }, (mkErr) =>
          mkErr ? this.onOpen(mkErr, null, 0) : this.create(false),
        );
        return;
      }
      if (err.code !== 'EEXIST') return this.onOpen(err, null, 0);
      open(path, 'a', 0o600, (err2, fd2) => {
        if (err2) return this.onOpen(err2, null, 0);
        fstat(fd2, (stErr, st) => this.onOpen(stErr, fd2, stErr ? 0 : st.size));
      });
    });
  }

  get bytes(): number {
    return this.size;
  }

  get latched(): boolean {
    return this.latchedFlag;
  }

  /** The first error the file system answered, with its code (`ENOSPC`, …); null while healthy. */
  get failure(): NodeJS.ErrnoException | null {
    return this.failed;
  }

  /** Bytes accepted and not yet on disk. */
  get pending(): number {
    return this.waiting;
  }

  /** Appends one line (a JSON value or a raw line); returns the offset after it, or null when dropped. */
  write(line: string | Record<string, unknown>): number | null {
    if (this.latchedFlag || !this.open || this.refused()) return null;
    const text = typeof line === 'string' ? line : JSON.stringify(line);
    this.enqueue(Buffer.from(text.endsWith('\n') ? text : `${text}\n`));
    if (this.maxBytes > 0 && this.size > this.maxBytes) this.latch();
    return this.size;
  }

  /**
   * Appends whole lines given as bytes (each ending in `\n`), as `write` would one by one: past
   * `maxBytes` the crossing line goes in and the rest is dropped. Returns how many bytes of `lines`
   * were taken and the offset after them; null when none were.
   */
  writeLines(lines: Buffer): { taken: number; offset: number } | null {
    if (this.latchedFlag || !this.open || lines.length === 0 || this.refused()) return null;
    let taken = lines.length;
    if (this.maxBytes > 0 && this.size + taken > this.maxBytes) {
      // The line holding byte maxBytes + 1 is the one that crosses (`write` latches after it).
      const crossing = lines.indexOf(0x0a, Math.max(0, this.maxBytes - this.size));
      taken = crossing < 0 ? lines.length : crossing + 1;
    }
    this.enqueue(taken === lines.length ? lines : lines.subarray(0, taken));
    if (this.maxBytes > 0 && this.size > this.maxBytes) this.latch();
    return { taken, offset: this.size };
  }

  /** Writes a daemon annotation even after the latch (step start/finish markers). */
  annotate(kind: string, fields: Record<string, unknown>, ts: string): void {
    if (!this.open || this.refused()) return;
    // The annotation's own type wins over any field of the same name.
    this.enqueue(Buffer.from(`${JSON.stringify({ ...fields, type: `svc.${kind}`, ts })}\n`));
  }

  /**
   * Resolves once the file exists and is open (or could not be: see `failure`). A step run names
   * its transcript only after this, so a reader never finds a row whose file is not there yet.
   */
  opened(): Promise<void> {
    if (!this.opening) return Promise.resolve();
    return new Promise((r) => this.openWaiters.push(r));
  }

  /** Resolves once everything accepted so far is on disk (or the writer failed: see `failure`). */
  flushed(): Promise<void> {
    if (this.idle) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  /**
   * Resolves once the first `at` bytes accepted (all accepted so far, by default) are on disk, or
   * the writer failed (see `failure`). Unlike `flushed()` it does not wait for lines accepted
   * after it was asked: a step's process waits for the transcript's first line this way while
   * the lines its start adds are still being written (decision 258).
   */
  durable(at = this.size): Promise<void> {
    if (this.onDisk >= at || this.failed) return Promise.resolve();
    return new Promise((done) => this.durableWaiters.push({ at, done }));
  }

  /** Bytes accepted and written: the file's length, counted as offsets are. */
  private get onDisk(): number {
    return this.size - this.waiting;
  }

  /** Resolves once fewer than `TRANSCRIPT_HIGH_WATER / 4` bytes wait (at once if so already). */
  drained(): Promise<void> {
    if (this.waiting <= TRANSCRIPT_HIGH_WATER / 4) return Promise.resolve();
    return new Promise((r) => this.drainWaiters.push(r));
  }

  /** Writes what is queued, then closes the file; later writes are dropped. */
  async close(): Promise<void> {
    this.closing = true;
    await this.flushed();
    const fd = this.fd;
    this.fd = null;
    // Followers read the file from here on; what the window held is all in it.
    this.unregister();
    this.window = null;
    if (fd !== null) await new Promise<void>((r) => close(fd, () => r()));
  }

  /** Accepting lines: not failed, not closed. */
  private get open(): boolean {
    return this.failed === null && !this.closing;
  }

  /**
   * Nothing queued and no write in flight. A failed writer has dropped its queue, but a write it
   * had in flight returns first, so `close()` never resolves under a write still landing.
   */
  private get idle(): boolean {
    if (this.inFlight) return false;
    return this.failed !== null || (!this.opening && this.queue.length === 0);
  }

  /**
   * Asks `refuse` whether the data disk is full (decision 180): when it is, the writer fails with
   * that error (dropping what is queued, calling `onFailure`) and true is returned. Asked before a
   * line is queued and before each write goes out, so a writer stops at the next line once the
   * daemon enters disk-full mode, whatever was queued before.
   */
  private refused(): boolean {
    if (this.failed) return true;
    const err = this.refuse?.();
    if (!err) return false;
    this.fail(err);
    return true;
  }

  private latch(): void {
    this.enqueue(
      Buffer.from(
        `${JSON.stringify({ type: 'svc.transcript_limit', max_bytes: this.maxBytes })}\n`,
      ),
    );
    this.latchedFlag = true;
    this.onLatch?.();
  }

  private onOpen(err: NodeJS.ErrnoException | null, fd: number | null, size: number): void {
    this.opening = false;
    for (const w of this.openWaiters.splice(0)) w();
    if (err || fd === null) {
      if (fd !== null) close(fd, () => {});
      this.fail(err ?? new Error('open failed'));
      return;
    }
    if (this.failed) {
      close(fd, () => {});
      return;
    }
    this.fd = fd;
    this.window = new RecentBytes(size);
    this.unregister = registerWindow(this.path, this.window);
    this.pump();
  }

  private enqueue(buf: Buffer): void {
    this.queue.push(buf);
    this.waiting += buf.length;
    this.size += buf.length;
    this.pump();
  }

  /** Starts a write of everything queued, unless one is in flight or the file is not open yet. */
  private pump(): void {
    if (this.inFlight || this.fd === null || this.failed) {
      this.settle();
      return;
    }
    if (this.queue.length === 0) {
      this.settle();
      return;
    }
    if (this.refused()) return;
    const fd = this.fd;
    // In flight from here: no second write starts while this one waits for its turn.
    this.inFlight = true;
    this.lane.take((done) => {
      // Failed while waiting (a disk-full refusal, an error): nothing goes out; `written` closes.
      if (this.failed || this.refused()) {
        done();
        this.written(fd, 0, null);
        return;
      }
      // What queued while this writer waited goes out in the same write.
      const batch = this.queue;
      this.queue = [];
      this.writeOut(fd, batch).then(
        (n) => {
          done();
          // On disk now: a follower may be given these bytes without reading the file.
          this.window?.append(batch);
          this.written(fd, n, null);
        },
        (err: NodeJS.ErrnoException) => {
          done();
          this.written(fd, 0, err);
        },
      );
    });
  }

  /** A write went out (`err` null) or was refused by the file system. */
  private written(fd: number, n: number, err: NodeJS.ErrnoException | null): void {
    this.inFlight = false;
    if (this.failed) {
      // The writer failed while this write was in flight (a disk-full refusal): the file is
      // closed only now, so its descriptor cannot be reused under a write still running.
      close(fd, () => {});
      this.settle();
      return;
    }
    if (err) {
      this.fail(err);
      return;
    }
    this.waiting -= n;
    // Before the next write goes out: a wait for these bytes need not wait for the next ones.
    this.wakeDurable();
    this.pump();
  }

  /**
   * The one place bytes reach the disk: writes every buffer in order, continuing after a short
   * write, and resolves with the bytes written; rejects with the file system's error.
   */
  private writeOut(fd: number, buffers: Buffer[]): Promise<number> {
    const total = buffers.reduce((n, b) => n + b.length, 0);
    return new Promise((resolve, reject) => {
      let left = buffers;
      const step = () =>
        writev(fd, left, (err, written) => {
          if (err) return reject(err);
          let n = written;
          const rest: Buffer[] = [];
          for (const b of left) {
            if (n >= b.length) n -= b.length;
            else {
              rest.push(n > 0 ? b.subarray(n) : b);
              n = 0;
            }
          }
          if (rest.length === 0) return resolve(total);
          left = rest;
          step();
        });
      step();
    });
  }

  private settle(): void {
    if (this.waiting <= TRANSCRIPT_HIGH_WATER / 4 || this.failed)
      for (const w of this.drainWaiters.splice(0)) w();
    if (this.idle) for (const w of this.idleWaiters.splice(0)) w();
    this.wakeDurable();
  }

  /** Resolves the `durable` waits the disk has reached (every one, once the writer failed). */
  private wakeDurable(): void {
    if (this.durableWaiters.length === 0) return;
    const reached = (w: { at: number }) => this.failed !== null || this.onDisk >= w.at;
    const done = this.durableWaiters.filter(reached);
    if (done.length === 0) return;
    this.durableWaiters = this.durableWaiters.filter((w) => !reached(w));
    for (const w of done) w.done();
  }

  private fail(err: NodeJS.ErrnoException): void {
    if (this.failed) return;
    this.failed = err;
    this.unregister();
    this.window = null;
    this.queue = [];
    this.waiting = 0;
    const fd = this.fd;
    this.fd = null;
    // A write in flight still uses the descriptor: `written` closes it when that write returns.
    if (fd !== null && !this.inFlight) close(fd, () => {});
    this.settle();
    this.onFailure?.(err);
  }
}
