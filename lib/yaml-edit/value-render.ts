import { EditFailure } from './finding.js';
import type { PathSegment } from './path.js';
import { renderBlockScalar, renderKey, renderScalar } from './scalar-render.js';
import { isTreeMap, type Tree } from './tree.js';

/** How the file already indents things, so new text looks like the old. */
export interface Layout {
  /** Spaces a nested mapping sits below its key. */
  unit: number;
  /** `key:\n- a` (dashes at the key's column) rather than `key:\n  - a`. */
  flushSequences: boolean;
  /** Columns from an item's `-` to its content (2 for `- x`). */
  itemIndent: number;
}

export const DEFAULT_LAYOUT: Layout = { unit: 2, flushSequences: false, itemIndent: 2 };

/** What a value hangs from: a key, a sequence dash, or nothing (the document root). */
export type Owner = 'key' | 'item' | 'root';

export type Rendered =
  | { kind: 'inline'; text: string }
  | { kind: 'lines'; lines: string[] }
  | { kind: 'block'; header: string; body: string[] };

export interface RenderOptions {
  layout: Layout;
  /** Relative path of the string that must be a `|` block scalar (`[]` is the value itself). */
  blockAt?: readonly PathSegment[] | undefined;
  /** Render everything in flow style on one line (re-rendering a flow collection). */
  flow?: boolean;
}

export function renderValue(
  value: Tree,
  ownerColumn: number,
  owner: Owner,
  options: RenderOptions,
  nested = false,
): Rendered {
  if (options.flow) return { kind: 'inline', text: renderFlow(value) };
  const { layout, blockAt } = options;
  // Multi-line text inside a rendered mapping or list reads best as a `|` block. Not when it
  // needs `|+` though: a kept block takes in any blank lines that happen to follow it.
  const readable =
    nested &&
    value !== null &&
    typeof value === 'string' &&
    value.includes('\n') &&
    !value.endsWith('\n\n');
  if (typeof value === 'string' && (blockAt?.length === 0 || readable)) {
    const block = renderBlockScalar(
      value,
      ownerColumn,
      childColumn(ownerColumn, owner, 'scalar', layout),
    );
    if (block) return { kind: 'block', ...block };
    if (blockAt?.length === 0) {
      throw new EditFailure(
        'unrepresentable_value',
        'this text cannot be written as a | block scalar',
      );
    }
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return { kind: 'inline', text: '[]' };
    const column = childColumn(ownerColumn, owner, 'seq', layout);
    const lines = value.flatMap((item, i) =>
      renderItemLines(item, column, { ...options, blockAt: childBlockAt(blockAt, i) }),
    );
    return { kind: 'lines', lines };
  }
  if (isTreeMap(value)) {
    if (value.size === 0) return { kind: 'inline', text: '{}' };
    const column = childColumn(ownerColumn, owner, 'map', layout);
    const lines = [...value].flatMap(([key, child]) =>
      renderPairLines(key, child, column, { ...options, blockAt: childBlockAt(blockAt, key) }),
    );
    return { kind: 'lines', lines };
  }
  return { kind: 'inline', text: renderScalar(value, 'block') };
}

/** `key: value` (or `key:` and the value's lines) with the key at `column`. */
export function renderPairLines(
  key: string,
  value: Tree,
  column: number,
  options: RenderOptions,
): string[] {
  const head = ' '.repeat(column) + renderKey(key, 'block') + ':';
  const rendered = renderValue(value, column, 'key', options, true);
  switch (rendered.kind) {
    case 'inline':
      return [`${head} ${rendered.text}`];
    case 'lines':
      return [head, ...rendered.lines];
    case 'block':
      return [`${head} ${rendered.header}`, ...rendered.body];
  }
}

/** `- value`, with a mapping or sequence value started on the dash's line (`- id: a`). */
export function renderItemLines(value: Tree, column: number, options: RenderOptions): string[] {
  const dash = ' '.repeat(column) + '-' + ' '.repeat(options.layout.itemIndent - 1);
  const rendered = renderValue(value, column, 'item', options, true);
  switch (rendered.kind) {
    case 'inline':
      return [dash + rendered.text];
    case 'lines': {
      const [first, ...rest] = rendered.lines;
      return [dash + first!.slice(column + options.layout.itemIndent), ...rest];
    }
    case 'block':
      return [dash + rendered.header, ...rendered.body];
  }
}

export function childColumn(
  ownerColumn: number,
  owner: Owner,
  kind: 'map' | 'seq' | 'scalar',
  layout: Layout,
): number {
  if (owner === 'root') return 0;
  if (owner === 'item') return ownerColumn + layout.itemIndent;
  if (kind === 'seq' && layout.flushSequences) return ownerColumn;
  return ownerColumn + layout.unit;
}

function childBlockAt(
  blockAt: readonly PathSegment[] | undefined,
  segment: PathSegment,
): readonly PathSegment[] | undefined {
  return blockAt !== undefined && blockAt.length > 0 && blockAt[0] === segment
    ? blockAt.slice(1)
    : undefined;
}

/** One-line flow rendering, used when an edit lands inside an existing flow collection. */
export function renderFlow(value: Tree): string {
  if (Array.isArray(value)) return `[${value.map((item) => renderFlow(item)).join(', ')}]`;
  if (isTreeMap(value)) {
    const entries = [...value].map(([k, v]) => `${renderKey(k, 'flow')}: ${renderFlow(v)}`);
    return `{${entries.join(', ')}}`;
  }
  return renderScalar(value, 'flow');
}
