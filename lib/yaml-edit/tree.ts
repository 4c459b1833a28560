import type { JsonValue } from './op-schema.js';
import type { PathSegment } from './path.js';

/**
 * The editor's model of a YAML value. Mappings are `Map`s rather than plain objects because key
 * order is part of what we preserve and check, and plain objects reorder integer-like keys.
 */
export type Tree = null | boolean | number | string | Tree[] | TreeMap;
export type TreeMap = Map<string, Tree>;

export function isTreeMap(value: Tree | undefined): value is TreeMap {
  return value instanceof Map;
}

export function fromJson(value: JsonValue): Tree {
  if (Array.isArray(value)) return value.map(fromJson);
  if (value !== null && typeof value === 'object') {
    const map: TreeMap = new Map();
    for (const [key, child] of Object.entries(value)) {
      if (child !== undefined) map.set(key, fromJson(child));
    }
    return map;
  }
  return value;
}

/** Ordered deep equality: a reordered mapping is a different file for our purposes. */
export function treeEquals(a: Tree, b: Tree): boolean {
  if (typeof a === 'number' && typeof b === 'number')
    return a === b || (Number.isNaN(a) && Number.isNaN(b));
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => treeEquals(x, b[i]!));
  }
  if (isTreeMap(a)) {
    if (!isTreeMap(b) || a.size !== b.size) return false;
    const bEntries = [...b.entries()];
    return [...a.entries()].every(([key, value], i) => {
      const other = bEntries[i]!;
      return other[0] === key && treeEquals(value, other[1]);
    });
  }
  return a === b;
}

export function cloneTree(value: Tree): Tree {
  if (Array.isArray(value)) return value.map(cloneTree);
  if (isTreeMap(value)) return new Map([...value].map(([k, v]) => [k, cloneTree(v)]));
  return value;
}

/** The value at `path`, or undefined when any step is missing. */
export function getAt(root: Tree, path: readonly PathSegment[]): Tree | undefined {
  let current: Tree | undefined = root;
  for (const segment of path) {
    if (typeof segment === 'number') {
      if (!Array.isArray(current) || segment >= current.length) return undefined;
      current = current[segment];
    } else {
      if (!isTreeMap(current) || !current.has(segment)) return undefined;
      current = current.get(segment);
    }
  }
  return current;
}
