/**
 * A workflow file's text as a value plus a way back to its lines: YAML is parsed once with a
 * line counter, and a finding's path (`steps[2].lanes[0].workflow`) is located by walking the
 * document's nodes. Template errors inside a scalar are mapped to the file line too.
 */
import {
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  parseDocument,
  type Scalar,
} from 'yaml';
import type { PathSegment } from '../plugin/index.js';

/** SPEC §8: a workflow file, and the `yaml` of a validate request, is at most 1 MiB. */
export const MAX_WORKFLOW_BYTES = 1024 * 1024;

export type ParsedSource =
  | { ok: true; value: unknown; lines: LineIndex }
  | { ok: false; line?: number; message: string };

export interface LineIndex {
  /** 1-based line of the key (or item) at `path`; the nearest existing ancestor when it is absent. */
  lineOf(path: readonly PathSegment[]): number | undefined;
  /**
   * File line of line `innerLine` (1-based) inside the string scalar at `path`, for template
   * errors; falls back to the scalar's own line.
   */
  lineInScalar(path: readonly PathSegment[], innerLine: number): number | undefined;
}

export function parseWorkflowSource(text: string): ParsedSource {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const first = doc.errors[0];
  if (first) {
    const line = lineCounter.linePos(first.pos[0]).line;
    const message = first.message.split('\n')[0] ?? first.message;
    return { ok: false, line, message: `YAML: ${message}` };
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    return { ok: false, message: `YAML: ${(err as Error).message}` };
  }
  return { ok: true, value, lines: lineIndex(doc.contents, lineCounter) };
}

function lineIndex(root: Node | null, lc: LineCounter): LineIndex {
  const at = (offset: number | undefined) =>
    offset === undefined ? undefined : lc.linePos(offset).line;

  /** The deepest node on the path, and the key node of its last step when it was a map entry. */
  function walk(path: readonly PathSegment[]): {
    node: Node | null;
    key: Node | null;
    complete: boolean;
  } {
    let node: Node | null = root;
    let key: Node | null = null;
    for (const seg of path) {
      if (typeof seg === 'number' && isSeq(node)) {
        const item = node.items[seg] as Node | undefined;
        if (!item) return { node, key, complete: false };
        node = item;
        key = null;
      } else if (typeof seg === 'string' && isMap(node)) {
        const pair = node.items.find(
          (p) => isPair(p) && isScalar(p.key) && String((p.key as Scalar).value) === seg,
        );
        if (!pair) return { node, key, complete: false };
        key = pair.key as Node;
        node = (pair.value as Node | null) ?? (pair.key as Node);
      } else {
        return { node, key, complete: false };
      }
    }
    return { node, key, complete: true };
  }

  return {
    lineOf(path) {
      const { node, key } = walk(path);
      return at(key?.range?.[0] ?? node?.range?.[0]);
    },
    lineInScalar(path, innerLine) {
      const { node, complete } = walk(path);
      if (!complete || !isScalar(node) || !node.range) return this.lineOf(path);
      const start = at(node.range[0]);
      if (start === undefined) return undefined;
      // A block scalar's text starts on the line after its `|` or `>` header.
      const block = node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED';
      return start + (block ? innerLine : innerLine - 1);
    },
  };
}
