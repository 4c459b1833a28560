/**
 * A nesting bound for JSON text, checked on the raw characters before anything parses or walks
 * it (decision 189): every later walk — zod, the config writer, template tainting, the ledger's
 * JSON — may then recurse without meeting a 10,000-deep document. The scan is a loop with a
 * counter, so it costs one pass and no stack.
 */

/** Deeper than any body, event or config a person writes (a GitHub webhook is about 6). */
export const MAX_JSON_DEPTH = 64;

/** True when `text` opens more than `max` arrays or objects inside each other. */
export function jsonNestsDeeper(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash: the next character is escaped
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** The nesting depth of an already parsed value, found without recursion (stops past `max`). */
export function valueNestsDeeper(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const stack: Array<{ v: unknown; d: number }> = [{ v: value, d: 0 }];
  const seen = new Set<object>();
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const { v, d } = top;
    if (v === null || typeof v !== 'object' || seen.has(v)) continue;
    if (d + 1 > max) return true;
    seen.add(v);
    for (const x of Array.isArray(v) ? v : Object.values(v)) stack.push({ v: x, d: d + 1 });
  }
  return false;
}
