import { isScalar, type ParsedNode, visit } from 'yaml';
import { EditFailure } from './finding.js';
import type { SourceDoc } from './source-doc.js';

// A `|+` (keep) block scalar owns every blank line that follows it, so any splice that puts
// blank lines after one, or one before blank lines, changes its value unless it compensates.

/** How many whitespace-only lines follow line `line`. */
export function blankRunAfter(source: SourceDoc, line: number): number {
  const { table } = source;
  let n = 0;
  for (let i = line + 1; i < table.lines.length; i++) {
    if (table.content(i).trim() !== '') break;
    n++;
  }
  return n;
}

/**
 * Lines about to sit right before `blanks` blank lines. When they end in a `|+` block's empty
 * lines, YAML reads the following blank lines as more of that block, so the existing blank lines
 * stand in for as many of the block's own empty lines. More blank lines than the value wants
 * cannot be written without touching them, which is refused.
 */
export function fitBeforeBlankLines(lines: string[], blanks: number): string[] {
  let trailing = 0;
  // Only truly empty lines: a line of spaces or tabs in a block is content, not a blank.
  while (trailing < lines.length && lines[lines.length - 1 - trailing] === '') trailing++;
  if (trailing === 0 || blanks === 0) return lines;
  if (blanks > trailing) {
    throw new EditFailure(
      'unrepresentable_value',
      `a |+ block here would take in the ${blanks} blank lines after it`,
    );
  }
  return lines.slice(0, lines.length - blanks);
}

/** Whether line `line` is the last line of a `|+` (keep) block scalar. */
export function endsKeptBlock(source: SourceDoc, line: number): boolean {
  let found = false;
  visit(source.doc, {
    Scalar(_key, node) {
      const range = node.range;
      if (!range || !isKeepBlockScalar(source, node as ParsedNode)) return undefined;
      if (source.table.lineOf(range[1] - 1) !== line) return undefined;
      found = true;
      return visit.BREAK;
    },
  });
  return found;
}

export function isKeepBlockScalar(source: SourceDoc, node: ParsedNode): boolean {
  if (!isScalar(node) || (node.type !== 'BLOCK_LITERAL' && node.type !== 'BLOCK_FOLDED')) {
    return false;
  }
  const lineEnd = source.table.line(source.table.lineOf(node.range[0])).contentEnd;
  return /^[|>][1-9]?\+/.test(source.text.slice(node.range[0], lineEnd));
}
