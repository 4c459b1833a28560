/**
 * Tainted strings (decision 014): a value that must never be spliced into text as-is, such as a
 * task title inside a shell command. Inside the template it behaves exactly like its string —
 * comparisons, `len`, `printf`, conditions — but when printed it is written by its printer
 * (e.g. as a quoted environment variable reference). A function given a tainted argument returns
 * a tainted string, so `{{printf "%s-x" .Task.Title}}` stays tainted too.
 *
 * Keys are text too (decision 185): a map whose keys someone else wrote carries a key printer, so
 * `{{range $k, $v := .Event}}{{$k}}{{end}}` prints each key through it, and printing the map
 * whole is tainted even when no value is a string. Every walk here is iterative and unbounded: a
 * value nested 10,000 deep is as protected as one nested twice, and never overflows the stack.
 */
const BRAND = Symbol.for('svc.template.tainted');
const KEYS = Symbol.for('svc.template.taintedKeys');

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

/** Marks the keys of map `m` as someone else's text, printed through `printer`. */
export function taintKeys<T extends object>(m: T, printer: TaintPrinter): T {
  Object.defineProperty(m, KEYS, { value: printer, enumerable: false, configurable: true });
  return m;
}

/** The printer of a map's keys, when they are someone else's text. */
export function keyPrinterOf(v: unknown): TaintPrinter | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const p = (v as { [KEYS]?: unknown })[KEYS];
  return typeof p === 'function' ? (p as TaintPrinter) : undefined;
}

type Container = Record<string, unknown> | unknown[];

/** Sets an own property, `__proto__` included (a plain assignment would replace the prototype). */
function put(into: Container, key: string | number, value: unknown): void {
  if (Array.isArray(into)) into[key as number] = value;
  else if (key === '__proto__')
    Object.defineProperty(into, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  else into[key as string] = value;
}

/** Paths (`Task.Fields`, `List[2]`) are tracked this deep; below, nothing is anyone's own. */
const PATH_DEPTH = 4;

interface CopyRules {
  /** The copy of a value that is not an array or a map (a Tainted included). */
  leaf(v: unknown, path: string | null): unknown;
  /** Called with each copied map (before its entries are filled). */
  map?(out: Record<string, unknown>, src: object, path: string | null): void;
}

/**
 * A copy of `root` with leaves replaced by `rules.leaf`, walked with an explicit stack. Shared
 * objects are copied once (a cycle becomes a cycle in the copy, never an endless walk).
 */
function copyTree(root: unknown, rules: CopyRules): unknown {
  const made = new Map<object, unknown>();
  const top: unknown[] = [undefined];
  const stack: Array<{
    src: unknown;
    path: string | null;
    depth: number;
    into: Container;
    key: string | number;
  }> = [{ src: root, path: '', depth: 0, into: top, key: 0 }];
  for (let job = stack.pop(); job !== undefined; job = stack.pop()) {
    const { src, path, depth, into, key } = job;
    if (src === null || typeof src !== 'object' || isTainted(src)) {
      put(into, key, rules.leaf(src, path));
      continue;
    }
    const seen = made.get(src);
    if (seen !== undefined) {
      put(into, key, seen);
      continue;
    }
    const childPath = (k: string | number): string | null => {
      if (path === null || depth >= PATH_DEPTH) return null;
      if (typeof k === 'number') return `${path}[${k}]`;
      return path === '' ? k : `${path}.${k}`;
    };
    if (Array.isArray(src)) {
      const out: unknown[] = new Array(src.length);
      made.set(src, out);
      put(into, key, out);
      for (let i = src.length - 1; i >= 0; i--)
        stack.push({ src: src[i], path: childPath(i), depth: depth + 1, into: out, key: i });
      continue;
    }
    const out: Record<string, unknown> = {};
    made.set(src, out);
    put(into, key, out);
    rules.map?.(out, src, path);
    const keys = Object.keys(src);
    // Keys first, in order, so the copy iterates like the source whatever order entries are filled.
    for (const k of keys) put(out, k, undefined);
    for (let i = keys.length - 1; i >= 0; i--) {
      const k = keys[i] as string;
      stack.push({
        src: (src as Record<string, unknown>)[k],
        path: childPath(k),
        depth: depth + 1,
        into: out,
        key: k,
      });
    }
  }
  return top[0];
}

/** How `taintTree` treats the author's own parts of a template context. */
export interface TaintPolicy {
  printer: TaintPrinter;
  /** True for a string the workflow author wrote (`Step.ID`): it stays plain. */
  plainString?(path: string): boolean;
  /** True for a map whose keys are svc's or the author's (`Task`, `Steps`): they stay plain. */
  plainKeys?(path: string): boolean;
}

/**
 * A copy of `root` where every string is tainted with `policy.printer` and every map's keys are
 * too, except what the policy names by path. Paths are dotted with `[i]` for list items; past
 * PATH_DEPTH levels nothing is exempt.
 */
export function taintTree(root: unknown, policy: TaintPolicy): unknown {
  return copyTree(root, {
    leaf: (v, path) =>
      typeof v === 'string' && !(path !== null && policy.plainString?.(path))
        ? taint(v, policy.printer)
        : v,
    map: (out, _src, path) => {
      if (!(path !== null && policy.plainKeys?.(path))) taintKeys(out, policy.printer);
    },
  });
}

/**
 * The first tainted value anywhere inside `v` (arrays and maps at any depth), if any. A non-empty
 * map with tainted keys counts: its keys are printed with it.
 */
export function findTaint(v: unknown): Tainted | null {
  const seen = new Set<object>();
  const stack: unknown[] = [v];
  for (let i = stack.length; i > 0; i = stack.length) {
    const x = stack.pop();
    if (isTainted(x)) return x;
    if (x === null || typeof x !== 'object' || seen.has(x)) continue;
    seen.add(x);
    if (Array.isArray(x)) {
      for (const y of x) stack.push(y);
      continue;
    }
    const keys = Object.keys(x);
    const kp = keyPrinterOf(x);
    if (kp && keys.length > 0) return new Tainted('', kp);
    for (const k of keys) stack.push((x as Record<string, unknown>)[k]);
  }
  return null;
}

/** A copy of `v` with every tainted string replaced by its plain value, at any depth. */
export function deepUnwrap(v: unknown): unknown {
  if (isTainted(v)) return v.value;
  if (v === null || typeof v !== 'object') return v;
  return copyTree(v, { leaf: (x) => unwrap(x) });
}
