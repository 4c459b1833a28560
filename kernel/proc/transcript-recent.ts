/**
 * The last bytes a transcript writer put on disk, kept in memory for its followers (issue 22
 * point 4, decision 252). A client following a running step asks for the next page every few
 * milliseconds, almost always for what was written a moment ago: reading it back from the file
 * cost a stat and a read on the thread pool per page, and a fresh buffer per slice, for bytes the
 * daemon still held. The writer appends each write's buffers once they are on disk; a follower
 * whose offset falls inside the window gets views of them, and anyone else reads the file.
 */

/** At most this much is kept for followers: the longest page (`TRANSCRIPT_PAGE`). */
const RECENT_BYTES = 4 * 1024 * 1024;

const NL = 0x0a;

/** A page of whole lines: the buffers to send, back to back, and where the next page starts. */
export interface RecentPage {
  chunks: Buffer[];
  length: number;
  nextOffset: number;
  /** The bytes on disk, as far as the writer knows (the file's size once its writes are in). */
  size: number;
}

/**
 * What a transcript's last writes put on disk, from where its follower last asked. Nothing is
 * kept until a follower asks (most steps have none) and nothing below its last offset once it
 * has, so what is held is the follower's lag: at most `max` bytes, the oldest going first. A
 * follower that falls further behind, or one reading from the start, reads the file until it
 * catches up; one that stops asking is forgotten once `2 × max` more bytes were written.
 */
export class RecentBytes {
  private chunks: Buffer[] = [];
  /** File offset of `chunks[0]`'s first byte, and of the byte after the last chunk. */
  private start: number;
  private end: number;
  /** Where the last follower asked from; null while nobody follows. */
  private floor: number | null = null;
  /** Bytes written since a follower last asked. */
  private unasked = 0;

  /** `at`: the file's size when the writer opened it (its first byte goes there). */
  constructor(
    at: number,
    private readonly max: number = RECENT_BYTES,
  ) {
    this.start = at;
    this.end = at;
  }

  /** Bytes held now. */
  get held(): number {
    return this.end - this.start;
  }

  /** Bytes just written, at the end of the file: whole lines, in order. */
  append(written: Buffer[]): void {
    for (const b of written) {
      this.end += b.length;
      this.unasked += b.length;
      if (this.floor !== null && b.length > 0) this.chunks.push(b);
    }
    // Twice the bound written and not asked for: nobody is following any more.
    if (this.floor !== null && this.unasked > 2 * this.max) this.floor = null;
    this.trim();
  }

  /**
   * The page from `offset`, at most `limit` bytes, ending at its last line end — exactly what
   * reading the file would give — or null when `offset` is not in the window (read the file).
   * Asking is what makes the window keep the bytes written after `offset`.
   */
  page(offset: number, limit: number): RecentPage | null {
    if (offset > this.end) return null;
    this.floor = offset;
    this.unasked = 0;
    this.trim();
    if (offset < this.start) return null;
    const out: Buffer[] = [];
    let length = 0;
    let at = this.start;
    for (const c of this.chunks) {
      const from = Math.max(0, offset - at);
      at += c.length;
      if (from >= c.length) continue;
      const room = limit - length;
      if (c.length - from <= room) {
        out.push(from === 0 ? c : c.subarray(from));
        length += c.length - from;
        if (length === limit) break;
        continue;
      }
      // The chunk does not fit: its part up to the last line end within the limit, if any.
      const cut = c.subarray(from, from + room).lastIndexOf(NL) + 1;
      if (cut > 0) {
        out.push(c.subarray(from, from + cut));
        length += cut;
      }
      break;
    }
    return { chunks: out, length, nextOffset: offset + length, size: this.end };
  }

  /** Drops what no follower needs: all of it while nobody follows, else below the floor or past `max`. */
  private trim(): void {
    const floor = this.floor ?? this.end;
    for (;;) {
      const first = this.chunks[0];
      if (!first) break;
      const firstEnd = this.start + first.length;
      if (firstEnd > floor && this.end - this.start <= this.max) break;
      this.chunks.shift();
      this.start = firstEnd;
    }
    if (this.chunks.length === 0) this.start = this.end;
  }
}

/** The windows of the writers open now, by path: where a running step's page is looked for first. */
const open = new Map<string, RecentBytes>();

/** The window of the writer writing `path`, when one is open. */
export function recentOf(path: string): RecentBytes | null {
  return open.get(path) ?? null;
}

/** Called by a writer once its file is open: `path`'s pages may come from `w` until the returned call. */
export function registerWindow(path: string, w: RecentBytes): () => void {
  open.set(path, w);
  return () => {
    if (open.get(path) === w) open.delete(path);
  };
}
