import { formatFloat } from './floatfmt.js';
import { canBackquote, codePoints, isPrint, quote, quoteRune, utf8Bytes } from './quote.js';
import { goType, isInt, isNil, sortedKeys } from './values.js';

// Go's fmt as far as templates reach it: Sprint, Sprintln, Sprintf and the %v rendering that
// actions print with. Values follow the type model in values.ts. One leniency: JS has a single
// number type, so an integral number also accepts the float verbs (%f of 3 is "3.000000" where Go,
// given an int, would print %!f(int=3)).

interface Flags {
  plus: boolean;
  minus: boolean;
  sharp: boolean;
  space: boolean;
  zero: boolean;
  sharpV: boolean;
  plusV: boolean;
  wid: number;
  widPresent: boolean;
  prec: number;
  precPresent: boolean;
}

function noFlags(): Flags {
  return {
    plus: false,
    minus: false,
    sharp: false,
    space: false,
    zero: false,
    sharpV: false,
    plusV: false,
    wid: 0,
    widPresent: false,
    prec: 0,
    precPresent: false,
  };
}

const TOO_LARGE = 1e6;

class Printer {
  buf = '';
  f: Flags = noFlags();

  writePadding(n: number): void {
    if (n <= 0) return;
    this.buf += (this.f.zero && !this.f.minus ? '0' : ' ').repeat(n);
  }

  pad(s: string): void {
    if (!this.f.widPresent || this.f.wid === 0) {
      this.buf += s;
      return;
    }
    const width = this.f.wid - codePoints(s).length;
    if (this.f.minus) {
      this.buf += s;
      this.writePadding(width);
    } else {
      this.writePadding(width);
      this.buf += s;
    }
  }

  truncate(s: string): string {
    if (!this.f.precPresent) return s;
    const cps = codePoints(s);
    return cps.length <= this.f.prec ? s : String.fromCodePoint(...cps.slice(0, this.f.prec));
  }

  badVerb(verb: string, arg: unknown): void {
    this.buf += `%!${verb}(`;
    if (isNil(arg)) {
      this.buf += '<nil>';
    } else {
      this.buf += `${goType(arg)}=`;
      this.printArg(arg, 'v');
    }
    this.buf += ')';
  }

  printArg(arg: unknown, verb: string): void {
    if (isNil(arg)) {
      if (verb === 'T' || verb === 'v') this.pad('<nil>');
      else this.badVerb(verb, arg);
      return;
    }
    if (verb === 'T') {
      this.pad(this.truncate(goType(arg)));
      return;
    }
    switch (typeof arg) {
      case 'boolean':
        if (verb === 't' || verb === 'v') this.pad(arg ? 'true' : 'false');
        else this.badVerb(verb, arg);
        return;
      case 'number':
        if (isInt(arg)) this.fmtInt(BigInt(arg), verb, arg);
        else this.fmtFloatArg(arg, verb);
        return;
      case 'bigint':
        this.fmtInt(arg, verb, arg);
        return;
      case 'string':
        this.fmtString(arg, verb);
        return;
      case 'function':
        if (verb === 'v') this.pad('<func>');
        else this.badVerb(verb, arg);
        return;
      case 'object':
        if (Array.isArray(arg)) this.printList(arg, verb);
        else this.printMap(arg as Record<string, unknown>, verb);
        return;
      default:
        this.pad(String(arg));
    }
  }

  // Elements of composites are interface values: a nil one prints bare, whatever the verb.
  printElem(v: unknown, verb: string): void {
    if (isNil(v)) this.buf += this.f.sharpV ? 'interface {}(nil)' : '<nil>';
    else this.printArg(v, verb);
  }

  printList(list: readonly unknown[], verb: string): void {
    const sharp = this.f.sharpV;
    this.buf += sharp ? `${goType(list)}{` : '[';
    list.forEach((v, i) => {
      if (i > 0) this.buf += sharp ? ', ' : ' ';
      this.printElem(v, verb);
    });
    this.buf += sharp ? '}' : ']';
  }

  printMap(m: Record<string, unknown>, verb: string): void {
    const sharp = this.f.sharpV;
    this.buf += sharp ? `${goType(m)}{` : 'map[';
    sortedKeys(m).forEach((k, i) => {
      if (i > 0) this.buf += sharp ? ', ' : ' ';
      this.printArg(k, verb);
      this.buf += ':';
      this.printElem(m[k], verb);
    });
    this.buf += sharp ? '}' : ']';
  }

  fmtString(s: string, verb: string): void {
    switch (verb) {
      case 'v':
        if (this.f.sharpV) this.fmtQ(s);
        else this.pad(this.truncate(s));
        return;
      case 's':
        this.pad(this.truncate(s));
        return;
      case 'q':
        this.fmtQ(s);
        return;
      case 'x':
      case 'X':
        this.fmtSx(s, verb === 'X');
        return;
      default:
        this.badVerb(verb, s);
    }
  }

  fmtQ(s: string): void {
    const t = this.truncate(s);
    if (this.f.sharp && canBackquote(t)) this.pad(`\`${t}\``);
    else this.pad(quote(t, this.f.plus));
  }

  fmtSx(s: string, upper: boolean): void {
    let bytes = utf8Bytes(s);
    if (this.f.precPresent && this.f.prec < bytes.length) bytes = bytes.subarray(0, this.f.prec);
    const prefix = upper ? '0X' : '0x';
    let out = '';
    bytes.forEach((b, i) => {
      if (this.f.space && i > 0) out += this.f.sharp ? ` ${prefix}` : ' ';
      const hex = b.toString(16).padStart(2, '0');
      out += upper ? hex.toUpperCase() : hex;
    });
    if (out !== '' && this.f.sharp) out = prefix + out;
    const zero = this.f.zero;
    this.f.zero = false;
    this.pad(out);
    this.f.zero = zero;
  }

  fmtInt(n: bigint, verb: string, original: unknown): void {
    switch (verb) {
      case 'v':
      case 'd':
        this.fmtInteger(n, 10, verb, false);
        return;
      case 'b':
        this.fmtInteger(n, 2, verb, false);
        return;
      case 'o':
      case 'O':
        this.fmtInteger(n, 8, verb, false);
        return;
      case 'x':
      case 'X':
        this.fmtInteger(n, 16, verb, verb === 'X');
        return;
      case 'c':
        this.pad(String.fromCodePoint(validRune(n)));
        return;
      case 'q':
        this.pad(quoteRune(validRune(n), this.f.plus));
        return;
      case 'U':
        this.fmtUnicode(n);
        return;
      case 'e':
      case 'E':
      case 'f':
      case 'F':
      case 'g':
      case 'G':
        this.fmtFloatArg(Number(n), verb);
        return;
      default:
        this.badVerb(verb, original);
    }
  }

  fmtInteger(n: bigint, base: number, verb: string, upper: boolean): void {
    const f = this.f;
    const negative = n < 0n;
    const abs = negative ? -n : n;
    let prec = 0;
    if (f.precPresent) {
      prec = f.prec;
      if (prec === 0 && abs === 0n) {
        const zero = f.zero;
        f.zero = false;
        this.writePadding(f.wid);
        f.zero = zero;
        return;
      }
    } else if (f.zero && !f.minus && f.widPresent) {
      prec = f.wid;
      if (negative || f.plus || f.space) prec--;
    }
    let s = abs.toString(base);
    if (upper) s = s.toUpperCase();
    if (s.length < prec) s = '0'.repeat(prec - s.length) + s;
    if (f.sharp) {
      if (base === 2) s = `0b${s}`;
      else if (base === 8 && s[0] !== '0') s = `0${s}`;
      else if (base === 16) s = (upper ? '0X' : '0x') + s;
    }
    if (verb === 'O') s = `0o${s}`;
    if (negative) s = `-${s}`;
    else if (f.plus) s = `+${s}`;
    else if (f.space) s = ` ${s}`;
    const zero = f.zero;
    f.zero = false;
    this.pad(s);
    f.zero = zero;
  }

  fmtUnicode(n: bigint): void {
    const u = BigInt.asUintN(64, n);
    let hex = u.toString(16).toUpperCase();
    const prec = this.f.precPresent && this.f.prec > 4 ? this.f.prec : 4;
    if (hex.length < prec) hex = '0'.repeat(prec - hex.length) + hex;
    let s = `U+${hex}`;
    if (this.f.sharp && u <= 0x10ffffn && isPrint(Number(u))) {
      s += ` '${String.fromCodePoint(Number(u))}'`;
    }
    const zero = this.f.zero;
    this.f.zero = false;
    this.pad(s);
    this.f.zero = zero;
  }

  fmtFloatArg(v: number, verb: string): void {
    switch (verb) {
      case 'v':
        this.fmtFloat(v, 'g', -1);
        return;
      case 'e':
      case 'E':
      case 'f':
      case 'F':
        this.fmtFloat(v, verb, 6);
        return;
      case 'g':
      case 'G':
        this.fmtFloat(v, verb, -1);
        return;
      default:
        this.badVerb(verb, v);
    }
  }

  fmtFloat(v: number, verb: string, defaultPrec: number): void {
    const f = this.f;
    const prec = f.precPresent ? f.prec : defaultPrec;
    const fmt = verb === 'F' ? 'f' : (verb as 'e' | 'E' | 'f' | 'g' | 'G');
    let num = formatFloat(v, fmt, prec);
    if (num[0] !== '-' && num[0] !== '+') num = `+${num}`;
    if (f.space && num[0] === '+' && !f.plus) num = ` ${num.slice(1)}`;
    if (num[1] === 'I' || num[1] === 'N') {
      const zero = f.zero;
      f.zero = false;
      if (num[1] === 'N' && !f.space && !f.plus) num = num.slice(1);
      this.pad(num);
      f.zero = zero;
      return;
    }
    if (f.sharp) num = keepTrailingZeros(num, verb, prec);
    if (f.plus || num[0] !== '+') {
      if (f.zero && !f.minus && f.widPresent && f.wid > num.length) {
        this.buf += num[0];
        this.writePadding(f.wid - num.length);
        this.buf += num.slice(1);
        return;
      }
      this.pad(num);
      return;
    }
    this.pad(num.slice(1));
  }
}

function validRune(n: bigint): number {
  if (n < 0n || n > 0x10ffffn) return 0xfffd;
  const cp = Number(n);
  return cp >= 0xd800 && cp <= 0xdfff ? 0xfffd : cp;
}

/** The # flag: always a decimal point, and %g keeps its trailing zeros. */
function keepTrailingZeros(num: string, verb: string, prec: number): string {
  let digits = verb === 'g' || verb === 'G' ? (prec === -1 ? 6 : prec) : 0;
  let body = num;
  let tail = '';
  let hasPoint = false;
  let sawNonzero = false;
  for (let i = 1; i < body.length; i++) {
    const c = body[i];
    if (c === '.') {
      hasPoint = true;
    } else if (c === 'e' || c === 'E') {
      tail = body.slice(i);
      body = body.slice(0, i);
    } else {
      if (c !== '0') sawNonzero = true;
      if (sawNonzero) digits--;
    }
  }
  if (!hasPoint) {
    if (body.length === 2 && body[1] === '0') digits--;
    body += '.';
  }
  return body + '0'.repeat(Math.max(digits, 0)) + tail;
}

function parseNum(s: string, start: number): { num: number; present: boolean; next: number } {
  let num = 0;
  let present = false;
  let i = start;
  for (; i < s.length && s[i]! >= '0' && s[i]! <= '9'; i++) {
    if (num >= TOO_LARGE) return { num: 0, present: false, next: s.length };
    num = num * 10 + (s.charCodeAt(i) - 48);
    present = true;
  }
  return { num, present, next: i };
}

/** fmt.Sprintf, including Go's in-band complaints (%!d(string=x), %!d(MISSING), %!(EXTRA …)). */
export function sprintf(format: string, args: readonly unknown[]): string {
  const p = new Printer();
  const end = format.length;
  let argNum = 0;
  let reordered = false;
  let goodArgNum = true;

  const argNumber = (i: number): { next: number; found: boolean } => {
    if (i >= end || format[i] !== '[') return { next: i, found: false };
    reordered = true;
    const close = format.indexOf(']', i + 1);
    if (close < 0) {
      goodArgNum = false;
      return { next: i + 1, found: false };
    }
    const { num, present, next } = parseNum(format, i + 1);
    if (!present || next !== close || num < 1 || num > args.length) {
      goodArgNum = false;
      return { next: close + 1, found: present && next === close };
    }
    argNum = num - 1;
    return { next: close + 1, found: true };
  };

  const intFromArg = (): { num: number; ok: boolean } => {
    if (argNum >= args.length) return { num: 0, ok: false };
    const v = args[argNum++];
    if (!isInt(v) || Math.abs(v) >= TOO_LARGE) return { num: 0, ok: false };
    return { num: v, ok: true };
  };

  let i = 0;
  while (i < end) {
    goodArgNum = true;
    const lasti = i;
    while (i < end && format[i] !== '%') i++;
    if (i > lasti) p.buf += format.slice(lasti, i);
    if (i >= end) break;
    i++;
    const f = noFlags();
    p.f = f;
    for (; i < end; i++) {
      const c = format[i];
      if (c === '#') f.sharp = true;
      else if (c === '0') f.zero = !f.minus;
      else if (c === '+') f.plus = true;
      else if (c === '-') {
        f.minus = true;
        f.zero = false;
      } else if (c === ' ') f.space = true;
      else break;
    }
    let idx = argNumber(i);
    i = idx.next;
    let afterIndex = idx.found;
    if (i < end && format[i] === '*') {
      i++;
      const w = intFromArg();
      f.wid = w.num;
      f.widPresent = w.ok;
      if (!w.ok) p.buf += '%!(BADWIDTH)';
      if (f.wid < 0) {
        f.wid = -f.wid;
        f.minus = true;
        f.zero = false;
      }
      afterIndex = false;
    } else {
      const w = parseNum(format, i);
      f.wid = w.num;
      f.widPresent = w.present;
      i = w.next;
      if (afterIndex && f.widPresent) goodArgNum = false;
    }
    if (i < end && format[i] === '.') {
      i++;
      if (afterIndex) goodArgNum = false;
      idx = argNumber(i);
      i = idx.next;
      afterIndex = idx.found;
      if (i < end && format[i] === '*') {
        i++;
        const pr = intFromArg();
        f.prec = pr.num;
        f.precPresent = pr.ok;
        if (f.prec < 0) {
          f.prec = 0;
          f.precPresent = false;
        }
        if (!f.precPresent) p.buf += '%!(BADPREC)';
        afterIndex = false;
      } else {
        const pr = parseNum(format, i);
        i = pr.next;
        f.prec = pr.present ? pr.num : 0;
        f.precPresent = true;
      }
    }
    if (!afterIndex) {
      idx = argNumber(i);
      i = idx.next;
    }
    if (i >= end) {
      p.buf += '%!(NOVERB)';
      break;
    }
    const verb = String.fromCodePoint(format.codePointAt(i) ?? 0xfffd);
    i += verb.length;
    if (verb === '%') {
      p.buf += '%';
    } else if (!goodArgNum) {
      p.buf += `%!${verb}(BADINDEX)`;
    } else if (argNum >= args.length) {
      p.buf += `%!${verb}(MISSING)`;
    } else {
      if (verb === 'v') {
        f.sharpV = f.sharp;
        f.sharp = false;
        f.plusV = f.plus;
        f.plus = false;
      }
      p.printArg(args[argNum], verb);
      argNum++;
    }
  }
  if (!reordered && argNum < args.length) {
    p.f = noFlags();
    p.buf += '%!(EXTRA ';
    args.slice(argNum).forEach((arg, k) => {
      if (k > 0) p.buf += ', ';
      if (isNil(arg)) {
        p.buf += '<nil>';
      } else {
        p.buf += `${goType(arg)}=`;
        p.printArg(arg, 'v');
      }
    });
    p.buf += ')';
  }
  return p.buf;
}

/** fmt.Sprint: operands separated by a space when neither side is a string. */
export function sprint(args: readonly unknown[]): string {
  const p = new Printer();
  let prevString = false;
  args.forEach((arg, i) => {
    const isString = typeof arg === 'string';
    if (i > 0 && !isString && !prevString) p.buf += ' ';
    p.printArg(arg, 'v');
    prevString = isString;
  });
  return p.buf;
}

/** fmt.Sprintln: operands always separated by a space, and a trailing newline. */
export function sprintln(args: readonly unknown[]): string {
  const p = new Printer();
  args.forEach((arg, i) => {
    if (i > 0) p.buf += ' ';
    p.printArg(arg, 'v');
  });
  return `${p.buf}\n`;
}

/** %v of one value, as an action prints it (nil aside, which the caller renders). */
export function formatValue(v: unknown): string {
  if (typeof v === 'string') return v;
  const p = new Printer();
  p.printArg(v, 'v');
  return p.buf;
}
