/**
 * Tainted strings (decision 014): a value that must never be spliced into text as-is, such as a
 * task title inside a shell command. Inside the template it behaves exactly like its string —
 * comparisons, `len`, `printf`, conditions — but when printed it is written by its printer
 * (e.g. as a quoted environment variable reference). A function given a tainted argument returns
 * a tainted string, so `{{printf "%s-x" .Task.Title}}` stays tainted too.
 */
const BRAND = Symbol.for('svc.template.tainted');

export type TaintPrinter = (value: string) => string;

export class Tainted {
  readonly [BRAND] = true;
  constructor(
    readonly value: string,
    readonly printer: TaintPrinter,
  ) {}
}

export function taint(value: string, printer: TaintPrinter): Tainted {
  return new Tainted(value, printer);
}

export function isTainted(v: unknown): v is Tainted {
  return typeof v === 'object' && v !== null && (v as { [BRAND]?: unknown })[BRAND] === true;
}

export function unwrap(v: unknown): unknown {
  return isTainted(v) ? v.value : v;
}

/** The first tainted value anywhere inside `v` (arrays and maps included), if any. */
export function findTaint(v: unknown, depth = 0): Tainted | null {
  if (isTainted(v)) return v;
  if (depth > 8 || v === null || typeof v !== 'object') return null;
  for (const x of Array.isArray(v) ? v : Object.values(v)) {
    const t = findTaint(x, depth + 1);
    if (t) return t;
  }
  return null;
}

/** A copy of `v` with every tainted string replaced by its plain value. */
export function deepUnwrap(v: unknown, depth = 0): unknown {
  if (isTainted(v)) return v.value;
  if (depth > 8 || v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map((x) => deepUnwrap(x, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = deepUnwrap(x, depth + 1);
  return out;
}
