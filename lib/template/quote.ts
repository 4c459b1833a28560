// Go's strconv quoting and unicode.IsPrint, which printf's %q, the js escaper and error messages
// all share. JS strings are UTF-16, so a lone surrogate stands in for Go's invalid UTF-8 and is
// treated as U+FFFD, which is what encoding it to UTF-8 would produce.

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

/** unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space only. */
export function isPrint(cp: number): boolean {
  if (cp < 0x80) return cp >= 0x20 && cp < 0x7f;
  if (cp >= 0xd800 && cp <= 0xdfff) return false;
  return PRINTABLE.test(String.fromCodePoint(cp));
}

/** Code points of s, with lone surrogates replaced by U+FFFD. */
export function codePoints(s: string): number[] {
  const out: number[] = [];
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0xfffd;
    out.push(cp >= 0xd800 && cp <= 0xdfff ? 0xfffd : cp);
  }
  return out;
}

const ESCAPES: Record<number, string> = {
  7: '\\a',
  8: '\\b',
  12: '\\f',
  10: '\\n',
  13: '\\r',
  9: '\\t',
  11: '\\v',
};

function escapeRune(cp: number, quote: number, asciiOnly: boolean): string {
  if (cp === quote || cp === 0x5c) return `\\${String.fromCodePoint(cp)}`;
  if (asciiOnly ? cp < 0x80 && isPrint(cp) : isPrint(cp)) return String.fromCodePoint(cp);
  const named = ESCAPES[cp];
  if (named !== undefined) return named;
  if (cp < 0x20 || cp === 0x7f) return `\\x${cp.toString(16).padStart(2, '0')}`;
  if (cp < 0x10000) return `\\u${cp.toString(16).padStart(4, '0')}`;
  return `\\U${cp.toString(16).padStart(8, '0')}`;
}

/** strconv.Quote (or QuoteToASCII): a double-quoted Go string literal. */
export function quote(s: string, asciiOnly = false): string {
  let out = '"';
  for (const cp of codePoints(s)) out += escapeRune(cp, 0x22, asciiOnly);
  return `${out}"`;
}

/** strconv.QuoteRune (or QuoteRuneToASCII): a single-quoted Go character literal. */
export function quoteRune(cp: number, asciiOnly = false): string {
  const valid = cp >= 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff);
  return `'${escapeRune(valid ? cp : 0xfffd, 0x27, asciiOnly)}'`;
}

/** strconv.CanBackquote: whether s can be written as a raw string literal. */
export function canBackquote(s: string): boolean {
  for (const cp of codePoints(s)) {
    if (cp === 0xfffd || cp === 0xfeff || cp === 0x60 || cp === 0x7f) return false;
    if (cp < 0x20 && cp !== 0x09) return false;
  }
  return true;
}

/** fmt's %#U rendering of a rune, used in lexer messages: U+0023 '#'. */
export function unicodeName(cp: number): string {
  const hex = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  return isPrint(cp) ? `${hex} '${String.fromCodePoint(cp)}'` : hex;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function utf8Bytes(s: string): Uint8Array {
  return encoder.encode(s);
}

export function utf8Decode(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/** Byte length of s in UTF-8, which is what Go's len and slice count. */
export function utf8Length(s: string): number {
  let n = 0;
  for (const cp of codePoints(s)) n += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  return n;
}

/** Go string order: byte-wise UTF-8, which is code point order (UTF-16 order differs above U+FFFF). */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}
