/**
 * A trigger file's text as a value plus a way back to its lines, so a finding names the line a
 * user must edit. YAML is parsed once with a line counter; a finding's dotted path is located by
 * walking the document, falling back to the nearest ancestor that exists.
 */
import { isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from 'yaml';

/** SPEC §8 bounds a written trigger file like a workflow file. */
export const MAX_TRIGGER_BYTES = 1024 * 1024;

export type ParsedText =
  | { ok: true; value: unknown; lineOf(path: string): number | undefined }
  | { ok: false; line?: number; message: string };

function segments(path: string): Array<string | number> {
  const out: Array<string | number> = [];
  for (const m of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) {
    if (m[2] !== undefined) out.push(Number(m[2]));
    else if (m[1] !== undefined) out.push(m[1]);
  }
  return out;
}

export function parseTriggerText(text: string): ParsedText {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
  const first = doc.errors[0];
  if (first) {
    const message = first.message.split('\n')[0] ?? first.message;
    return { ok: false, line: lc.linePos(first.pos[0]).line, message: `YAML: ${message}` };
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    return { ok: false, message: `YAML: ${(err as Error).message}` };
  }
  const lineOf = (path: string): number | undefined => {
    let node: Node | null = doc.contents as Node | null;
    let line = node?.range ? lc.linePos(node.range[0]).line : undefined;
    for (const seg of segments(path)) {
      if (isMap(node)) {
        const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === seg);
        if (!pair) break;
        const key = pair.key as Node;
        if (key.range) line = lc.linePos(key.range[0]).line;
        node = (pair.value as Node | null) ?? null;
      } else if (isSeq(node) && typeof seg === 'number') {
        const item = node.items[seg] as Node | undefined;
        if (!item) break;
        if (item.range) line = lc.linePos(item.range[0]).line;
        node = item;
      } else break;
    }
    return line;
  };
  return { ok: true, value, lineOf };
}
