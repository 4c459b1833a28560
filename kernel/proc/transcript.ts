/**
 * One attempt's transcript: a JSONL file under {data_dir}/transcripts/{task_id}/, readable while
 * it is written. Past `maxBytes` it latches: the crossing line is written whole, one
 * `svc.transcript_limit` line follows, and every later write is dropped (the caller then kills
 * the process tree and fails the step `transcript_limit`).
 */
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

export class TranscriptWriter {
  private fd: number | null;
  private size = 0;
  private latchedFlag = false;

  constructor(
    readonly path: string,
    private readonly maxBytes: number,
    private readonly onLatch?: () => void,
  ) {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    this.fd = openSync(path, 'a', 0o600);
  }

  get bytes(): number {
    return this.size;
  }

  get latched(): boolean {
    return this.latchedFlag;
  }

  /** Appends one line (a JSON value or a raw line); returns the offset after it, or null when dropped. */
  write(line: string | Record<string, unknown>): number | null {
    if (this.fd === null || this.latchedFlag) return null;
    const text = typeof line === 'string' ? line : JSON.stringify(line);
    const buf = Buffer.from(text.endsWith('\n') ? text : `${text}\n`);
    writeSync(this.fd, buf);
    this.size += buf.length;
    if (this.maxBytes > 0 && this.size > this.maxBytes) {
      const note = Buffer.from(
        `${JSON.stringify({ type: 'svc.transcript_limit', max_bytes: this.maxBytes })}\n`,
      );
      writeSync(this.fd, note);
      this.size += note.length;
      this.latchedFlag = true;
      this.onLatch?.();
    }
    return this.size;
  }

  /** Writes a daemon annotation even after the latch (step start/finish markers). */
  annotate(kind: string, fields: Record<string, unknown>, ts: string): void {
    if (this.fd === null) return;
    // The annotation's own type wins over any field of the same name.
    const buf = Buffer.from(`${JSON.stringify({ ...fields, type: `svc.${kind}`, ts })}\n`);
    writeSync(this.fd, buf);
    this.size += buf.length;
  }

  close(): void {
    if (this.fd !== null) {
      closeSync(this.fd);
      this.fd = null;
    }
  }
}
