import { type Entry, isBlockCollection, valueContentEnd } from './entries.js';
import { EditFailure } from './finding.js';
import { blankRunAfter, fitBeforeBlankLines } from './kept-blocks.js';
import { applySplice } from './lines.js';
import type { SourceDoc } from './source-doc.js';
import type { Tree } from './tree.js';
import { type Owner, type RenderOptions, renderValue } from './value-render.js';

// Replacing what a key, an item or the document holds: the splice covers the old value's lines
// and nothing past them, so the next entry and everything else keep their bytes.

/** Replaces the value held by a pair or item, keeping the comment written on its line. */
export function replaceSlot(
  source: SourceDoc,
  entry: Entry,
  owner: Exclude<Owner, 'root'>,
  value: Tree,
  options: RenderOptions,
): string {
  const { text, table, eol } = source;
  const slotLine = table.lineOf(entry.slotStart);
  const regionEnd = table.line(entry.valueLastLine).contentEnd;
  const tail = text.slice(entry.contentEnd, regionEnd);
  // A comment after a one-line value is the entry's own; one after the last line of a block value
  // belongs to whatever entry inside it ends there, and goes with it.
  let comment = entry.valueLastLine === slotLine && tail.trimStart().startsWith('#') ? tail : '';
  if (entry.value !== null && table.lineOf(entry.value.range[0]) > slotLine) {
    // `key: # note` above a block value: the note describes the key, keep it with the key.
    const head = text.slice(entry.slotStart, table.line(slotLine).contentEnd).trim();
    if (head.startsWith('#')) comment = ` ${head}${comment}`;
  }
  const rendered = renderValue(value, entry.column, owner, options);
  let replacement: string;
  switch (rendered.kind) {
    case 'inline':
      replacement = ` ${rendered.text}${comment}`;
      break;
    case 'lines': {
      const lines = fitBeforeBlankLines(rendered.lines, blankRunAfter(source, entry.lastLine));
      const [first, ...rest] = lines;
      if (owner === 'item' && comment === '') {
        // `- id: a` rather than a bare `-` line, as people write sequence items.
        const column = entry.column + options.layout.itemIndent;
        const gap = ' '.repeat(options.layout.itemIndent - 1);
        replacement = [gap + first!.slice(column), ...rest].join(eol);
      } else {
        replacement = comment + eol + lines.join(eol);
      }
      break;
    }
    case 'block': {
      const body = fitBeforeBlankLines(rendered.body, blankRunAfter(source, entry.lastLine));
      replacement = ` ${rendered.header}${comment}`;
      if (body.length > 0) replacement += eol + body.join(eol);
      break;
    }
  }
  // Comments indented under the entry go with an old block collection (they were inside it),
  // and with a new value written on lines of its own (they could read as part of a new block
  // scalar). After a one-line value replaced by another they stay.
  const takesInner = rendered.kind !== 'inline' || isBlockCollection(entry.value);
  const end = takesInner ? table.line(entry.lastLine).contentEnd : regionEnd;
  return applySplice(text, { start: entry.slotStart, end, text: replacement });
}

/** Replaces the whole document value (after removing its last entry, or rewriting a flow root). */
export function replaceRoot(source: SourceDoc, value: Tree, options: RenderOptions): string {
  const { text, table, eol, doc } = source;
  const root = doc.contents;
  if (root === null) return appendToEmptyDocument(source, value, options);
  if ('anchor' in root && root.anchor) {
    throw new EditFailure('aliased_node', 'the document root carries an anchor');
  }
  const start = root.range[0];
  const end = valueContentEnd(source, root);
  const rendered = renderValue(value, 0, 'root', options);
  let replacement: string;
  if (rendered.kind === 'inline') replacement = rendered.text;
  else if (rendered.kind === 'lines') {
    const prefix = text.slice(table.line(table.lineOf(start)).start, start);
    replacement = (prefix.trim() === '' ? '' : eol) + rendered.lines.join(eol);
  } else throw new EditFailure('root_not_editable', 'the root cannot be a block scalar');
  return applySplice(text, { start, end, text: replacement });
}

/** A document with no value (empty, or only comments): the value goes after everything. */
export function appendToEmptyDocument(
  source: SourceDoc,
  value: Tree,
  options: RenderOptions,
): string {
  const { text, eol } = source;
  const rendered = renderValue(value, 0, 'root', options);
  const body =
    rendered.kind === 'inline'
      ? rendered.text
      : rendered.kind === 'lines'
        ? rendered.lines.join(eol)
        : null;
  if (body === null)
    throw new EditFailure('root_not_editable', 'the root cannot be a block scalar');
  if (text === '') return body + eol;
  return text.endsWith('\n') ? text + body + eol : text + eol + body;
}
