/**
 * The end of a process's output, for a step's result (`tail`, `stderr_tail`), kept as the bytes
 * the lines came from and decoded only when the process has ended (issue 22 point 4, decision
 * 246). Keeping the last chunks' texts instead meant every running process held two or three
 * strings of 64 KiB alive across garbage collections: under the daemon's 2 MiB young generation
 * (`--max-semi-space-size=2`) each scavenge copied them, a few milliseconds each, hundreds of times
 * a run. Bytes live outside the JavaScript heap and cost a scavenge nothing.
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
 * The last batches of output, at least `keepBytes` of their bytes. A UTF-8 byte sequence gives
 * at least one UTF-16 unit per three bytes (an invalid one at least one per two), so the texts of
 * the batches kept hold at least `keepBytes / 3` units: a caller that needs the last n units of
 * the whole output keeps 3n bytes.
 */
export class OutputTail {
  private parts: Buffer[] = [];
  private length = 0;

  constructor(private readonly keepBytes: number) {}

  push(batch: OutputBatch): void {
    this.parts.push(batch.lines);
    this.length += batch.lines.length;
    while (
      this.parts.length > 1 &&
      this.length - (this.parts[0] as Buffer).length >= this.keepBytes
    )
      this.length -= (this.parts.shift() as Buffer).length;
  }

  /** Whether no batch was pushed. */
  get empty(): boolean {
    return this.parts.length === 0;
  }

  /** The texts of the batches kept, joined with `\n`. */
  text(): string {
    return this.parts.map(linesText).join('\n');
  }
}
