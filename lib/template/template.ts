import type { ListNode } from './ast.js';
import { BUILTINS } from './builtins.js';
import { isTemplateError, type TemplateError } from './errors.js';
import { execute, type MissingKey, type TemplateFunc } from './exec.js';
import { parse } from './parser.js';

export interface TemplateOptions {
  /** Appears in error messages (`template: NAME:1:3: …`). Default 'template'. */
  readonly name?: string;
  /**
   * Extra functions, checked before the builtins (so they may replace one). Each receives the
   * evaluated arguments, the piped value last, and may throw to fail the execution. Calling a
   * name that is in neither set is a parse error, as in Go.
   */
  readonly funcs?: Readonly<Record<string, TemplateFunc>>;
  /** A missing map key: 'error' (default, Go's missingkey=error), 'zero' (""), 'default' (<no value>). */
  readonly missingKey?: MissingKey;
  /** Execution fails once the output would exceed this many UTF-16 code units. */
  readonly maxOutput?: number;
}

export interface Template {
  readonly name: string;
  readonly source: string;
  /** Renders against data (plain objects, arrays, strings, numbers, booleans). Throws TemplateError (kind 'exec'). */
  execute(data: unknown): string;
}

const MISSING_KEYS: readonly MissingKey[] = ['error', 'zero', 'default'];
const IDENTIFIER = /^[\p{L}_][\p{L}\p{Nd}_]*$/u;

function checkOptions(opts: TemplateOptions): Map<string, TemplateFunc> {
  const funcs = new Map<string, TemplateFunc>();
  for (const [name, fn] of Object.entries(opts.funcs ?? {})) {
    if (!IDENTIFIER.test(name))
      throw new TypeError(`function name ${name} is not a valid identifier`);
    if (typeof fn !== 'function') throw new TypeError(`value for ${name} is not a function`);
    funcs.set(name, fn);
  }
  if (opts.missingKey !== undefined && !MISSING_KEYS.includes(opts.missingKey)) {
    throw new TypeError(`missingKey must be one of ${MISSING_KEYS.join(', ')}`);
  }
  const max = opts.maxOutput;
  if (max !== undefined && !(Number.isInteger(max) && max >= 0)) {
    throw new TypeError('maxOutput must be a non-negative integer');
  }
  return funcs;
}

/**
 * Parses a Go text/template. Throws TemplateError (kind 'parse') for bad syntax, unknown functions
 * and undefined variables; throws TypeError for invalid options. The result can be executed any
 * number of times.
 */
export function parseTemplate(source: string, opts: TemplateOptions = {}): Template {
  const funcs = checkOptions(opts);
  const name = opts.name ?? 'template';
  const trees: ReadonlyMap<string, ListNode> = parse(name, source, {
    hasFunction: (fn) => funcs.has(fn) || BUILTINS.has(fn),
    breakOK: !funcs.has('break'),
    continueOK: !funcs.has('continue'),
  });
  const cfg = {
    name,
    source,
    trees,
    funcs,
    missingKey: opts.missingKey ?? 'error',
    maxOutput: opts.maxOutput,
  };
  return { name, source, execute: (data: unknown) => execute(cfg, data) };
}

/** Parses and executes once. Throws TemplateError of either kind. */
export function renderTemplate(source: string, data: unknown, opts?: TemplateOptions): string {
  return parseTemplate(source, opts).execute(data);
}

/** The load-time check: the parse error, or null when the template parses. */
export function checkTemplate(source: string, opts?: TemplateOptions): TemplateError | null {
  try {
    parseTemplate(source, opts);
    return null;
  } catch (e) {
    if (isTemplateError(e)) return e;
    throw e;
  }
}
