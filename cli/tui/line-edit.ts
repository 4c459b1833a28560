/**
 * One line of text being typed (prompts, form fields): insert, delete, move, and paste arriving
 * as one chunk. Pure, so every editing key is unit-tested without a terminal.
 */
import type { Keystroke } from './keys.js';

export interface Line {
  value: string;
  /** Cursor position in code points. */
  cursor: number;
}

export const emptyLine = (value = ''): Line => ({ value, cursor: [...value].length });

export type EditResult = { kind: 'edit'; line: Line } | { kind: 'submit' } | { kind: 'cancel' };

/** Applies one keystroke. Enter submits, escape cancels; other control keys are ignored. */
export function editLine(line: Line, { input, key }: Keystroke): EditResult {
  const chars = [...line.value];
  const at = Math.min(line.cursor, chars.length);
  if (key.return) return { kind: 'submit' };
  if (key.escape) return { kind: 'cancel' };
  if (key.leftArrow) return { kind: 'edit', line: { ...line, cursor: Math.max(0, at - 1) } };
  if (key.rightArrow)
    return { kind: 'edit', line: { ...line, cursor: Math.min(chars.length, at + 1) } };
  if (key.home || (key.ctrl && input === 'a'))
    return { kind: 'edit', line: { ...line, cursor: 0 } };
  if (key.end || (key.ctrl && input === 'e'))
    return { kind: 'edit', line: { ...line, cursor: chars.length } };
  if (key.ctrl && input === 'u') return { kind: 'edit', line: { value: '', cursor: 0 } };
  // Terminals send DEL (0x7f) for the backspace key, which Ink reports as `delete`.
  if (key.backspace || key.delete) {
    if (at === 0) return { kind: 'edit', line };
    chars.splice(at - 1, 1);
    return { kind: 'edit', line: { value: chars.join(''), cursor: at - 1 } };
  }
  if (key.ctrl || key.meta || key.tab || key.upArrow || key.downArrow || !input)
    return { kind: 'edit', line };
  // A paste arrives as one chunk; newlines would end the line, so they become spaces.
  const typed = [...input.replace(/\r?\n/g, ' ')].filter((c) => c >= ' ');
  chars.splice(at, 0, ...typed);
  return { kind: 'edit', line: { value: chars.join(''), cursor: at + typed.length } };
}

/** The line split around the cursor, for drawing an inverse-video cursor cell. */
export function cursorParts(line: Line): { before: string; at: string; after: string } {
  const chars = [...line.value];
  const i = Math.min(line.cursor, chars.length);
  return {
    before: chars.slice(0, i).join(''),
    at: chars[i] ?? ' ',
    after: chars.slice(i + 1).join(''),
  };
}
