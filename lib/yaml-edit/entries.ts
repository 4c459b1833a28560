import {
  type CST,
  isMap,
  isScalar,
  isSeq,
  type ParsedNode,
  type YAMLMap,
  type YAMLSeq,
} from 'yaml';
import { EditFailure } from './finding.js';
import { indentOf, isBlankOrComment } from './lines.js';
import type { SourceDoc } from './source-doc.js';

export type BlockCollection = YAMLMap.Parsed | YAMLSeq.Parsed;

/** Where one mapping pair or sequence item of a block collection sits in the text. */
export interface Entry {
  /** The key (or its properties) of a pair, the `-` of an item. */
  start: number;
  /** Just past the `:` or `-`: a value is replaced from here. */
  slotStart: number;
  value: ParsedNode | null;
  /** Just past the value's last character, or slotStart when the value is empty. */
  contentEnd: number;
  firstLine: number;
  /** Last line of the value itself. */
  valueLastLine: number;
  /** valueLastLine extended over comment lines indented deeper than the entry: they are inside it. */
  lastLine: number;
  column: number;
  /** The entry shares its first line with its parent's `-` (`- id: a`, `- - x`). */
  compact: boolean;
}

export function isBlockCollection(node: ParsedNode | null): node is BlockCollection {
  return (isMap(node) || isSeq(node)) && !node.flow;
}

export function entriesOf(source: SourceDoc, collection: BlockCollection): Entry[] {
  const raw = isMap(collection) ? mapEntries(collection) : seqEntries(collection);
  return raw.map(({ start, slotStart, value }) => finishEntry(source, start, slotStart, value));
}

interface RawEntry {
  start: number;
  slotStart: number;
  value: ParsedNode | null;
}

function unsupported(message: string): EditFailure {
  return new EditFailure('unsupported_layout', message);
}

function mapEntries(map: YAMLMap.Parsed): RawEntry[] {
  return map.items.map((pair) => {
    const item = pair.srcToken;
    if (!item) throw unsupported('a mapping pair has no source position');
    if (item.start.some((t) => t.type === 'explicit-key-ind')) {
      throw unsupported('explicit `? key` entries are not editable');
    }
    if (!isScalar(pair.key) || !pair.key.range) throw unsupported('a key is not a plain scalar');
    const indicator = item.sep?.find((t) => t.type === 'map-value-ind');
    if (!indicator) throw unsupported('a key has no `:`');
    return {
      start: firstPropOffset(item.start) ?? pair.key.range[0],
      slotStart: indicator.offset + 1,
      value: emptyToNull(pair.value),
    };
  });
}

function seqEntries(seq: YAMLSeq.Parsed): RawEntry[] {
  const token = seq.srcToken;
  if (token?.type !== 'block-seq') throw unsupported('a sequence has no source position');
  // Items without a `-` are trailing comments the composer skips, so skip them too.
  const dashes = token.items
    .map((item) => item.start.find((t) => t.type === 'seq-item-ind'))
    .filter((t): t is CST.SourceToken => t !== undefined);
  if (dashes.length !== seq.items.length) throw unsupported('sequence items do not line up');
  return seq.items.map((value, i) => ({
    start: dashes[i]!.offset,
    slotStart: dashes[i]!.offset + 1,
    value: emptyToNull(value),
  }));
}

/** Anchors and tags written before a key on its own line start the entry. */
function firstPropOffset(tokens: CST.SourceToken[]): number | undefined {
  let first: number | undefined;
  for (const t of tokens) {
    if (t.type === 'newline') first = undefined;
    else if ((t.type === 'anchor' || t.type === 'tag') && first === undefined) first = t.offset;
  }
  return first;
}

/** `key:` with nothing after it parses to an empty null scalar; treat it as no value. */
function emptyToNull(node: ParsedNode | null): ParsedNode | null {
  if (node === null) return null;
  if (isScalar(node) && node.value === null && node.range[0] === node.range[1]) return null;
  return node;
}

function finishEntry(
  source: SourceDoc,
  start: number,
  slotStart: number,
  value: ParsedNode | null,
): Entry {
  const { table } = source;
  const contentEnd = value === null ? slotStart : valueContentEnd(source, value);
  const firstLine = table.lineOf(start);
  const valueLastLine = table.lineOf(Math.max(contentEnd, slotStart) - 1);
  const column = table.column(start);
  let lastLine = valueLastLine;
  for (let i = valueLastLine + 1; i < table.lines.length; i++) {
    const content = table.content(i);
    if (!isBlankOrComment(content)) break;
    if (content.trim() !== '' && indentOf(content) > column) lastLine = i;
    else if (content.trim() !== '') break;
  }
  const prefix = source.text.slice(table.line(firstLine).start, start);
  return {
    start,
    slotStart,
    value,
    contentEnd,
    firstLine,
    valueLastLine,
    lastLine,
    column,
    compact: prefix.trim() !== '',
  };
}

/**
 * Just past the last character that belongs to a value. A block collection's own range runs on
 * over comments the parser attached to it (even ones at a shallower indent), so collections end
 * where their last entry's value ends instead.
 */
export function valueContentEnd(source: SourceDoc, node: ParsedNode): number {
  if (isBlockCollection(node)) {
    const entries = isMap(node) ? mapEntries(node) : seqEntries(node);
    const last = entries[entries.length - 1];
    if (!last) return node.range[0];
    return last.value === null ? last.slotStart : valueContentEnd(source, last.value);
  }
  // A block scalar's range ends exactly after its last content line, and that line can be all
  // whitespace (content all the same), as can the kept blank lines that end a `|+` block.
  if (isScalar(node) && (node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED')) {
    return node.range[1];
  }
  return trimTrailingBlank(source, node.range[0], node.range[1]);
}

/** Steps back over line breaks and whitespace-only lines (a kept block scalar ends in those). */
function trimTrailingBlank(source: SourceDoc, from: number, end: number): number {
  const { text, table } = source;
  let e = end;
  for (;;) {
    while (e > from && (text[e - 1] === '\n' || text[e - 1] === '\r')) e--;
    const lineStart = table.line(table.lineOf(Math.max(e - 1, from))).start;
    if (lineStart > from && text.slice(lineStart, e).trim() === '') {
      e = lineStart;
      continue;
    }
    return e;
  }
}

/** `key:`, `key: null` and `key: ~` all hold nothing a path can continue into. */
export function isNullish(node: ParsedNode | null): boolean {
  return node === null || (isScalar(node) && node.value === null);
}
