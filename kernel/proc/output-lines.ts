/**
 * Command output as transcript lines, a chunk at a time (issue 22 point 4, decision 232). Each
 * output line becomes `{"type":"svc.output","ts":…,"phase":…,"stream":…,"text":…}` exactly as
 * `JSON.stringify` of that object spells it — the transcript format is unchanged — but a whole
 * chunk of lines is escaped and framed by a few native string operations instead of one
 * decode, one object and one `JSON.stringify` per line, and the caller writes the chunk's lines
 * as one buffer.
 *
 * What a line's text is stays exactly what it was when lines were split from a streaming
 * `TextDecoder`: bytes are split on `\n` (no UTF-8 sequence contains that byte, so splitting bytes
 * first and decoding each line gives the same text, invalid sequences included, each replaced by
 * U+FFFD), one trailing `\r` is dropped from each complete line, a byte-order mark is dropped
 * only at the very start of the stream, and a last line without `\n` is given at `end()` as it
 * stands (no `\r` dropped), unless it is empty.
 */
import { isAscii, isUtf8 } from 'node:buffer';
import { needsJsonEscape } from './json-clean.js';

const NL = 0x0a;
const BACKSLASH = 0x5c;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

export interface OutputBatch {
  /** The transcript lines, each ending in `\n`. */
  bytes: Buffer;
  /**
   * The lines' texts joined with `\n` (live output). A batch framed from its bytes decodes this
   * when it is first read (decision 251).
   */
  readonly text: string;
  /**
   * The output bytes those texts were decoded from, a byte-order mark at the stream's start
   * dropped: one or two parts of whole lines — the line this chunk finished, begun in earlier
   * chunks, then the chunk's own lines (decision 254) — and `linesText(lines)` is `text` again.
   * A result tail keeps these instead of the texts (output-tail.ts).
   */
  lines: readonly Buffer[];
}

const fallback = new TextDecoder('utf-8', { ignoreBOM: true });

/** Output bytes as text: latin1 when ASCII, UTF-8 when valid, else with U+FFFD replacements. */
function decodeBytes(b: Buffer): string {
  if (isAscii(b)) return b.toString('latin1');
  if (isUtf8(b)) return b.toString('utf8');
  return fallback.decode(b);
}

/**
 * The texts of an `OutputBatch`'s `lines`, joined with `\n`, exactly as the batch gave them: one
 * `\r` dropped before each `\n`, the last `\n` dropped. A last line given at `end()` has no `\n`
 * and keeps its `\r`. Parts are whole lines, so each is decoded on its own.
 */
export function linesText(lines: Buffer | readonly Buffer[]): string {
  if (!Buffer.isBuffer(lines)) return lines.map((part) => partText(part)).join('\n');
  return partText(lines);
}

function partText(lines: Buffer): string {
  const decoded = decodeBytes(lines);
  const joined = decoded.includes('\r') ? decoded.replaceAll('\r\n', '\n') : decoded;
  return joined.endsWith('\n') ? joined.slice(0, -1) : joined;
}

/** `{"type":"svc.output","ts":"<ts>","phase":<phase>,"stream":<stream>,"text":` as JSON.stringify spells it. */
function head(ts: string, phase: string, stream: string): string {
  return `{"type":"svc.output","ts":${JSON.stringify(ts)},"phase":${JSON.stringify(phase)},"stream":${JSON.stringify(stream)},"text":`;
}

/** Splits one stream's bytes into transcript lines; partial lines wait for the rest. */
export class OutputLines {
  private rest: Buffer | null = null;
  private atStart = true;

  constructor(
    private readonly phase: string,
    private readonly stream: string,
  ) {}

  /** The complete lines this chunk finishes (null when it finishes none), stamped `ts`. */
  push(chunk: Buffer, ts: string): OutputBatch | null {
    const last = chunk.lastIndexOf(NL);
    if (last < 0) {
      // Copied: the chunk may be a view of a read buffer used again (decision 254).
      this.rest = this.rest ? Buffer.concat([this.rest, chunk]) : Buffer.from(chunk);
      return null;
    }
    // Only the line begun in earlier chunks is joined; the chunk's own lines are framed where
    // they lie, not copied into a buffer of the whole chunk first (decision 254).
    let first: Buffer | null = null;
    let from = 0;
    if (this.rest) {
      const nl = chunk.indexOf(NL);
      first = Buffer.concat([this.rest, chunk.subarray(0, nl + 1)]);
      from = nl + 1;
      this.rest = null;
    }
    if (last + 1 < chunk.length) this.rest = Buffer.from(chunk.subarray(last + 1));
    const own = chunk.subarray(from, last + 1);
    if (!first) return this.encode([own], ts);
    return this.encode(own.length > 0 ? [first, own] : [first], ts);
  }

  /** The last line, when the stream ended without a newline after it. */
  end(ts: string): OutputBatch | null {
    const rest = this.rest;
    this.rest = null;
    if (!rest || rest.length === 0) return null;
    const lines = this.atStart && rest.subarray(0, 3).equals(BOM) ? rest.subarray(3) : rest;
    const text = this.decode(rest);
    if (text === '') return null;
    const line = `${head(ts, this.phase, this.stream)}${JSON.stringify(text)}}\n`;
    return { bytes: Buffer.from(line), text, lines: [lines] };
  }

  /** Decodes bytes of whole lines as the streaming decoder did; drops a leading BOM once. */
  private decode(bytes: Buffer): string {
    let b = bytes;
    if (this.atStart) {
      this.atStart = false;
      if (b.subarray(0, 3).equals(BOM)) b = b.subarray(3);
    }
    return decodeBytes(b);
  }

  /** `parts`: whole lines, each part's last one ending in `\n`; the first part never empty. */
  private encode(parts: Buffer[], ts: string): OutputBatch {
    const lead = parts[0] as Buffer;
    if (this.atStart && lead.subarray(0, 3).equals(BOM)) parts[0] = lead.subarray(3);
    this.atStart = false;
    const h = head(ts, this.phase, this.stream);
    // Typical output (logs, base64, build chatter) is framed from its bytes, never decoded: the
    // text is made only if asked for (a live follower), from the same bytes (decision 251).
    if (parts.every(isClean)) {
      let text: string | null = null;
      return {
        bytes: frameClean(parts, h),
        lines: parts,
        get text() {
          text ??= linesText(parts);
          return text;
        },
      };
    }
    const region = parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts);
    const decoded = decodeBytes(region);
    // Lines' texts: one trailing \r dropped from each (`x\r\r\n` keeps one \r).
    const joined = decoded.includes('\r') ? decoded.replaceAll('\r\n', '\n') : decoded;
    const text = joined.slice(0, -1);
    let out: string;
    if (region.indexOf(BACKSLASH) < 0) {
      // Without a backslash in the text, every `\n` in its JSON escape is one of its newlines, so
      // the whole chunk is escaped by one JSON.stringify and cut into lines there.
      out = `${h}${JSON.stringify(text).replaceAll('\\n', `"}\n${h}"`)}}\n`;
    } else {
      out = '';
      for (const line of text.split('\n')) out += `${h}${JSON.stringify(line)}}\n`;
    }
    return { bytes: Buffer.from(out), text, lines: [region] };
  }
}

/** Whole lines of valid UTF-8 whose texts need no JSON escaping: framed as bytes. */
function isClean(lines: Buffer): boolean {
  return (isAscii(lines) || isUtf8(lines)) && !needsJsonEscape(lines);
}

const CR = 0x0d;
const TAIL = Buffer.from('"}\n');
/** Line ends of the chunk being framed, reused from chunk to chunk. */
let ends = new Int32Array(2048);

/**
 * The transcript lines of `parts` (whole lines of valid UTF-8 whose texts need no JSON escaping)
 * framed as bytes into one buffer, without building a string or joining the parts. Such a line is
 * its own JSON string body, byte for byte: `JSON.stringify` escapes nothing but `"`, `\` and
 * control characters in well-formed text (U+2028, DEL and C1 controls pass through), and the one
 * `\r` dropped before each `\n` is skipped. So each line is `head` + `"` + its bytes + `"}\n`,
 * copied. This is the path typical output (logs, base64, build chatter) takes: the string path
 * made and flattened a rope of the whole chunk's JSON and encoded it again, four times the work
 * for base64 lines (issue 22 point 4, decision 239).
 */
function frameClean(parts: readonly Buffer[], head: string): Buffer {
  // One pass finds the line ends; the copy pass then reads them back from `ends`.
  let count = 0;
  let crs = 0;
  let size = 0;
  for (const lines of parts) {
    size += lines.length;
    for (let nl = lines.indexOf(NL); nl >= 0; nl = lines.indexOf(NL, nl + 1)) {
      if (count === ends.length) {
        const grown = new Int32Array(count * 2);
        grown.set(ends);
        ends = grown;
      }
      ends[count++] = nl;
      if (nl > 0 && lines[nl - 1] === CR) crs++;
    }
  }
  // A line's end and the next line's head are one copy: `"}\n{"type":…,"text":"`.
  const joint = Buffer.from(`"}\n${head}"`);
  const out = Buffer.allocUnsafe(size - count - crs + count * joint.length);
  out.set(joint.subarray(TAIL.length), 0);
  let at = joint.length - TAIL.length;
  let i = 0;
  for (const lines of parts) {
    // Each part ends in `\n`: its lines are the next ends, up to its last byte.
    for (let from = 0; from < lines.length; i++) {
      const nl = ends[i] as number;
      const end = nl > from && lines[nl - 1] === CR ? nl - 1 : nl;
      out.set(lines.subarray(from, end), at);
      at += end - from;
      const sep = i + 1 < count ? joint : TAIL;
      out.set(sep, at);
      at += sep.length;
      from = nl + 1;
    }
  }
  return out;
}
