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
 * The texts are written into one scratch buffer kept between bodies, then copied once into a body
 * of the exact size: fresh memory for every chunk of every body cost more in page faults than
 * writing the texts (decision 244).
 */

/** `fill(push)` pushes each element's `JSON.stringify`, synchronously; returns the array's bytes. */
export function jsonArrayBody(fill: (push: (text: string) => void) => void): Buffer {
  // A body built while another is being built (never, today) gets a scratch of its own.
  const own = !building;
  const writer = own ? shared : new Writer(Buffer.allocUnsafeSlow(FIRST_SCRATCH));
  building = true;
  try {
    fill(writer.push);
    return writer.finish();
  } finally {
    if (own) {
      building = false;
      // Kept for the next body unless one unusually large body grew it.
      if (writer.buf.length > KEPT_SCRATCH) writer.buf = Buffer.allocUnsafeSlow(FIRST_SCRATCH);
      writer.reset();
    }
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

  finish(): Buffer {
    if (this.count === 0) return Buffer.from('[]');
    this.buf[this.at++] = 0x5d; // ] (push left room for it)
    const body = Buffer.allocUnsafe(this.at);
    this.buf.copy(body, 0, 0, this.at);
    return body;
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
const shared = new Writer(Buffer.allocUnsafeSlow(FIRST_SCRATCH));
let building = false;

/** The content type fastify gives a JSON answer; a Buffer body has to say it itself. */
export const JSON_UTF8 = 'application/json; charset=utf-8';
