/**
 * Snapshot diffing for sources that list things (issues, pull requests) rather than stream events:
 * the cursor is a map of item key to a stamp (its update time, its head commit), and a poll emits
 * the items that are new or whose stamp moved. Oldest changes go first; past `max` the rest stay
 * out of the next snapshot so the following poll emits them. Items no longer listed are dropped,
 * which keeps the cursor as small as the listing.
 */
export interface SnapshotChange<T> {
  item: T;
  /** `new` when the key was not in the snapshot, `changed` when its stamp moved. */
  change: 'new' | 'changed';
  /** The stamp the snapshot held before (changed only). */
  previous?: string;
}

export interface SnapshotDiff<T> {
  changes: SnapshotChange<T>[];
  /** The cursor to keep. */
  cursor: string;
  truncated: number;
}

export function readSnapshot(cursor: string | null): Record<string, string> | null {
  if (!cursor) return null;
  try {
    const v = JSON.parse(cursor) as { v?: unknown; items?: unknown };
    if (v.v !== 1 || !v.items || typeof v.items !== 'object') return null;
    return v.items as Record<string, string>;
  } catch {
    return null;
  }
}

/**
 * Compares `items` (any order) with the snapshot in `cursor`. A null or unreadable cursor seeds:
 * every item goes into the snapshot and nothing is emitted.
 */
export function diffSnapshot<T>(
  items: readonly T[],
  cursor: string | null,
  keyOf: (item: T) => string,
  stampOf: (item: T) => string,
  max: number,
  order: (a: T, b: T) => number,
): SnapshotDiff<T> {
  const prev = readSnapshot(cursor);
  const next: Record<string, string> = {};
  if (prev === null) {
    for (const item of items) next[keyOf(item)] = stampOf(item);
    return { changes: [], cursor: JSON.stringify({ v: 1, items: next }), truncated: 0 };
  }
  const changes: SnapshotChange<T>[] = [];
  let truncated = 0;
  for (const item of [...items].sort(order)) {
    const key = keyOf(item);
    const stamp = stampOf(item);
    const before = prev[key];
    if (before === stamp) {
      next[key] = stamp;
      continue;
    }
    if (changes.length >= max) {
      truncated++;
      if (before !== undefined) next[key] = before;
      continue;
    }
    changes.push(
      before === undefined
        ? { item, change: 'new' }
        : { item, change: 'changed', previous: before },
    );
    next[key] = stamp;
  }
  return { changes, cursor: JSON.stringify({ v: 1, items: next }), truncated };
}
