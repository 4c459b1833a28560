import { type BlockCollection, type Entry, entriesOf } from './entries.js';
import { blankRunAfter, fitBeforeBlankLines } from './kept-blocks.js';
import { applySplice, indentOf, insertLinesAfter, insertLinesBefore } from './lines.js';
import type { SourceDoc } from './source-doc.js';
import type { Tree } from './tree.js';
import {
  type Layout,
  type RenderOptions,
  renderItemLines,
  renderPairLines,
} from './value-render.js';

// New pairs and items go in as whole lines between existing ones, at the column of their siblings.

/** `key: value` as a new last entry of a block mapping, at its keys' column. */
export function appendPair(
  source: SourceDoc,
  map: BlockCollection,
  key: string,
  value: Tree,
  options: RenderOptions,
): string {
  const entries = entriesOf(source, map);
  const last = entries[entries.length - 1]!;
  const lines = fitBeforeBlankLines(
    renderPairLines(key, value, entries[0]!.column, options),
    blankRunAfter(source, last.lastLine),
  );
  return applySplice(source.text, insertLinesAfter(source.table, last.lastLine, lines, source.eol));
}

/** The layout for new items of an existing sequence: its own gap after `-` wins. */
export function sequenceLayout(source: SourceDoc, entries: Entry[], layout: Layout): Layout {
  for (const entry of entries) {
    const start = entry.value?.range[0];
    if (start !== undefined && source.table.lineOf(start) === entry.firstLine) {
      return { ...layout, itemIndent: start - entry.start };
    }
  }
  return layout;
}

export function renderSequenceItem(
  source: SourceDoc,
  entries: Entry[],
  value: Tree,
  options: RenderOptions,
): string[] {
  const layout = sequenceLayout(source, entries, options.layout);
  return renderItemLines(value, entries[0]!.column, { ...options, layout });
}

/**
 * Puts ready lines into a block sequence so they become item `index`: after the previous item
 * (and the comments indented inside it), before the comments written directly above the item
 * that is there now, which describe that item. `floorLine` is the line holding the sequence's own
 * key; comments are never looked for at or above it. `afterPrevious` puts the lines right after
 * the previous item instead, ahead of any blank lines and comments that follow it.
 */
export function insertItemLines(
  source: SourceDoc,
  seq: BlockCollection,
  index: number,
  lines: string[],
  floorLine: number | undefined,
  afterPrevious = false,
): string {
  const entries = entriesOf(source, seq);
  if (index === entries.length || (afterPrevious && index > 0)) {
    const last = entries[index - 1]!;
    const fitted = fitBeforeBlankLines(lines, blankRunAfter(source, last.lastLine));
    return applySplice(
      source.text,
      insertLinesAfter(source.table, last.lastLine, fitted, source.eol),
    );
  }
  const at = headCommentStart(source, entries, index, floorLine);
  const fitted = fitBeforeBlankLines(lines, blankRunAfter(source, at - 1));
  return applySplice(source.text, insertLinesBefore(source.table, at, fitted, source.eol));
}

/** First line of the run of comments sitting directly above entry `index` at its column. */
export function headCommentStart(
  source: SourceDoc,
  entries: Entry[],
  index: number,
  floorLine: number | undefined,
): number {
  const entry = entries[index]!;
  const floor = index > 0 ? entries[index - 1]!.lastLine : floorLine;
  if (floor === undefined) return entry.firstLine;
  let line = entry.firstLine;
  while (line - 1 > floor) {
    const content = source.table.content(line - 1);
    if (!content.trimStart().startsWith('#') || indentOf(content) !== entry.column) break;
    line--;
  }
  return line;
}
