/**
 * Writes a partial config body into config.yaml's own text, touching only the keys it names, so
 * the user's comments and key order survive. `null` removes a key (it falls back to its default).
 */
import { isMap, isScalar, parseDocument } from 'yaml';

export type PatchResult = { ok: true; text: string } | { ok: false; message: string; key: string };

function leaves(value: Record<string, unknown>, prefix: string[] = []): Array<[string[], unknown]> {
  const out: Array<[string[], unknown]> = [];
  for (const [k, v] of Object.entries(value)) {
    const path = [...prefix, k];
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0) {
      out.push(...leaves(v as Record<string, unknown>, path));
    } else out.push([path, v]);
  }
  return out;
}

export function applyConfigPatch(text: string, body: Record<string, unknown>): PatchResult {
  const doc = parseDocument(text === '' ? '{}\n' : text);
  if (doc.contents === null || !isMap(doc.contents)) {
    return { ok: false, message: 'config.yaml must be a mapping of keys', key: '' };
  }
  for (const [path, value] of leaves(body)) {
    // A scalar sitting where the patch needs a mapping is replaced as a whole.
    for (let i = 1; i < path.length; i++) {
      const parent = doc.getIn(path.slice(0, i), true);
      if (parent !== undefined && !isMap(parent)) doc.deleteIn(path.slice(0, i));
    }
    const existing = doc.getIn(path, true);
    if (value === null) doc.deleteIn(path);
    else if (isScalar(existing) && (value === null || typeof value !== 'object')) {
      // Keep the node (and the comment riding on it); only its value changes.
      existing.value = value;
    } else doc.setIn(path, doc.createNode(value));
  }
  return { ok: true, text: doc.toString({ lineWidth: 0 }) };
}
