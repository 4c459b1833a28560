import { isAlias, isMap, isScalar, isSeq, type ParsedNode } from 'yaml';
import { type BlockCollection, type Entry, entriesOf, isBlockCollection } from './entries.js';
import { EditFailure } from './finding.js';
import { formatPath, type PathSegment } from './path.js';
import { parseSource, type SourceDoc } from './source-doc.js';
import type { Owner } from './value-render.js';

/** What holds a value: the document itself, or a pair or item of a block collection. */
export type Slot =
  | { kind: 'root' }
  | { kind: 'entry'; owner: Exclude<Owner, 'root'>; entry: Entry };

/** One step of a resolved path: the node there and the slot that holds it. */
export interface Located {
  path: PathSegment[];
  node: ParsedNode | null;
  slot: Slot;
}

/** Follows `path` as far as it exists in block collections; element 0 is the root. */
export function walk(source: SourceDoc, path: readonly PathSegment[]): Located[] {
  const chain: Located[] = [{ path: [], node: source.doc.contents, slot: { kind: 'root' } }];
  for (let depth = 0; depth < path.length; depth++) {
    const here = chain[depth]!.node;
    if (isAlias(here)) {
      throw new EditFailure(
        'aliased_node',
        `${formatPath(path.slice(0, depth)) || 'the root'} is an alias; edit its anchor instead`,
      );
    }
    if (!isBlockCollection(here)) break;
    const segment = path[depth]!;
    const index =
      typeof segment === 'number'
        ? isSeq(here) && segment < here.items.length
          ? segment
          : -1
        : isMap(here)
          ? indexOfKey(here, segment)
          : -1;
    if (index < 0) break;
    const entry = entriesOf(source, here)[index]!;
    chain.push({
      path: path.slice(0, depth + 1),
      node: entry.value,
      slot: { kind: 'entry', owner: isMap(here) ? 'key' : 'item', entry },
    });
  }
  return chain;
}

export function indexOfKey(collection: BlockCollection, key: string): number {
  if (!isMap(collection)) return -1;
  return collection.items.findIndex((pair) => isScalar(pair.key) && String(pair.key.value) === key);
}

export function blockAt(source: SourceDoc, path: readonly PathSegment[]): BlockCollection {
  const chain = walk(source, path);
  const node = chain.length - 1 === path.length ? chain[chain.length - 1]!.node : null;
  if (!isBlockCollection(node)) throw internal(`${formatPath(path)} is not a block collection`);
  return node;
}

export function reparse(text: string): SourceDoc {
  const parsed = parseSource(text);
  if (!parsed.ok)
    throw new EditFailure(
      'unsupported_layout',
      `intermediate text does not parse: ${parsed.message}`,
    );
  return parsed.source;
}

export function internal(message: string): EditFailure {
  return new EditFailure('unsupported_layout', message);
}
