import type { Entry } from './entries.js';
import { EditFailure } from './finding.js';
import type { SourceDoc } from './source-doc.js';

// `- id: a` puts a mapping's first key on its parent's dash line. Edits that touch that first
// entry (remove it, insert before it, move it) run on a copy where it has its own line, and the
// line is joined back afterwards when what follows can sit there.

/** A compact first entry (`- id: a`) moved onto its own line so it can be edited like the rest. */
export interface CompactSplit {
  text: string;
  /** Just past the parent's `-`: where the line was broken. */
  at: number;
  /** What stood between the `-` and the entry (normally one space). */
  gap: string;
  column: number;
}

export function splitCompact(source: SourceDoc, entry: Entry): CompactSplit {
  const { text, table, eol } = source;
  const lineStart = table.line(entry.firstLine).start;
  const prefix = text.slice(lineStart, entry.start);
  if (!/^(?: *- +)+$/.test(prefix)) {
    throw new EditFailure(
      'unsupported_layout',
      `cannot edit an entry written after "${prefix.trim()}"`,
    );
  }
  const at = lineStart + prefix.trimEnd().length;
  const gap = text.slice(at, entry.start);
  const split = text.slice(0, at) + eol + ' '.repeat(entry.column) + text.slice(entry.start);
  return { text: split, at, gap, column: entry.column };
}

/** Puts whatever now follows the split back on the `-` line when it starts an entry there. */
export function rejoinCompact(text: string, split: CompactSplit, eol: string): string {
  if (!text.startsWith(eol, split.at)) return text;
  const lineStart = split.at + eol.length;
  const next = text.slice(lineStart, lineStart + split.column + 1);
  const joinable =
    next.length === split.column + 1 &&
    next.slice(0, split.column).trim() === '' &&
    !' #\r\n'.includes(next[split.column]!);
  if (!joinable) return text;
  return text.slice(0, split.at) + split.gap + text.slice(lineStart + split.column);
}
