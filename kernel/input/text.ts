/**
 * What a person's text may hold, checked where it enters (decision 186):
 *   - text (titles, descriptions, prompts, field values, messages): no NUL and no control
 *     character but tab, line feed and carriage return;
 *   - a line (names, paths, branch names): no control character at all;
 *   - a task field name: letters, digits, `_`, `-` and `.`, starting with a letter, digit or `_`
 *     — a grammar in which no name is shell syntax, a template action or a path;
 * An error message quotes at most 200 bytes of any input (kernel/input/echo.ts, decision 189).
 */
import { clipInput } from '../../lib/clip.js';

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
