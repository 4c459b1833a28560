/**
 * The end of a process's output, for a step's result (`tail`, `stderr_tail`), kept as the bytes
 * the lines came from and decoded only when the process has ended (issue 22 point 4, decision
 * 246). Keeping the last chunks' texts instead meant every running process held two or three
 * strings of 64 KiB alive across garbage collections, and each scavenge copied them, a few
 * milliseconds each, hundreds of times a run (the daemon then ran with a 2 MiB young generation).
 * Bytes live outside the JavaScript heap and cost a scavenge nothing.
 */
import { linesText, type OutputBatch } from './output-lines.js';

/**
 * The last `lines` lines of `text`; when those are more than `maxBytes` bytes, their last
 * `maxBytes` UTF-16 units (as the step result's tail has always been cut).
 */
export function tailLines(text: string, lines: number, maxBytes = 16 * 1024): string {
  let out = text.split('\n').slice(-lines).join('\n');
  if (Buffer.byteLength(out) > maxBytes) out = out.slice(-maxBytes);
  return out;
}

/**
 * The last batches of output, at least `keepBytes` of their bytes, copied into one buffer of the
 * tail's own (keeping the batches themselves would keep each chunk read from the pipe alive, and
 * those old chunks' memory is what makes V8 run full collections). A UTF-8 byte sequence gives
 * at least one UTF-16 unit per three bytes (an invalid one at least one per two), so the texts of
 * the batches kept hold at least `keepBytes / 3` units: a caller that needs the last n units of
 * the whole output keeps 3n bytes.
 */
export class OutputTail {
  /** The kept batches' bytes, back to back, ending at `end`; copied in, so no chunk read is held. */
  private buf: Buffer | null = null;
  private end = 0;
  /** The kept batches' lengths, oldest first, and their sum. */
  private lens: number[] = [];
  private total = 0;

  constructor(private readonly keepBytes: number) {}

  push(batch: OutputBatch): void {
    // A batch's parts are whole lines each: kept as batches of their own, the texts are the same.
    for (const part of batch.lines) this.keep(part);
  }

  private keep(b: Buffer): void {
    this.lens.push(b.length);
    this.total += b.length;
    while (this.lens.length > 1 && this.total - (this.lens[0] as number) >= this.keepBytes)
      this.total -= this.lens.shift() as number;
    // What stays of the bytes already kept: the last `old` of them.
    const old = this.total - b.length;
    const cap = this.buf?.length ?? 0;
    if (this.end + b.length > cap) {
      // Room at the front: move what stays there, into a larger buffer when even that is short
      // (a batch of one line longer than the buffer).
      const next =
        this.total > cap || !this.buf
          ? Buffer.allocUnsafe(Math.max(2 * this.keepBytes, this.total))
          : this.buf;
      if (this.buf && old > 0) {
        if (next === this.buf) next.copyWithin(0, this.end - old, this.end);
        else this.buf.copy(next, 0, this.end - old, this.end);
      }
      this.buf = next;
      this.end = old;
    }
    (this.buf as Buffer).set(b, this.end);
    this.end += b.length;
  }

  /** Whether no batch was pushed. */
  get empty(): boolean {
    return this.lens.length === 0;
  }

  /** The texts of the batches kept, joined with `\n`. */
  text(): string {
    const buf = this.buf;
    if (!buf) return '';
    const texts: string[] = [];
    let at = this.end - this.total;
    for (const n of this.lens) {
      texts.push(linesText(buf.subarray(at, at + n)));
      at += n;
    }
    return texts.join('\n');
  }
}
