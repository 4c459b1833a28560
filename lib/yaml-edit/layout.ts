import { isSeq, type ParsedNode } from 'yaml';
import { type Entry, entriesOf, isBlockCollection } from './entries.js';
import { EditFailure } from './finding.js';
import type { SourceDoc } from './source-doc.js';
import { DEFAULT_LAYOUT, type Layout } from './value-render.js';

/**
 * Reads the indentation habits of a file from its existing block collections: the most common
 * nesting step, whether sequences under a key are indented or flush with it, and the gap after
 * `-`. A file with no evidence gets two-space indentation and indented sequences.
 */
export function detectLayout(source: SourceDoc): Layout {
  const units = new Map<number, number>();
  const itemIndents = new Map<number, number>();
  let flush = 0;
  let indented = 0;
  const count = (tally: Map<number, number>, n: number) => tally.set(n, (tally.get(n) ?? 0) + 1);

  const visitNode = (node: ParsedNode | null): void => {
    if (!isBlockCollection(node)) return;
    let entries: Entry[];
    try {
      entries = entriesOf(source, node);
    } catch (error) {
      // A part of the file we cannot edit still must not stop edits elsewhere.
      if (error instanceof EditFailure) return;
      throw error;
    }
    for (const entry of entries) {
      const child = entry.value;
      if (child === null) continue;
      const childColumn = source.table.column(child.range[0]);
      const sameLine = source.table.lineOf(child.range[0]) === entry.firstLine;
      if (isSeq(node)) {
        if (sameLine) count(itemIndents, child.range[0] - entry.start);
      } else if (isBlockCollection(child) && !sameLine) {
        if (isSeq(child) && childColumn === entry.column) flush++;
        else if (childColumn > entry.column) {
          if (isSeq(child)) indented++;
          count(units, childColumn - entry.column);
        }
      }
      visitNode(child);
    }
  };
  visitNode(source.doc.contents);

  return {
    unit: mostCommon(units) ?? DEFAULT_LAYOUT.unit,
    flushSequences: flush > indented,
    itemIndent: mostCommon(itemIndents) ?? DEFAULT_LAYOUT.itemIndent,
  };
}

function mostCommon(tally: Map<number, number>): number | undefined {
  let best: number | undefined;
  let bestCount = 0;
  for (const [value, n] of tally) {
    if (n > bestCount || (n === bestCount && best !== undefined && value < best)) {
      best = value;
      bestCount = n;
    }
  }
  return best;
}
