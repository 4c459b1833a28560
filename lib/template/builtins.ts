import { argsToString, htmlEscape, jsEscape, urlQueryEscape } from './escapers.js';
import { formatValue, sprint, sprintf, sprintln } from './fmt.js';
import { compareStrings, utf8Bytes, utf8Decode, utf8Length } from './quote.js';
import { slug } from './slug.js';
import { goType, hasKey, isInt, isMap, isNil, isTrue } from './values.js';

/** A builtin refusing its arguments; the evaluator reports it as `error calling NAME: …`. */
export class FuncError extends Error {}

export type ParamType = 'any' | 'string';

/**
 * Go checks arity and parameter types from each builtin's signature; `fixed` and `params` carry
 * that signature. and, or and call are evaluated specially (short-circuit, callee name) but are
 * listed so that parsing and arity checks see them.
 */
export interface Builtin {
  readonly fixed: number;
  readonly variadic: boolean;
  readonly params?: readonly ParamType[];
  readonly impl: (args: unknown[]) => unknown;
}

function indexArg(index: unknown, cap: number): number {
  if (isNil(index)) throw new FuncError('cannot index slice/array with nil');
  if (!isInt(index)) throw new FuncError(`cannot index slice/array with type ${goType(index)}`);
  if (index < 0 || index > cap) throw new FuncError(`index out of range: ${index}`);
  return index;
}

function index(item: unknown, indexes: unknown[]): unknown {
  if (isNil(item)) throw new FuncError('index of untyped nil');
  let cur: unknown = item;
  for (const idx of indexes) {
    if (isNil(cur)) throw new FuncError('index of nil pointer');
    if (typeof cur === 'string') {
      const bytes = utf8Bytes(cur);
      const x = indexArg(idx, bytes.length);
      if (x === bytes.length) throw new FuncError('reflect: string index out of range');
      cur = bytes[x];
    } else if (Array.isArray(cur)) {
      const x = indexArg(idx, cur.length);
      if (x === cur.length) throw new FuncError('reflect: slice index out of range');
      cur = cur[x];
    } else if (isMap(cur)) {
      if (isNil(idx)) throw new FuncError('value is nil; should be of type string');
      if (typeof idx !== 'string') {
        throw new FuncError(`value has type ${goType(idx)}; should be string`);
      }
      // A missing key yields the element type's zero value; svc's maps hold strings.
      cur = hasKey(cur, idx) ? cur[idx] : '';
    } else {
      throw new FuncError(`can't index item of type ${goType(cur)}`);
    }
  }
  return cur;
}

function slice(item: unknown, indexes: unknown[]): unknown {
  if (isNil(item)) throw new FuncError('slice of untyped nil');
  if (indexes.length > 3) throw new FuncError(`too many slice indexes: ${indexes.length}`);
  let len: number;
  if (typeof item === 'string') {
    if (indexes.length === 3) throw new FuncError('cannot 3-index slice a string');
    len = utf8Length(item);
  } else if (Array.isArray(item)) {
    len = item.length;
  } else {
    throw new FuncError(`can't slice item of type ${goType(item)}`);
  }
  const idx = [0, len, len];
  indexes.forEach((x, i) => {
    idx[i] = indexArg(x, len);
  });
  const [i = 0, j = len, k = len] = idx;
  if (i > j) throw new FuncError(`invalid slice index: ${i} > ${j}`);
  if (indexes.length === 3 && j > k) throw new FuncError(`invalid slice index: ${j} > ${k}`);
  if (typeof item === 'string') return utf8Decode(utf8Bytes(item).subarray(i, j));
  return (item as unknown[]).slice(i, j);
}

function length(item: unknown): number {
  if (isNil(item)) throw new FuncError('len of nil pointer');
  if (typeof item === 'string') return utf8Length(item);
  if (Array.isArray(item)) return item.length;
  if (isMap(item)) return Object.keys(item).length;
  throw new FuncError(`len of type ${goType(item)}`);
}

type BasicKind = 'bool' | 'number' | 'string';

// JS numbers are one kind here: Go would refuse to compare an int with a float64, but JS data
// cannot say which of the two a value was meant to be.
function basicKind(v: unknown): BasicKind | null {
  switch (typeof v) {
    case 'boolean':
      return 'bool';
    case 'number':
      return 'number';
    case 'string':
      return 'string';
    default:
      return null;
  }
}

function refKind(v: unknown): string {
  if (isNil(v)) return 'nil';
  return typeof v === 'function' ? 'func' : Array.isArray(v) ? 'slice' : 'map';
}

function eq(arg1: unknown, rest: unknown[]): boolean {
  if (rest.length === 0) throw new FuncError('missing argument for comparison');
  const k1 = basicKind(arg1);
  for (const arg of rest) {
    const k2 = basicKind(arg);
    let truth = false;
    if (k1 !== k2) {
      if (!isNil(arg1) && !isNil(arg)) {
        throw new FuncError(
          `incompatible types for comparison: ${goType(arg1)} and ${goType(arg)}`,
        );
      }
    } else if (k1 !== null) {
      truth = arg1 === arg;
    } else if (isNil(arg1) || isNil(arg)) {
      truth = isNil(arg1) === isNil(arg);
    } else if (refKind(arg1) !== refKind(arg)) {
      throw new FuncError(
        `non-comparable types ${formatValue(arg1)}: ${goType(arg1)}, ${goType(arg)}: ${formatValue(arg)}`,
      );
    } else {
      throw new FuncError(`non-comparable type ${formatValue(arg)}: ${goType(arg)}`);
    }
    if (truth) return true;
  }
  return false;
}

function lt(a: unknown, b: unknown): boolean {
  const k1 = basicKind(a);
  const k2 = basicKind(b);
  if (k1 === null || k2 === null) throw new FuncError('invalid type for comparison');
  if (k1 !== k2) {
    throw new FuncError(`incompatible types for comparison: ${goType(a)} and ${goType(b)}`);
  }
  if (k1 === 'bool') throw new FuncError('invalid type for comparison');
  if (k1 === 'string') return compareStrings(a as string, b as string) < 0;
  return (a as number) < (b as number);
}

function le(a: unknown, b: unknown): boolean {
  return lt(a, b) || eq(a, [b]);
}

function call(args: unknown[]): unknown {
  const [name, fn, ...rest] = args;
  if (isNil(fn)) throw new FuncError('call of nil');
  if (typeof fn !== 'function') {
    throw new FuncError(`non-function ${String(name)} of type ${goType(fn)}`);
  }
  return fn(...rest);
}

const unreachable = (): never => {
  throw new Error('evaluated by the executor');
};

export const BUILTINS: ReadonlyMap<string, Builtin> = new Map<string, Builtin>([
  ['and', { fixed: 1, variadic: true, impl: unreachable }],
  ['or', { fixed: 1, variadic: true, impl: unreachable }],
  ['call', { fixed: 1, variadic: true, impl: call }],
  ['not', { fixed: 1, variadic: false, impl: ([a]) => !isTrue(a) }],
  ['len', { fixed: 1, variadic: false, impl: ([a]) => length(a) }],
  ['index', { fixed: 1, variadic: true, impl: ([a, ...rest]) => index(a, rest) }],
  ['slice', { fixed: 1, variadic: true, impl: ([a, ...rest]) => slice(a, rest) }],
  ['eq', { fixed: 1, variadic: true, impl: ([a, ...rest]) => eq(a, rest) }],
  ['ne', { fixed: 2, variadic: false, impl: ([a, b]) => !eq(a, [b]) }],
  ['lt', { fixed: 2, variadic: false, impl: ([a, b]) => lt(a, b) }],
  ['le', { fixed: 2, variadic: false, impl: ([a, b]) => le(a, b) }],
  ['gt', { fixed: 2, variadic: false, impl: ([a, b]) => !le(a, b) }],
  ['ge', { fixed: 2, variadic: false, impl: ([a, b]) => !lt(a, b) }],
  ['print', { fixed: 0, variadic: true, impl: (args) => sprint(args) }],
  ['println', { fixed: 0, variadic: true, impl: (args) => sprintln(args) }],
  [
    'printf',
    {
      fixed: 1,
      variadic: true,
      params: ['string'],
      impl: ([format, ...rest]) => sprintf(format as string, rest),
    },
  ],
  ['html', { fixed: 0, variadic: true, impl: (args) => htmlEscape(argsToString(args)) }],
  ['js', { fixed: 0, variadic: true, impl: (args) => jsEscape(argsToString(args)) }],
  ['urlquery', { fixed: 0, variadic: true, impl: (args) => urlQueryEscape(argsToString(args)) }],
  ['slug', { fixed: 1, variadic: false, params: ['string'], impl: ([s]) => slug(s as string) }],
]);
