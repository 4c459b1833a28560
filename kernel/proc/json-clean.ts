/**
 * Whether output lines can be framed as JSON strings byte for byte (issue 22 point 4, decision
 * 251). A line of valid UTF-8 is its own JSON string body unless it holds a byte JSON.stringify
 * escapes: a control character (below 0x20), `"` or `\`. The scan reads four bytes at a time
 * and looks at single bytes only in a word that may hold one of them (every line end does):
 * about 1 ms a megabyte here, where decoding the bytes to a string and testing it with a regular
 * expression took 3–4 ms and left a string of every chunk for the collector.
 */

const NL = 0x0a;
const CR = 0x0d;

/** Whether byte `i` of `b` (of `n`) may stand in a line's JSON body as it is. */
function plain(b: Uint8Array, i: number, n: number): boolean {
  const c = b[i] as number;
  if (c === NL) return true;
  // One \r before each \n is dropped from the line's text; any other \r is escaped.
  if (c === CR) return i + 1 < n && b[i + 1] === NL;
  return c >= 0x20 && c !== 0x22 && c !== 0x5c;
}

/**
 * True when some line of `lines` (valid UTF-8, lines ending in `\n`, one `\r` before each `\n`
 * dropped) holds a byte JSON.stringify would escape. Bytes of 0x80 and above never need it in
 * valid UTF-8, and U+2028, DEL and C1 controls pass through JSON.stringify as they are.
 */
export function needsJsonEscape(lines: Uint8Array): boolean {
  const n = lines.length;
  const off = lines.byteOffset;
  // Single bytes up to a four-byte boundary of the underlying memory, then whole words.
  const head = Math.min(n, (4 - (off & 3)) & 3);
  let i = 0;
  for (; i < head; i++) if (!plain(lines, i, n)) return true;
  // A short run may end before the boundary: no words then (and no view at an odd offset).
  const words = head < n ? (n - head) >>> 2 : 0;
  const w32 = new Int32Array(lines.buffer, words > 0 ? off + i : 0, words);
  for (let k = 0; k < words; k++) {
    const w = w32[k] as number;
    const q = w ^ 0x22222222;
    const s = w ^ 0x5c5c5c5c;
    // Nonzero exactly when a byte is below 0x20, is 0x22 or is 0x5c (bit-twiddling's
    // "has less than" and "has zero byte"; a byte of 0x80 and above never sets its own flag).
    const flags = ((w - 0x20202020) & ~w) | ((q - 0x01010101) & ~q) | ((s - 0x01010101) & ~s) | 0;
    if ((flags & 0x80808080) !== 0) {
      const at = i + 4 * k;
      for (let j = at; j < at + 4; j++) if (!plain(lines, j, n)) return true;
    }
  }
  for (i += 4 * words; i < n; i++) if (!plain(lines, i, n)) return true;
  return false;
}
