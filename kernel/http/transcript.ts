/**
 * Reading a transcript file while it may still be written (decision 016): `offset` (bytes from
 * the start) or `tail` (the last N bytes, snapped back to a line start), never both. The body
 * always ends at the last complete line, and `X-Next-Offset` says where to continue.
 */
import type { FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { z } from 'zod';
import { recentOf } from '../proc/index.js';
import { TranscriptFiles } from './transcript-files.js';

const nonNegative = z
  .string()
  .regex(/^\d{1,15}$/, 'must be a non-negative integer')
  .transform(Number);

export const TranscriptQuerySchema = z
  .strictObject({
    offset: nonNegative
      .optional()
      .describe('Read from this byte offset: a previous answer’s next_offset (not with tail).'),
    tail: nonNegative
      .optional()
      .describe('Read the last this many bytes, from a line start (not with offset).'),
    limit: nonNegative.optional().describe('At most this many bytes in one answer.'),
  })
  .refine((q) => q.offset === undefined || q.tail === undefined, {
    message: 'give offset or tail, not both',
    path: ['tail'],
  });

export const TRANSCRIPT_PAGE = 4 * 1024 * 1024;

export interface TranscriptSlice {
  body: Buffer;
  nextOffset: number;
  size: number;
}

/** Keeps nothing: every read through it opens and closes its own handle. */
const UNKEPT = new TranscriptFiles();

/**
 * A page of the transcript as one buffer (the MCP tool, `?format=events`): `openTranscriptPage`'s
 * page with a handle of its own, the stream of a large page read whole. Read off the event loop
 * (decision 232): a client following sixteen busy transcripts reads megabytes a second.
 */
export async function readTranscript(
  path: string | null,
  q: { offset?: number; tail?: number; limit?: number },
): Promise<TranscriptSlice | null> {
  const page = await openTranscriptPage(UNKEPT, path, q, false);
  if (!page) return null;
  const body = Buffer.isBuffer(page.body) ? page.body : await buffer(page.body);
  return { body, nextOffset: page.nextOffset, size: page.size };
}

/** Pages up to this size are read into one buffer; larger ones are streamed. */
const SMALL_PAGE = 64 * 1024;
/** The slice read at a time when looking back for a page's last line end. */
const PROBE = 64 * 1024;
/** What a streamed page reads at a time. */
const STREAM_SLICE = 256 * 1024;
/** Probe buffers not in use, reused: one is held only across one read. */
const probes: Buffer[] = [];

export interface TranscriptPage {
  /** The page's bytes: a buffer for a small page, else a stream of exactly `length` bytes. */
  body: Buffer | Readable;
  length: number;
  nextOffset: number;
  size: number;
}

/**
 * The page `readTranscript` would answer, for the HTTP routes (decision 243): the same bytes,
 * offsets and size, but read through `files` (a running step's file stays open between polls)
 * and, past 64 KiB, streamed from the file to the socket rather than read into one buffer of up
 * to 4 MiB — the reply pulls the bytes as the client takes them, so a slow reader holds a
 * stream's buffer, not a page. The page's end (its last line end) is found first, reading back
 * from the end of the range a 64 KiB slice at a time; the file only grows, so the bytes before
 * it are the same when the stream reads them. A page inside the window a running step's writer
 * keeps of its last writes (decision 252) is served from that memory instead: the same bytes,
 * none of them read back.
 */
export async function openTranscriptPage(
  files: TranscriptFiles,
  path: string | null,
  q: { offset?: number; tail?: number; limit?: number },
  live: boolean,
): Promise<TranscriptPage | null> {
  if (!path) return null;
  const max = Math.min(q.limit ?? TRANSCRIPT_PAGE, TRANSCRIPT_PAGE);
  // A running step's follower is usually just behind its writer: those bytes are still in memory.
  const recent = q.tail === undefined ? recentOf(path)?.page(q.offset ?? 0, max) : null;
  if (recent) {
    const { chunks, length, nextOffset, size } = recent;
    // A small page is one buffer; a larger one is sent a slice at a time, as a page read from
    // the file is (a page of megabytes written in one go held the event loop while the socket
    // took it). A writer's chunks can be single lines (an agent's stream): slices join them.
    const body =
      length <= STREAM_SLICE
        ? chunks.length === 1
          ? (chunks[0] as Buffer)
          : Buffer.concat(chunks, length)
        : Readable.from(slices(chunks), { objectMode: false });
    return { body, length, nextOffset, size };
  }
  const lease = await files.acquire(path, live);
  if (!lease) return null;
  let handedOver = false;
  try {
    const { fh, size } = lease;
    let start = q.offset ?? 0;
    if (q.tail !== undefined) {
      start = Math.max(0, size - q.tail);
      if (start > 0) {
        const nl = await lastNewline(fh, Math.max(0, start - PROBE), start);
        start = nl >= 0 ? nl + 1 : start;
      }
    }
    if (start >= size) return { body: Buffer.alloc(0), length: 0, nextOffset: start, size };
    const rangeEnd = start + Math.min(max, size - start);
    if (rangeEnd - start <= SMALL_PAGE) {
      const buf = Buffer.allocUnsafe(rangeEnd - start);
      const { bytesRead } = await fh.read(buf, 0, buf.length, start);
      const end = buf.subarray(0, bytesRead).lastIndexOf(0x0a) + 1;
      return { body: buf.subarray(0, end), length: end, nextOffset: start + end, size };
    }
    let end = start;
    for (let to = rangeEnd; to > start; to -= PROBE) {
      const from = Math.max(start, to - PROBE);
      const nl = await lastNewline(fh, from, to);
      if (nl >= 0) {
        end = nl + 1;
        break;
      }
    }
    if (end === start) return { body: Buffer.alloc(0), length: 0, nextOffset: start, size };
    const stream = new RangeStream(fh, start, end);
    stream.once('close', lease.release);
    handedOver = true;
    return { body: stream, length: end - start, nextOffset: end, size };
  } finally {
    if (!handedOver) lease.release();
  }
}

/** The bytes of `chunks` in pieces of at most `STREAM_SLICE`: large chunks cut, small ones joined. */
function* slices(chunks: Buffer[]): Generator<Buffer> {
  let group: Buffer[] = [];
  let bytes = 0;
  for (const c of chunks) {
    for (let at = 0; at < c.length; at += STREAM_SLICE) {
      const piece = c.subarray(at, at + STREAM_SLICE);
      if (bytes + piece.length > STREAM_SLICE) {
        yield group.length === 1 ? (group[0] as Buffer) : Buffer.concat(group, bytes);
        group = [];
        bytes = 0;
      }
      group.push(piece);
      bytes += piece.length;
    }
  }
  if (bytes > 0) yield group.length === 1 ? (group[0] as Buffer) : Buffer.concat(group, bytes);
}

/** The offset of the last `\n` in [from, to) of the file, or -1. */
async function lastNewline(fh: FileHandle, from: number, to: number): Promise<number> {
  const probe = probes.pop() ?? Buffer.allocUnsafeSlow(PROBE);
  try {
    const { bytesRead } = await fh.read(probe, 0, to - from, from);
    const i = probe.subarray(0, bytesRead).lastIndexOf(0x0a);
    return i >= 0 ? from + i : -1;
  } finally {
    if (probes.length < 8) probes.push(probe);
  }
}

/**
 * The bytes [from, to) of an open file, read a slice at a time as the reader asks. Not
 * `fs.createReadStream({ fd })`: destroying one (a client that goes away) closes its descriptor,
 * autoClose or not, and this one is shared with the next poll.
 */
class RangeStream extends Readable {
  private pos: number;
  private reading: Promise<unknown> | null = null;

  constructor(
    private readonly fh: FileHandle,
    from: number,
    private readonly to: number,
  ) {
    super({ highWaterMark: STREAM_SLICE });
    this.pos = from;
  }

  override _read(): void {
    const n = Math.min(STREAM_SLICE, this.to - this.pos);
    if (n <= 0) {
      this.push(null);
      return;
    }
    const buf = Buffer.allocUnsafeSlow(n);
    const read = this.fh.read(buf, 0, n, this.pos);
    this.reading = read;
    read.then(
      ({ bytesRead }) => {
        this.reading = null;
        if (this.destroyed) return;
        // The file shrank under the page (it only grows): end short rather than read on.
        if (bytesRead === 0) {
          this.destroy(new Error('transcript shrank while read'));
          return;
        }
        this.pos += bytesRead;
        this.push(bytesRead === n ? buf : buf.subarray(0, bytesRead));
      },
      (err: Error) => {
        this.reading = null;
        this.destroy(err);
      },
    );
  }

  override _destroy(err: Error | null, cb: (err: Error | null) => void): void {
    // The lease is released on 'close': no read may still be using the handle then.
    if (!this.reading) {
      cb(err);
      return;
    }
    this.reading.then(
      () => cb(err),
      () => cb(err),
    );
  }
}
