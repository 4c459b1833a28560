import type { Entry } from './entries.js';
import { blankRunAfter, endsKeptBlock } from './kept-blocks.js';
import { applySplice, removeLines } from './lines.js';
import type { SourceDoc } from './source-doc.js';

// Entries leave as whole lines, so the lines around them keep every byte.

export function removeEntryLines(
  source: SourceDoc,
  entry: Entry,
  fromLine = entry.firstLine,
): string {
  let toLine = entry.lastLine;
  if (fromLine > 0 && endsKeptBlock(source, fromLine - 1)) {
    // The blank lines after the entry would otherwise become part of the `|+` block before it.
    toLine += blankRunAfter(source, toLine);
  }
  return applySplice(source.text, removeLines(source.table, fromLine, toLine));
}

export function linesOf(source: SourceDoc, first: number, last: number): string[] {
  const out: string[] = [];
  for (let i = first; i <= last; i++) out.push(source.table.content(i));
  return out;
}
