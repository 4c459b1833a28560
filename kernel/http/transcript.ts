/**
 * Reading a transcript file while it may still be written (decision 016): `offset` (bytes from
 * the start) or `tail` (the last N bytes, snapped back to a line start), never both. The body
 * always ends at the last complete line, and `X-Next-Offset` says where to continue.
 */
import { type FileHandle, open } from 'node:fs/promises';
import { z } from 'zod';

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

/**
 * A page of the transcript, read off the event loop (decision 232): a client following sixteen
 * busy transcripts reads megabytes a second, which synchronous reads made everyone else wait for.
 */
export async function readTranscript(
  path: string | null,
  q: { offset?: number; tail?: number; limit?: number },
): Promise<TranscriptSlice | null> {
  if (!path) return null;
  let fh: FileHandle;
  try {
    fh = await open(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  try {
    const size = (await fh.stat()).size;
    const max = Math.min(q.limit ?? TRANSCRIPT_PAGE, TRANSCRIPT_PAGE);
    let start = q.offset ?? 0;
    if (q.tail !== undefined) {
      start = Math.max(0, size - q.tail);
      if (start > 0) {
        // Snap back to the start of the line the tail begins in.
        const probe = Buffer.alloc(Math.min(start, 64 * 1024));
        const { bytesRead } = await fh.read(probe, 0, probe.length, start - probe.length);
        const nl = probe.subarray(0, bytesRead).lastIndexOf(0x0a);
        start = nl >= 0 ? start - probe.length + nl + 1 : start;
      }
    }
    if (start >= size) return { body: Buffer.alloc(0), nextOffset: Math.max(start, 0), size };
    const buf = Buffer.allocUnsafe(Math.min(max, size - start));
    const { bytesRead } = await fh.read(buf, 0, buf.length, start);
    const lastNl = buf.subarray(0, bytesRead).lastIndexOf(0x0a);
    const end = lastNl >= 0 ? lastNl + 1 : 0;
    return { body: buf.subarray(0, end), nextOffset: start + end, size };
  } finally {
    await fh.close();
  }
}
