/**
 * What a person's text may hold, checked where it enters (decision 186), and how much of it an
 * error message may quote back (decision 189):
 *   - text (titles, descriptions, prompts, field values, messages): no NUL and no control
 *     character but tab, line feed and carriage return;
 *   - a line (names, paths, branch names): no control character at all;
 *   - a task field name: letters, digits, `_`, `-` and `.`, starting with a letter, digit or `_`
 *     — a grammar in which no name is shell syntax, a template action or a path;
 *   - an error message quotes at most 200 bytes of any input.
 */

export type TextKind = 'text' | 'line';

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const TEXT_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const LINE_CONTROL = /[\u0000-\u001f\u007f]/;

const codePoint = (c: string) =>
  `U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * Why `s` is not acceptable as `kind`, as a phrase following the field's name ("contains NUL
 * (U+0000) at byte 3"), or null.
 */
export function controlProblem(s: string, kind: TextKind): string | null {
  const m = (kind === 'text' ? TEXT_CONTROL : LINE_CONTROL).exec(s);
  if (!m) return null;
  const at = Buffer.byteLength(s.slice(0, m.index));
  const what = m[0] === '\u0000' ? 'NUL' : 'a control character';
  const allowed = kind === 'text' ? '; tab and line breaks are fine' : '';
  return `contains ${what} (${codePoint(m[0])}) at byte ${at}${allowed}`;
}

export const FIELD_NAME_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;
export const FIELD_NAME_RULE =
  'letters, digits, "_", "-" and ".", starting with a letter, a digit or "_"';

/** Why `name` is not a task field name, or null. */
export function fieldNameProblem(name: string): string | null {
  if (FIELD_NAME_PATTERN.test(name)) return null;
  return `field name ${clipInput(name, 64)} is not allowed: a field name has only ${FIELD_NAME_RULE}`;
}

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
