/**
 * The oracle for the property test: what an op means on plain parsed values, written without
 * looking at the editor's own model so the two can disagree.
 */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Segment = string | number;

export type GeneratedOp =
  | { op: 'set'; segments: Segment[]; value: Json; block?: boolean }
  | { op: 'insert'; segments: Segment[]; item: Array<{ key: string; value: Json }> }
  | { op: 'remove'; segments: Segment[] }
  | { op: 'move'; segments: Segment[]; to: number };

export function isObject(value: Json | undefined): value is { [key: string]: Json } {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function getPath(root: Json, segments: readonly Segment[]): Json | undefined {
  let current: Json | undefined = root;
  for (const segment of segments) {
    if (typeof segment === 'number')
      current = Array.isArray(current) ? current[segment] : undefined;
    else
      current = isObject(current) && Object.hasOwn(current, segment) ? current[segment] : undefined;
    if (current === undefined) return undefined;
  }
  return current;
}

export function applyReference(original: Json, op: GeneratedOp): Json {
  const root = structuredClone(original);
  const parentPath = op.segments.slice(0, -1);
  const last = op.segments[op.segments.length - 1]!;
  switch (op.op) {
    case 'set': {
      let node: Json = root;
      for (const [i, segment] of parentPath.entries()) {
        const next = op.segments[i + 1]!;
        const fresh = (): Json => (typeof next === 'number' ? [] : {});
        if (typeof segment === 'number') {
          const list = node as Json[];
          if (list[segment] === undefined || list[segment] === null) list[segment] = fresh();
          node = list[segment]!;
        } else {
          const map = node as { [key: string]: Json };
          if (!Object.hasOwn(map, segment) || map[segment] === null) map[segment] = fresh();
          node = map[segment]!;
        }
      }
      if (typeof last === 'number') (node as Json[])[last] = op.value;
      else (node as { [key: string]: Json })[last] = op.value;
      return root;
    }
    case 'insert': {
      const item = Object.fromEntries(op.item.map((e) => [e.key, e.value]));
      (getPath(root, parentPath) as Json[]).splice(last as number, 0, item);
      return root;
    }
    case 'remove': {
      const parent = getPath(root, parentPath)!;
      if (Array.isArray(parent)) parent.splice(last as number, 1);
      else delete (parent as { [key: string]: Json })[last as string];
      return root;
    }
    case 'move': {
      const list = getPath(root, parentPath) as Json[];
      const [moved] = list.splice(last as number, 1);
      list.splice(op.to, 0, moved!);
      return root;
    }
  }
}

export function formatSegments(segments: readonly Segment[]): string {
  let out = '';
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (/^[A-Za-z0-9_-]+$/.test(s)) out += out === '' ? s : `.${s}`;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out;
}
