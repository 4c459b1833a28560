/**
 * One attempt's transcript: a JSONL file under {data_dir}/transcripts/{task_id}/, readable while
 * it is written. Past `maxBytes` it latches: the crossing line is written whole, one
 * `svc.transcript_limit` line follows, and every later write is dropped (the caller then kills
 * the process tree and fails the step `transcript_limit`).
 *
 * A write the file system refuses (ENOSPC on a full disk, EDQUOT, EIO, a directory that cannot be
 * created) never throws: output arrives in stream callbacks, where an exception would take the
 * whole daemon down. The writer records the first error in `failure`, stops writing and calls
 * `onFailure`; the caller kills the process tree and fails the step `transcript_unwritable`
 * (issue 11, docs/reliability.md). What was written before the error stays in the file.
 */
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

export class TranscriptWriter {
  private fd: number | null = null;
  private size = 0;
  private latchedFlag = false;
  private failed: NodeJS.ErrnoException | null = null;

  constructor(
    readonly path: string,
    private readonly maxBytes: number,
    private readonly onLatch?: () => void,
    private readonly onFailure?: (err: NodeJS.ErrnoException) => void,
    /** A full data disk (decision 180): the error every write gets while it holds, else null. */
    private readonly refuse?: () => NodeJS.ErrnoException | null,
  ) {
    try {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      this.fd = openSync(path, 'a', 0o600);
    } catch (err) {
      this.fail(err as NodeJS.ErrnoException);
    }
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

  /** Appends one line (a JSON value or a raw line); returns the offset after it, or null when dropped. */
  write(line: string | Record<string, unknown>): number | null {
    if (this.fd === null || this.latchedFlag) return null;
    const text = typeof line === 'string' ? line : JSON.stringify(line);
    if (!this.put(Buffer.from(text.endsWith('\n') ? text : `${text}\n`))) return null;
    if (this.maxBytes > 0 && this.size > this.maxBytes) {
      this.put(
        Buffer.from(
          `${JSON.stringify({ type: 'svc.transcript_limit', max_bytes: this.maxBytes })}\n`,
        ),
      );
      this.latchedFlag = true;
      this.onLatch?.();
    }
    return this.size;
  }

  /** Writes a daemon annotation even after the latch (step start/finish markers). */
  annotate(kind: string, fields: Record<string, unknown>, ts: string): void {
    if (this.fd === null) return;
    // The annotation's own type wins over any field of the same name.
    this.put(Buffer.from(`${JSON.stringify({ ...fields, type: `svc.${kind}`, ts })}\n`));
  }

  close(): void {
    if (this.fd !== null) {
      try {
        closeSync(this.fd);
      } catch {}
      this.fd = null;
    }
  }

  private put(buf: Buffer): boolean {
    if (this.fd === null) return false;
    const refused = this.refuse?.();
    if (refused) {
      this.fail(refused);
      return false;
    }
    try {
      writeSync(this.fd, buf);
      this.size += buf.length;
      return true;
    } catch (err) {
      this.fail(err as NodeJS.ErrnoException);
      return false;
    }
  }

  private fail(err: NodeJS.ErrnoException): void {
    if (this.failed) return;
    this.failed = err;
    this.close();
    this.onFailure?.(err);
  }
}
