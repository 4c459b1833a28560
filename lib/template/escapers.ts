import { sprint } from './fmt.js';
import { codePoints, isPrint, utf8Bytes } from './quote.js';
import { isNil } from './values.js';

// The html, js and urlquery builtins. Like Go they first turn their arguments into one string:
// a single string passes as is, otherwise each nil becomes "<no value>" and the rest is Sprint.

export function argsToString(args: readonly unknown[]): string {
  if (args.length === 1 && typeof args[0] === 'string') return args[0];
  return sprint(args.map((a) => (isNil(a) ? '<no value>' : a)));
}

const HTML: Record<string, string> = {
  '\0': '\uFFFD',
  '"': '&#34;',
  "'": '&#39;',
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
};

export function htmlEscape(s: string): string {
  return s.replace(/[\0"'&<>]/g, (c) => HTML[c] ?? c);
}

const JS: Record<number, string> = {
  92: '\\\\',
  39: "\\'",
  34: '\\"',
  60: '\\u003C',
  62: '\\u003E',
  38: '\\u0026',
  61: '\\u003D',
};

export function jsEscape(s: string): string {
  let out = '';
  for (const cp of codePoints(s)) {
    const named = JS[cp];
    if (named !== undefined) out += named;
    else if (cp < 0x20) out += `\\u00${cp.toString(16).toUpperCase().padStart(2, '0')}`;
    else if (cp < 0x80 || isPrint(cp)) out += String.fromCodePoint(cp);
    else out += `\\u${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  }
  return out;
}

/** url.QueryEscape: unreserved bytes stay, space becomes '+', the rest %XX. */
export function urlQueryEscape(s: string): string {
  let out = '';
  for (const b of utf8Bytes(s)) {
    const unreserved =
      (b >= 0x30 && b <= 0x39) ||
      (b >= 0x41 && b <= 0x5a) ||
      (b >= 0x61 && b <= 0x7a) ||
      b === 0x2d ||
      b === 0x2e ||
      b === 0x5f ||
      b === 0x7e;
    if (unreserved) out += String.fromCharCode(b);
    else if (b === 0x20) out += '+';
    else out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}
