/** Colours per tone, one place so the board, detail and badges agree. */
import type { Tone } from '../cells.js';

export const TONE_COLOR: Record<Tone, string | undefined> = {
  normal: undefined,
  good: 'green',
  warn: 'yellow',
  bad: 'red',
  muted: 'gray',
  accent: 'cyan',
};
