import { quote, utf8Decode } from './quote.js';

// Go's literal rules (strconv.Unquote, UnquoteChar, ParseInt/ParseFloat with base 0) for the
// string, character and number constants a template may contain. Failures throw LiteralError
// carrying Go's wording; the parser turns it into a parse error at the literal.

export class LiteralError extends Error {}

const SYNTAX = 'invalid syntax';

function pushRune(bytes: number[], cp: number): void {
  if (cp < 0x80) bytes.push(cp);
  else if (cp < 0x800) bytes.push(0xc0 | (cp >> 6), 0x80 | (cp & 0x3f));
  else if (cp < 0x10000) {
    bytes.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
  } else {
    bytes.push(
      0xf0 | (cp >> 18),
      0x80 | ((cp >> 12) & 0x3f),
      0x80 | ((cp >> 6) & 0x3f),
      0x80 | (cp & 0x3f),
    );
  }
}

const SIMPLE_ESCAPES: Record<string, number> = { a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11 };

/**
 * One possibly escaped character at s[i]: its value, whether it is a raw byte (\x, octal) rather
 * than a rune, and where the next one starts.
 */
function unquoteChar(
  s: string,
  i: number,
  q: string,
): { value: number; byte: boolean; next: number } {
  const c = s[i];
  if (c === undefined || c === q) throw new LiteralError(SYNTAX);
  if (c !== '\\') {
    const cp = s.codePointAt(i) ?? 0xfffd;
    return { value: cp, byte: false, next: i + (cp > 0xffff ? 2 : 1) };
  }
  const e = s[i + 1];
  if (e === undefined) throw new LiteralError(SYNTAX);
  const simple = SIMPLE_ESCAPES[e];
  if (simple !== undefined) return { value: simple, byte: false, next: i + 2 };
  if (e === 'x' || e === 'u' || e === 'U') {
    const n = e === 'x' ? 2 : e === 'u' ? 4 : 8;
    const hex = s.slice(i + 2, i + 2 + n);
    if (hex.length !== n || !/^[0-9a-fA-F]+$/.test(hex)) throw new LiteralError(SYNTAX);
    const value = Number.parseInt(hex, 16);
    if (e !== 'x' && (value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff))) {
      throw new LiteralError(SYNTAX);
    }
    return { value, byte: e === 'x', next: i + 2 + n };
  }
  if (e >= '0' && e <= '7') {
    const oct = s.slice(i + 1, i + 4);
    if (!/^[0-7]{3}$/.test(oct)) throw new LiteralError(SYNTAX);
    const value = Number.parseInt(oct, 8);
    if (value > 255) throw new LiteralError(SYNTAX);
    return { value, byte: true, next: i + 4 };
  }
  if (e === '\\') return { value: 0x5c, byte: false, next: i + 2 };
  if (e === "'" || e === '"') {
    if (e !== q) throw new LiteralError(SYNTAX);
    return { value: e.charCodeAt(0), byte: false, next: i + 2 };
  }
  throw new LiteralError(SYNTAX);
}

/** strconv.Unquote of a "…" or `…` token. */
export function unquoteString(token: string): string {
  if (token[0] === '`') return token.slice(1, -1).replace(/\r/g, '');
  const body = token.slice(1, -1);
  if (!body.includes('\\')) return body;
  const bytes: number[] = [];
  for (let i = 0; i < body.length; ) {
    const { value, byte, next } = unquoteChar(body, i, '"');
    if (byte) bytes.push(value);
    else pushRune(bytes, value);
    i = next;
  }
  return utf8Decode(Uint8Array.from(bytes));
}

/** The rune of a '…' character constant token. */
export function unquoteCharConstant(token: string): number {
  const { value, next } = unquoteChar(token, 1, "'");
  if (token.slice(next) !== "'") throw new LiteralError(`malformed character constant: ${token}`);
  return value;
}

/** strconv's underscoreOK: '_' only between digits (a base prefix counts as a digit). */
function underscoreOK(text: string): boolean {
  let s = text;
  if (s[0] === '+' || s[0] === '-') s = s.slice(1);
  let saw = '^';
  let i = 0;
  let hex = false;
  if (s.length >= 2 && s[0] === '0' && /[bBoOxX]/.test(s[1]!)) {
    i = 2;
    saw = '0';
    hex = s[1] === 'x' || s[1] === 'X';
  }
  for (; i < s.length; i++) {
    const c = s[i]!;
    if ((c >= '0' && c <= '9') || (hex && /[a-fA-F]/.test(c))) {
      saw = '0';
    } else if (c === '_') {
      if (saw !== '0') return false;
      saw = '_';
    } else {
      if (saw === '_') return false;
      saw = '!';
    }
  }
  return saw !== '_';
}

const RADIX: Record<string, number> = { x: 16, X: 16, b: 2, B: 2, o: 8, O: 8 };

/** strconv.ParseInt(text, 0, ∞): the integer, or null when text is not integer syntax. */
function parseInteger(text: string): bigint | null {
  const neg = text[0] === '-';
  let s = text[0] === '+' || text[0] === '-' ? text.slice(1) : text;
  let base = 10;
  if (s.length > 1 && s[0] === '0') {
    const radix = RADIX[s[1]!];
    if (radix !== undefined) {
      base = radix;
      s = s.slice(2);
    } else {
      base = 8;
      s = s.slice(1);
    }
  }
  if (s.includes('_') && !underscoreOK(text)) return null;
  const digits = s.replace(/_/g, '');
  if (digits === '') return null;
  let n = 0n;
  const b = BigInt(base);
  for (const ch of digits) {
    const d = Number.parseInt(ch, 36);
    if (Number.isNaN(d) || d >= base) return null;
    n = n * b + BigInt(d);
  }
  return neg ? -n : n;
}

const DECIMAL_FLOAT = /^[+-]?(?=\.?\d)[\d_]*(\.[\d_]*)?([eE][+-]?\d[\d_]*)?$/;
const HEX_FLOAT = /^([+-]?)0[xX]([0-9a-fA-F_]*)(?:\.([0-9a-fA-F_]*))?[pP]([+-]?\d[\d_]*)$/;

/** strconv.ParseFloat(text, 64): the value, or null on bad syntax or overflow to infinity. */
function parseFloat64(text: string): number | null {
  if (text.includes('_') && !underscoreOK(text)) return null;
  let value: number;
  const hex = HEX_FLOAT.exec(text);
  if (hex) {
    const [, sign, int = '', frac = '', exp = '0'] = hex;
    const mant = (int + frac).replace(/_/g, '');
    if (mant === '') return null;
    const scale = Number(exp.replace(/_/g, '')) - 4 * frac.replace(/_/g, '').length;
    value = Number(BigInt(`0x${mant}`)) * 2 ** scale * (sign === '-' ? -1 : 1);
  } else if (DECIMAL_FLOAT.test(text)) {
    value = Number(text.replace(/_/g, ''));
  } else {
    return null;
  }
  return Number.isFinite(value) ? value : null;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

export interface NumberValue {
  readonly value: number;
  /** An integer constant Go could hold only as uint64: using it as an int fails at exec. */
  readonly overflows: boolean;
}

/** A number token's value as Go's idealConstant would produce it (int or float64). */
export function parseNumber(text: string, isChar: boolean): NumberValue {
  if (isChar) return { value: unquoteCharConstant(text), overflows: false };
  if (text.endsWith('i')) {
    const imaginary = parseFloat64(text.slice(0, -1)) !== null;
    throw new LiteralError(
      imaginary ? 'complex numbers are not supported' : `illegal number syntax: ${quote(text)}`,
    );
  }
  const int = parseInteger(text);
  const looksFloat = /[.eEpP]/.test(text) && !/^[+-]?0[xX][^pP]*$/.test(text);
  if (int !== null && !looksFloat) {
    if (int >= INT64_MIN && int <= INT64_MAX) return { value: Number(int), overflows: false };
    if (int <= UINT64_MAX) return { value: Number(int), overflows: true };
  }
  const f = parseFloat64(text);
  if (f === null) throw new LiteralError(`illegal number syntax: ${quote(text)}`);
  if (!/[.eEpP]/.test(text)) throw new LiteralError(`integer overflow: ${quote(text)}`);
  return { value: f, overflows: false };
}
