import { compareStrings } from './quote.js';
import { isTainted, unwrap } from './taint.js';

// How plain JS data maps onto Go's types, which decide printing, truth and comparison:
//   undefined                    Go's invalid reflect.Value ("no value": a missing key, no data)
//   null                         a nil interface{} (JSON null)
//   integral number below 2^63   int; any other number is float64
//   string, boolean              string, bool
//   array                        []interface {}
//   other object                 map[string]interface {} over its own enumerable keys
//   function                     a func value (only `call` invokes it)

export type GoMap = Record<string, unknown>;

const INT_LIMIT = 2 ** 63;

export function isInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && Math.abs(v) < INT_LIMIT;
}

export function isMap(v: unknown): v is GoMap {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !isTainted(v);
}

export function isNil(v: unknown): v is null | undefined {
  return v === null || v === undefined;
}

export function hasKey(m: GoMap, key: string): boolean {
  return Object.hasOwn(m, key);
}

/** Keys in Go's map order: sorted as Go sorts strings. */
export function sortedKeys(m: GoMap): string[] {
  return Object.keys(m).sort(compareStrings);
}

/** The Go type name used in messages and by %T. */
export function goType(value: unknown): string {
  const v = unwrap(value);
  if (v === null || v === undefined) return '<nil>';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    case 'number':
      return isInt(v) ? 'int' : 'float64';
    case 'bigint':
      return 'int64';
    case 'function':
      return 'func(...interface {}) interface {}';
    default:
      return Array.isArray(v) ? '[]interface {}' : 'map[string]interface {}';
  }
}

/** text/template's truth: the zero value of each type, nil and empty collections are false. */
export function isTrue(value: unknown): boolean {
  const v = unwrap(value);
  if (v === null || v === undefined) return false;
  switch (typeof v) {
    case 'boolean':
      return v;
    case 'number':
      return v !== 0;
    case 'bigint':
      return v !== 0n;
    case 'string':
      return v.length > 0;
    case 'object':
      return Array.isArray(v) ? v.length > 0 : Object.keys(v).length > 0;
    default:
      return true;
  }
}
