import { isMap, isScalar, isSeq, type ParsedNode, parseDocument } from 'yaml';
import type { GeneratedOp, Segment } from './reference.js';

/**
 * Which lines of the original an op may change: `[start, end)` in original line numbers. Lines
 * before `start` must come out identical and so must lines from `end` on (counted from the end).
 * An insertion has `start === end` plus the blank and comment lines between two entries.
 *
 * "The node" an op touches is its entry: the key or `-` line through the value's last line, plus
 * comment lines indented deeper than the entry right after it (those sit inside it).
 */
export interface Span {
  start: number;
  end: number;
}

interface EntryInfo {
  first: number;
  column: number;
  value: ParsedNode | null;
  /** Last line of the value itself. */
  valueEnd: number;
  /** valueEnd plus the deeper-indented comment lines after it. */
  extendedEnd: number;
  /** Something else (a parent's `-`) is written before the entry on its first line. */
  compact: boolean;
}

export function touchedSpan(text: string, op: GeneratedOp): Span {
  const doc = parseDocument(text);
  const lines = text.split('\n');
  const lineOf = (offset: number) => countNewlines(text, offset);

  const entriesOf = (node: ParsedNode): EntryInfo[] => {
    const raw: Array<{ start: number; value: ParsedNode | null }> = isMap(node)
      ? node.items.map((pair) => ({
          start: (pair.key as ParsedNode).range[0],
          value: emptyToNull(pair.value as ParsedNode | null),
        }))
      : (node as { items: ParsedNode[] }).items.map((item) => ({
          start: text.lastIndexOf('-', item.range[0] - 1),
          value: emptyToNull(item),
        }));
    return raw.map(({ start, value }) => {
      const first = lineOf(start);
      const column = start - (text.lastIndexOf('\n', start - 1) + 1);
      const valueEnd = value === null ? first : endLine(value, first);
      return {
        first,
        column,
        value,
        valueEnd,
        extendedEnd: extend(lines, valueEnd, column),
        compact: text.slice(text.lastIndexOf('\n', start - 1) + 1, start).trim() !== '',
      };
    });
  };

  const endLine = (node: ParsedNode, first: number): number => {
    if ((isMap(node) || isSeq(node)) && !node.flow) {
      const entries = entriesOf(node);
      return entries.length === 0 ? first : entries[entries.length - 1]!.valueEnd;
    }
    let end = node.range[1];
    // A block scalar ends with its last content line, which may be blank (`|+`) or whitespace.
    if (isScalar(node) && /^[|>]/.test(text.slice(node.range[0]))) return lineOf(end - 1);
    while (end > node.range[0] && /\s/.test(text[end - 1]!)) end--;
    return lineOf(end - 1);
  };

  // Walk the path, remembering each entry and whether a flow collection was entered.
  const segments = op.segments;
  let node: ParsedNode | null = doc.contents as ParsedNode | null;
  let owner: EntryInfo | undefined;
  const chain: Array<{ node: ParsedNode | null; entry: EntryInfo | undefined }> = [
    { node, entry: undefined },
  ];
  for (const segment of segments) {
    if (node === null || !(isMap(node) || isSeq(node))) break;
    if (node.flow) {
      // Edits inside a flow collection re-render it whole.
      if (owner === undefined) return { start: 0, end: lines.length };
      return { start: owner.first, end: owner.valueEnd + 1 };
    }
    const index = indexIn(node, segment);
    if (index < 0) break;
    owner = entriesOf(node)[index]!;
    node = owner.value;
    chain.push({ node, entry: owner });
  }
  const resolved = chain.length - 1;
  const containerAt = Math.min(resolved, segments.length - 1);
  const container = chain[containerAt]!;

  if (resolved === segments.length && op.op === 'set') {
    // A value rewritten on lines of its own also replaces the comments indented inside the old.
    const target = chain[resolved]!.entry!;
    return { start: target.first, end: target.extendedEnd + 1 };
  }
  if (op.op === 'set' || (op.op === 'insert' && resolved < segments.length - 1)) {
    // Creating something: under a null it replaces the null's entry, otherwise it is appended.
    const here = chain[resolved]!;
    if (here.node === null || isScalar(here.node)) {
      return { start: here.entry!.first, end: here.entry!.extendedEnd + 1 };
    }
    const entries = entriesOf(here.node);
    const after = entries[entries.length - 1]!.extendedEnd + 1;
    return { start: after, end: after };
  }
  const parent = container.node!;
  const entries = entriesOf(parent);
  const last = segments[segments.length - 1]!;
  const index = indexIn(parent, last);
  if (op.op === 'insert') {
    const at = last as number;
    if (at === entries.length) {
      const after = entries[entries.length - 1]!.extendedEnd + 1;
      return { start: after, end: after };
    }
    const start = at > 0 ? entries[at - 1]!.extendedEnd + 1 : container.entry!.first + 1;
    return { start, end: entries[at]!.first };
  }
  if (op.op === 'remove') {
    if (entries.length === 1) {
      return { start: container.entry!.first, end: container.entry!.valueEnd + 1 };
    }
    const entry = entries[index]!;
    if (entry.compact) return { start: entry.first, end: entries[index + 1]!.first + 1 };
    return { start: entry.first, end: entry.extendedEnd + 1 };
  }
  // move: everything from the first involved item (and the comments above it) to the last.
  const lo = Math.min(index, op.to);
  const hi = Math.max(index, op.to);
  let start = entries[lo]!.first;
  const floor = lo > 0 ? entries[lo - 1]!.extendedEnd : container.entry!.first;
  while (start - 1 > floor && lines[start - 1]!.trim().startsWith('#')) start--;
  return { start, end: entries[hi]!.extendedEnd + 1 };
}

function indexIn(node: ParsedNode, segment: Segment): number {
  if (isMap(node) && typeof segment === 'string') {
    return node.items.findIndex((pair) => isScalar(pair.key) && String(pair.key.value) === segment);
  }
  if (isSeq(node) && typeof segment === 'number') return segment < node.items.length ? segment : -1;
  return -1;
}

function emptyToNull(node: ParsedNode | null): ParsedNode | null {
  if (node === null) return null;
  if (isScalar(node) && node.value === null && node.range[0] === node.range[1]) return null;
  return node;
}

function extend(lines: string[], from: number, column: number): number {
  let end = from;
  for (let i = from + 1; i < lines.length; i++) {
    const content = lines[i]!.replace(/\r$/, '');
    const trimmed = content.trimStart();
    if (trimmed === '') continue;
    if (!trimmed.startsWith('#') || content.length - trimmed.length <= column) break;
    end = i;
  }
  return end;
}

function countNewlines(text: string, offset: number): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
