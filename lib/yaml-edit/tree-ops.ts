import { EditFailure } from './finding.js';
import { formatPath, type PathSegment } from './path.js';
import { cloneTree, getAt, isTreeMap, type Tree } from './tree.js';

/** An op after its path was parsed and its value turned into a Tree. */
export type PlannedOp =
  | { op: 'set'; path: PathSegment[]; value: Tree; block: boolean }
  | { op: 'insert'; path: PathSegment[]; value: Tree }
  | { op: 'remove'; path: PathSegment[] }
  | { op: 'move'; path: PathSegment[]; to: number };

/**
 * The meaning of an op on the plain value, independent of any text. The byte editor is checked
 * against this after every op, and every "is this op valid here" finding comes from here, so the
 * text side only ever has to handle ops that make sense.
 */
export function applyOpToTree(root: Tree, op: PlannedOp): Tree {
  const next = cloneTree(root);
  switch (op.op) {
    case 'set':
      if (op.path.length === 0) throw new EditFailure('root_not_editable', 'cannot set the root');
      return setIn(next, op.path, 0, op.value);
    case 'insert': {
      const { parent, index } = splitIndexed(op.path, 'insert');
      const seq = getAt(next, parent);
      if (seq === undefined || seq === null) {
        // Inserting into a missing sequence creates it, which only makes sense at index 0.
        if (index !== 0) throw outOfRange(op.path, index, 0);
        return parent.length === 0 ? [op.value] : setIn(next, parent, 0, [op.value]);
      }
      if (!Array.isArray(seq)) throw notA('sequence', parent);
      if (index > seq.length) throw outOfRange(op.path, index, seq.length);
      seq.splice(index, 0, op.value);
      return next;
    }
    case 'remove': {
      if (op.path.length === 0)
        throw new EditFailure('root_not_editable', 'cannot remove the root');
      const parentPath = op.path.slice(0, -1);
      const last = op.path[op.path.length - 1]!;
      const parent = getAt(next, parentPath);
      if (parent === undefined) throw notFound(parentPath);
      if (typeof last === 'number') {
        if (!Array.isArray(parent)) throw notA('sequence', parentPath);
        if (last >= parent.length) throw outOfRange(op.path, last, parent.length - 1);
        parent.splice(last, 1);
      } else {
        if (!isTreeMap(parent)) throw notA('mapping', parentPath);
        if (!parent.has(last)) throw notFound(op.path);
        parent.delete(last);
      }
      return next;
    }
    case 'move': {
      const { parent, index } = splitIndexed(op.path, 'move');
      const seq = getAt(next, parent);
      if (seq === undefined) throw notFound(parent);
      if (!Array.isArray(seq)) throw notA('sequence', parent);
      if (index >= seq.length) throw outOfRange(op.path, index, seq.length - 1);
      if (op.to >= seq.length) {
        throw new EditFailure(
          'index_out_of_range',
          `move target ${op.to} is past the last index ${seq.length - 1} of ${formatPath(parent)}`,
        );
      }
      const [item] = seq.splice(index, 1);
      seq.splice(op.to, 0, item!);
      return next;
    }
  }
}

function setIn(node: Tree, path: readonly PathSegment[], depth: number, value: Tree): Tree {
  if (depth === path.length) return value;
  const segment = path[depth]!;
  // A null (`key:` with nothing after it) or missing container is created on the way down.
  const container: Tree = node ?? (typeof segment === 'number' ? [] : new Map());
  if (typeof segment === 'number') {
    if (!Array.isArray(container)) throw notA('sequence', path.slice(0, depth));
    if (segment > container.length) throw outOfRange(path, segment, container.length);
    container[segment] = setIn(container[segment] ?? null, path, depth + 1, value);
    return container;
  }
  if (!isTreeMap(container)) throw notA('mapping', path.slice(0, depth));
  container.set(segment, setIn(container.get(segment) ?? null, path, depth + 1, value));
  return container;
}

function splitIndexed(path: readonly PathSegment[], op: string) {
  const index = path[path.length - 1];
  if (typeof index !== 'number') {
    throw new EditFailure(
      'bad_path',
      `${op} needs a path ending in a sequence index like steps[2]`,
    );
  }
  return { parent: path.slice(0, -1), index };
}

function notA(kind: 'mapping' | 'sequence', path: readonly PathSegment[]): EditFailure {
  const where = path.length === 0 ? 'the root' : formatPath(path);
  return new EditFailure(
    kind === 'mapping' ? 'not_a_mapping' : 'not_a_sequence',
    `${where} is not a ${kind}`,
  );
}

function notFound(path: readonly PathSegment[]): EditFailure {
  return new EditFailure('path_not_found', `${formatPath(path)} does not exist`);
}

function outOfRange(path: readonly PathSegment[], index: number, max: number): EditFailure {
  return new EditFailure(
    'index_out_of_range',
    `index ${index} in ${formatPath(path)} is out of range (at most ${max})`,
  );
}
