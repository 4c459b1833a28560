/**
 * A large JSON array as one body Buffer, built from its elements' texts as they come (issue 22
 * point 3, decisions 237 and 244).
 *
 * `JSON.stringify` of a whole page of list rows is quick, but what it returns is a rope of parts,
 * and a single character beyond Latin-1 anywhere (an em dash in one status line) makes the rest of
 * it two-byte: fastify's `Buffer.byteLength` then flattens ~1 MB of it and the write encodes it
 * again, three times the stringify itself. Rows stringified one by one stay flat and one-byte
 * where they can, and each is UTF-8 encoded at once into memory outside the JavaScript heap, so
 * neither the row nor its text outlives the daemon's small young generation (decision 244). The
 * bytes are `JSON.stringify(rows)`'s (test/integration/http/list-body.test.ts).
 *
 * The texts are written into a scratch buffer kept between bodies (fresh memory for every chunk of
 * every body cost more in page faults than writing the texts, decision 244), and the body is sent
 * straight from it: copying a page of 1,000 rows into a fresh body of its exact size cost a third
 * of the page's time on a host where fresh memory is slow (decision 250). The scratch goes back to
 * the pool once the response has handed its bytes to the operating system.
 */

/** A body and what gives its memory back once the socket has taken it. */
export interface ArrayBody {
  bytes: Buffer;
  /**
   * Hands the memory under `bytes` to the next body; call it once nothing reads `bytes` any more
   * (the response's `finish`). Never called (an aborted response), the memory is simply collected.
   */
  release(): void;
}

/**
 * `fill(push)` pushes each element's `JSON.stringify`, synchronously; returns the array's bytes,
 * in a scratch of their own until `release`. A body built while another is still held (being
 * written to a slow socket) gets a scratch of its own.
 */
export function jsonArrayBody(fill: (push: (text: string) => void) => void): ArrayBody {
  const writer = pool.pop() ?? new Writer(Buffer.allocUnsafeSlow(FIRST_SCRATCH));
  let done = false;
  const release = () => {
    if (done) return;
    done = true;
    // Kept for the next body unless one unusually large body grew it.
    if (writer.buf.length > KEPT_SCRATCH || pool.length >= KEPT_WRITERS) return;
    writer.reset();
    pool.push(writer);
  };
  try {
    fill(writer.push);
    return { bytes: writer.finish(), release };
  } catch (err) {
    release();
    throw err;
  }
}

class Writer {
  private at = 0;
  private count = 0;

  constructor(public buf: Buffer) {}

  readonly push = (text: string): void => {
    // A comma or the opening bracket, then the text: at most three bytes a UTF-16 unit.
    if (this.buf.length - this.at < text.length * 3 + 2)
      this.grow(this.at + Buffer.byteLength(text) + 2);
    this.buf[this.at++] = this.count++ === 0 ? 0x5b : 0x2c; // [ or ,
    this.at += this.buf.write(text, this.at);
  };

  /** The bytes written, as a view of the scratch: no copy into fresh memory (decision 250). */
  finish(): Buffer {
    if (this.count === 0) return Buffer.from('[]');
    this.buf[this.at++] = 0x5d; // ] (push left room for it)
    return this.buf.subarray(0, this.at);
  }

  reset(): void {
    this.at = 0;
    this.count = 0;
  }

  private grow(atLeast: number): void {
    if (atLeast <= this.buf.length) return;
    const next = Buffer.allocUnsafeSlow(Math.max(atLeast, this.buf.length * 2));
    this.buf.copy(next, 0, 0, this.at);
    this.buf = next;
  }
}

/** A first page of 100 rows fits the first scratch; a page of 1,000 (~1.2 MB) grows it once. */
const FIRST_SCRATCH = 256 * 1024;
/** Larger than a page of 1,000 typical rows; a scratch grown beyond it is not kept. */
const KEPT_SCRATCH = 4 * 1024 * 1024;
/** Scratches kept for bodies to come: one being sent while the next is built, and a spare. */
const KEPT_WRITERS = 2;
const pool: Writer[] = [];

/** The content type fastify gives a JSON answer; a Buffer body has to say it itself. */
export const JSON_UTF8 = 'application/json; charset=utf-8';
