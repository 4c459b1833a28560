/**
 * A large JSON array as one body Buffer, built from its rows' texts (issue 22 point 3, decision
 * 237).
 *
 * `JSON.stringify` of a whole page of list rows is quick, but what it returns is a rope of parts,
 * and a single character beyond Latin-1 anywhere (an em dash in one status line) makes the rest of
 * it two-byte: fastify's `Buffer.byteLength` then flattens ~1 MB of it and the write encodes it
 * again, three times the stringify itself. Rows stringified one by one stay flat and one-byte
 * where they can, and are UTF-8 encoded once into a buffer of the exact size. The bytes are
 * `JSON.stringify(rows)`'s (test/integration/http/list-body.test.ts).
 *
 * `texts`: each element's `JSON.stringify`.
 */
export function jsonArrayOfTexts(texts: readonly string[]): Buffer {
  let bytes = texts.length > 0 ? texts.length + 1 : 2; // the brackets and the commas between rows
  for (const text of texts) bytes += Buffer.byteLength(text);
  const buf = Buffer.allocUnsafe(bytes);
  let at = 0;
  buf[at++] = 0x5b; // [
  for (let i = 0; i < texts.length; i++) {
    if (i > 0) buf[at++] = 0x2c; // ,
    at += buf.write(texts[i] as string, at);
  }
  buf[at++] = 0x5d; // ]
  return buf;
}

/** The content type fastify gives a JSON answer; a Buffer body has to say it itself. */
export const JSON_UTF8 = 'application/json; charset=utf-8';
