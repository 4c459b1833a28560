/**
 * How much of a client's input an error message may quote back: at most 200 bytes (issue 17,
 * decision 189) — a 6 KB path or header is cut and its length said. A leaf with no imports, so
 * every room (validation, YAML edits, HTTP) can use it without an import circle.
 */

/** Error messages quote at most this many bytes of an input. */
export const ECHO_BYTES = 200;

function cut(s: string, max: number): string {
  let out = '';
  let used = 0;
  for (const ch of s) {
    const n = Buffer.byteLength(ch);
    if (used + n > max) break;
    out += ch;
    used += n;
  }
  return out;
}

/**
 * `s` quoted as JSON for a message, cut to `max` bytes (on a character boundary) with the full
 * length said, so a 6 KB header is never echoed whole.
 */
export function clipInput(s: string, max = ECHO_BYTES): string {
  const bytes = Buffer.byteLength(s);
  return bytes <= max ? JSON.stringify(s) : `${JSON.stringify(cut(s, max))}… (${bytes} bytes)`;
}

/** `s` as it is when short, else its first `max` bytes and the full length (paths in messages). */
export function clipText(s: string, max = ECHO_BYTES): string {
  const bytes = Buffer.byteLength(s);
  return bytes <= max ? s : `${cut(s, max)}… (${bytes} bytes)`;
}

/**
 * `message` with every long input in `inputs` (and every long `/`- or `.`-separated part of one)
 * cut as clipText cuts it, for messages built deep inside a room from a client's keys and paths.
 */
export function clipEchoes(message: string, inputs: readonly string[]): string {
  const long = new Set<string>();
  for (const input of inputs) {
    if (Buffer.byteLength(input) > ECHO_BYTES) long.add(input);
    for (const part of input.split(/[./]/))
      if (Buffer.byteLength(part) > ECHO_BYTES) long.add(part);
  }
  let out = message;
  // Longest first, so a whole path is cut before the key inside it.
  for (const s of [...long].sort((a, b) => b.length - a.length))
    out = out.split(s).join(clipText(s));
  return out;
}
