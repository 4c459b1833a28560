import { quote, unicodeName } from './quote.js';

// Go's text/template/parse lexer, run to completion up front: the parser only ever reads tokens
// in order, and a lexing error ends the token list exactly where Go's lexer would stop, so the
// parser meets it at the same point. Comments are dropped here, as Go does without ParseComments.

export type Keyword =
  | 'block'
  | 'break'
  | 'continue'
  | 'define'
  | 'dot'
  | 'else'
  | 'end'
  | 'if'
  | 'nil'
  | 'range'
  | 'template'
  | 'with';

export type TokenType =
  | 'error'
  | 'eof'
  | 'text'
  | 'leftDelim'
  | 'rightDelim'
  | 'space'
  | 'bool'
  | 'char'
  | 'charConstant'
  | 'number'
  | 'string'
  | 'rawString'
  | 'field'
  | 'variable'
  | 'identifier'
  | 'assign'
  | 'declare'
  | 'pipe'
  | 'leftParen'
  | 'rightParen'
  | Keyword;

export interface Token {
  readonly type: TokenType;
  readonly pos: number;
  readonly val: string;
}

const KEYWORDS: ReadonlySet<string> = new Set([
  'block',
  'break',
  'continue',
  'define',
  'else',
  'end',
  'if',
  'nil',
  'range',
  'template',
  'with',
]);

export function isKeyword(t: TokenType): t is Keyword {
  return t === 'dot' || KEYWORDS.has(t);
}

/** Go's item.String(), used in "unexpected X in Y" messages. */
export function tokenString(t: Token): string {
  if (t.type === 'eof') return 'EOF';
  if (t.type === 'error') return t.val;
  if (isKeyword(t.type)) return `<${t.val}>`;
  const cps = [...t.val];
  if (cps.length > 10) return `${quote(cps.slice(0, 10).join(''))}...`;
  return quote(t.val);
}

const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const ALNUM = /^[\p{L}\p{Nd}_]$/u;

export interface LexOptions {
  /** false when a function named break (continue) exists: then the word is an identifier. */
  readonly breakOK: boolean;
  readonly continueOK: boolean;
}

export function lex(input: string, options: LexOptions): Token[] {
  const tokens: Token[] = [];
  const n = input.length;
  let pos = 0;

  const charAt = (i: number): string | undefined => {
    if (i >= n) return undefined;
    const cp = input.codePointAt(i) ?? 0;
    return String.fromCodePoint(cp);
  };
  const isAlnum = (i: number): boolean => {
    const c = charAt(i);
    return c !== undefined && ALNUM.test(c);
  };
  const atRightDelim = (i: number): { delim: boolean; trim: boolean } => {
    if (isSpace(input[i]) && input[i + 1] === '-' && input.startsWith('}}', i + 2)) {
      return { delim: true, trim: true };
    }
    return { delim: input.startsWith('}}', i), trim: false };
  };
  const atTerminator = (i: number): boolean => {
    const c = input[i];
    if (c === undefined || isSpace(c)) return true;
    if ('.,|:()'.includes(c)) return true;
    return input.startsWith('}}', i);
  };
  const skipSpaces = (i: number): number => {
    let j = i;
    while (isSpace(input[j])) j++;
    return j;
  };
  const emit = (type: TokenType, start: number, end: number) => {
    tokens.push({ type, pos: start, val: input.slice(start, end) });
  };
  const fail = (at: number, message: string): Token[] => {
    tokens.push({ type: 'error', pos: at, val: message });
    return tokens;
  };
  const badChar = (i: number): string => unicodeName(input.codePointAt(i) ?? 0);

  for (;;) {
    // Text up to the next action; a "{{- " trims the whitespace before it.
    const start = pos;
    const open = input.indexOf('{{', pos);
    if (open < 0) {
      if (n > start) emit('text', start, n);
      tokens.push({ type: 'eof', pos: n, val: '' });
      return tokens;
    }
    const trimBefore = input[open + 2] === '-' && isSpace(input[open + 3]);
    let textEnd = open;
    if (trimBefore) while (textEnd > start && isSpace(input[textEnd - 1])) textEnd--;
    if (textEnd > start) emit('text', start, textEnd);
    pos = open + 2 + (trimBefore ? 2 : 0);

    if (input.startsWith('/*', pos)) {
      const close = input.indexOf('*/', pos + 2);
      if (close < 0) return fail(open, 'unclosed comment');
      pos = close + 2;
      const rd = atRightDelim(pos);
      if (!rd.delim) return fail(open, 'comment ends before closing delimiter');
      pos += (rd.trim ? 2 : 0) + 2;
      if (rd.trim) pos = skipSpaces(pos);
      continue;
    }

    tokens.push({ type: 'leftDelim', pos: open, val: '{{' });
    const parens: number[] = [];
    for (;;) {
      const rd = atRightDelim(pos);
      if (rd.delim) {
        if (parens.length > 0) return fail(parens[parens.length - 1]!, 'unclosed left paren');
        const at = pos + (rd.trim ? 2 : 0);
        tokens.push({ type: 'rightDelim', pos: at, val: '}}' });
        pos = at + 2;
        if (rd.trim) pos = skipSpaces(pos);
        break;
      }
      const tokStart = pos;
      const c = input[pos];
      if (c === undefined) return fail(open, 'unclosed action');
      if (isSpace(c)) {
        let end = skipSpaces(pos);
        // A " -}}" starts with one of these spaces: leave it for the delimiter.
        if (input[end] === '-' && input.startsWith('}}', end + 1)) end--;
        if (end > pos) emit('space', pos, end);
        pos = end;
        continue;
      }
      switch (c) {
        case '=':
          pos++;
          emit('assign', tokStart, pos);
          continue;
        case ':':
          if (input[pos + 1] !== '=') return fail(tokStart, 'expected :=');
          pos += 2;
          emit('declare', tokStart, pos);
          continue;
        case '|':
          pos++;
          emit('pipe', tokStart, pos);
          continue;
        case '(':
          parens.push(pos);
          pos++;
          emit('leftParen', tokStart, pos);
          continue;
        case ')':
          if (parens.pop() === undefined) return fail(tokStart, 'unexpected right paren');
          pos++;
          emit('rightParen', tokStart, pos);
          continue;
        case '"': {
          let i = pos + 1;
          for (;;) {
            const q = input[i];
            if (q === '\\' && input[i + 1] !== undefined && input[i + 1] !== '\n') i += 2;
            else if (q === undefined || q === '\n' || q === '\\') {
              return fail(tokStart, 'unterminated quoted string');
            } else if (q === '"') break;
            else i++;
          }
          pos = i + 1;
          emit('string', tokStart, pos);
          continue;
        }
        case '`': {
          const close = input.indexOf('`', pos + 1);
          if (close < 0) return fail(tokStart, 'unterminated raw quoted string');
          pos = close + 1;
          emit('rawString', tokStart, pos);
          continue;
        }
        case "'": {
          let i = pos + 1;
          for (;;) {
            const q = input[i];
            if (q === '\\' && input[i + 1] !== undefined && input[i + 1] !== '\n') i += 2;
            else if (q === undefined || q === '\n' || q === '\\') {
              return fail(tokStart, 'unterminated character constant');
            } else if (q === "'") break;
            else i++;
          }
          pos = i + 1;
          emit('charConstant', tokStart, pos);
          continue;
        }
        case '$':
        case '.': {
          // "." followed by a digit starts a number; "$" or "." alone is the variable or dot.
          if (c === '.' && input[pos + 1] !== undefined && /[0-9]/.test(input[pos + 1]!)) break;
          let i = pos + 1;
          if (atTerminator(i)) {
            pos = i;
            emit(c === '$' ? 'variable' : 'dot', tokStart, pos);
            continue;
          }
          while (isAlnum(i)) i += charAt(i)!.length;
          if (!atTerminator(i)) return fail(tokStart, `bad character ${badChar(i)}`);
          pos = i;
          emit(c === '$' ? 'variable' : 'field', tokStart, pos);
          continue;
        }
      }
      if (c === '.' || c === '+' || c === '-' || (c >= '0' && c <= '9')) {
        const end = scanNumber(input, pos);
        if (end < 0) return fail(tokStart, `bad number syntax: ${quote(input.slice(pos, -end))}`);
        pos = end;
        if (input[pos] === '+' || input[pos] === '-') {
          // Go lexes 1+2i as one complex constant; the parser rejects it.
          const end2 = scanNumber(input, pos);
          if (end2 < 0 || input[end2 - 1] !== 'i') {
            const stop = end2 < 0 ? -end2 : end2;
            return fail(tokStart, `bad number syntax: ${quote(input.slice(tokStart, stop))}`);
          }
          pos = end2;
        }
        emit('number', tokStart, pos);
        continue;
      }
      if (isAlnum(pos)) {
        let i = pos;
        while (isAlnum(i)) i += charAt(i)!.length;
        if (!atTerminator(i)) return fail(tokStart, `bad character ${badChar(i)}`);
        const word = input.slice(pos, i);
        pos = i;
        if (KEYWORDS.has(word)) {
          const demoted =
            (word === 'break' && !options.breakOK) || (word === 'continue' && !options.continueOK);
          emit(demoted ? 'identifier' : (word as Keyword), tokStart, pos);
        } else if (word === 'true' || word === 'false') {
          emit('bool', tokStart, pos);
        } else {
          emit('identifier', tokStart, pos);
        }
        continue;
      }
      const cp = input.codePointAt(pos) ?? 0;
      if (cp < 0x7f && cp >= 0x20) {
        pos++;
        emit('char', tokStart, pos);
        continue;
      }
      return fail(tokStart, `unrecognized character in action: ${unicodeName(cp)}`);
    }
  }
}

/**
 * Go's scanNumber: permissive (the parser validates), returning the end index, or minus the end
 * of the bad text when an alphanumeric character follows.
 */
function scanNumber(s: string, start: number): number {
  let i = start;
  const accept = (set: string): boolean => {
    if (i < s.length && set.includes(s[i]!)) {
      i++;
      return true;
    }
    return false;
  };
  const acceptRun = (set: string): void => {
    while (i < s.length && set.includes(s[i]!)) i++;
  };
  accept('+-');
  let digits = '0123456789_';
  if (accept('0')) {
    if (accept('xX')) digits = '0123456789abcdefABCDEF_';
    else if (accept('oO')) digits = '01234567_';
    else if (accept('bB')) digits = '01_';
  }
  acceptRun(digits);
  if (accept('.')) acceptRun(digits);
  if (digits.length === 11 && accept('eE')) {
    accept('+-');
    acceptRun('0123456789_');
  }
  if (digits.length === 23 && accept('pP')) {
    accept('+-');
    acceptRun('0123456789_');
  }
  accept('i');
  if (i < s.length && ALNUM.test(String.fromCodePoint(s.codePointAt(i) ?? 0))) {
    return -(i + 1);
  }
  return i;
}
