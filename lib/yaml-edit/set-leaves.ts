import { applyEdits } from './apply-edits.js';
import type { EditResult } from './finding.js';
import type { EditOp, JsonValue } from './op-schema.js';
import { formatPath, type PathSegment } from './path.js';
import { BOM, parseSource } from './source-doc.js';
import { isTreeMap, type Tree } from './tree.js';

export type JsonObject = { [key: string]: JsonValue };

export interface SetLeavesOptions {
  /**
   * Read a `null` leaf as "drop this key" (decision 007: it returns to its default), so it
   * becomes a `remove` when the file has the key and nothing when it does not.
   */
  nullRemoves?: boolean;
}

/**
 * The config PATCH write: a `set` for every leaf of a nested partial object, so untouched keys
 * and their comments stay as they are. Where the file has no mapping to descend into (the key is
 * absent, or holds a scalar or a list), the patch's object is set whole; arrays are always whole.
 */
export function setLeaves(
  source: string,
  patch: JsonObject,
  options: SetLeavesOptions = {},
): EditResult {
  const parsed = parseSource(source.startsWith(BOM) ? source.slice(BOM.length) : source);
  // An unparseable file gets its findings from applyEdits, with whatever ops we would send.
  const tree: Tree = parsed.ok ? parsed.source.tree : null;
  const ops: EditOp[] = [];
  collect(patch, [], tree);
  return applyEdits(source, ops);

  function collect(part: JsonObject, at: PathSegment[], existing: Tree | undefined): void {
    for (const [key, value] of Object.entries(part)) {
      const path = [...at, key];
      const present = isTreeMap(existing) && existing.has(key);
      const current = present ? existing.get(key) : undefined;
      if (value === null && options.nullRemoves) {
        if (present) ops.push({ op: 'remove', path: formatPath(path) });
      } else if (isPlainObject(value) && isTreeMap(current)) {
        collect(value, path, current);
      } else {
        ops.push({ op: 'set', path: formatPath(path), value });
      }
    }
  }
}

function isPlainObject(value: JsonValue): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
