import {
  type Document,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  type ParsedNode,
  parseDocument,
  visit,
} from 'yaml';
import { EditFailure } from './finding.js';
import { detectEol, type Eol, LineTable } from './lines.js';
import type { Tree, TreeMap } from './tree.js';

export const BOM = '\uFEFF';

/** One parse of the text being edited, with everything the planners look things up in. */
export interface SourceDoc {
  /** The text without a byte order mark (applyEdits puts it back at the very end). */
  text: string;
  eol: Eol;
  table: LineTable;
  doc: Document.Parsed;
  tree: Tree;
  /** Anchor names some alias refers to: nodes carrying them cannot be edited safely. */
  anchorsInUse: Set<string>;
}

export type ParseOutcome = { ok: true; source: SourceDoc } | { ok: false; message: string };

export function parseSource(text: string): ParseOutcome {
  const doc = parseDocument(text, {
    keepSourceTokens: true,
    uniqueKeys: true,
    prettyErrors: false,
  });
  if (doc.errors.length > 0) {
    return { ok: false, message: doc.errors.map((e) => e.message).join('; ') };
  }
  const anchorsInUse = new Set<string>();
  visit(doc, {
    Alias(_key, alias) {
      anchorsInUse.add(alias.source);
    },
  });
  try {
    const tree = nodeToTree(doc.contents, doc, 0);
    return {
      ok: true,
      source: { text, eol: detectEol(text), table: new LineTable(text), doc, tree, anchorsInUse },
    };
  } catch (error) {
    if (error instanceof EditFailure) return { ok: false, message: error.message };
    throw error;
  }
}

// Deep enough for any real file, shallow enough to stop an alias that refers to its own ancestor.
const MAX_DEPTH = 200;

function nodeToTree(node: ParsedNode | null, doc: Document.Parsed, depth: number): Tree {
  if (depth > MAX_DEPTH) throw new EditFailure('unsupported_layout', 'nesting too deep');
  if (node === null) return null;
  if (isAlias(node)) {
    const target = node.resolve(doc);
    if (!target) throw new EditFailure('unsupported_layout', `alias *${node.source} has no anchor`);
    return nodeToTree(target as ParsedNode, doc, depth + 1);
  }
  if (isScalar(node)) {
    const { value } = node;
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) {
      return value as Tree;
    }
    // A YAML 1.1 file can hold timestamps and binary data, which have no JSON form to edit.
    const kind = value instanceof Date ? 'timestamp' : typeof value;
    throw new EditFailure('unsupported_layout', `a ${kind} scalar is not plain data`);
  }
  if (isSeq(node)) return node.items.map((item) => nodeToTree(item, doc, depth + 1));
  if (isMap(node)) {
    const map: TreeMap = new Map();
    for (const pair of node.items) {
      if (!isScalar(pair.key)) throw new EditFailure('unsupported_layout', 'a key is not a scalar');
      const key = String(pair.key.value);
      if (map.has(key)) throw new EditFailure('unsupported_layout', `key "${key}" appears twice`);
      map.set(key, nodeToTree(pair.value, doc, depth + 1));
    }
    return map;
  }
  throw new EditFailure('unsupported_layout', 'unknown node');
}

/** Every anchor declared in a subtree (aliases are not followed). */
export function anchorsWithin(node: ParsedNode | null): string[] {
  const found: string[] = [];
  if (node === null) return found;
  visit(node, {
    Node(_key, n) {
      if ('anchor' in n && typeof n.anchor === 'string') found.push(n.anchor);
    },
  });
  return found;
}

/** Every alias name used in a subtree. */
export function aliasesWithin(node: ParsedNode | null): string[] {
  const found: string[] = [];
  if (node === null) return found;
  if (isAlias(node)) return [node.source];
  visit(node, {
    Alias(_key, alias) {
      found.push(alias.source);
    },
  });
  return found;
}

export function containsAlias(node: ParsedNode | null): boolean {
  let seen = false;
  if (node === null) return false;
  if (isAlias(node)) return true;
  visit(node, {
    Alias() {
      seen = true;
      return visit.BREAK;
    },
  });
  return seen;
}
