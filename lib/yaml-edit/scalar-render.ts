import { isMap, isScalar, isSeq, parseDocument, Scalar } from 'yaml';
import { EditFailure } from './finding.js';

export type ScalarValue = null | boolean | number | string;
export type Context = 'block' | 'flow';

/** A scalar as a value: `null`, `true`, numbers as JSON writes them, strings as plain as is safe. */
export function renderScalar(value: ScalarValue, context: Context): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return renderNumber(value);
  return isPlainSafe(value, 'value', context) ? value : doubleQuote(value);
}

/** YAML caps an implicit key (the `key:` form) at 1024 characters up to its `:`. */
const MAX_KEY_CHARS = 1024;

export function renderKey(key: string, context: Context): string {
  const rendered = isPlainSafe(key, 'key', context) ? key : doubleQuote(key);
  if ([...rendered].length > MAX_KEY_CHARS) {
    throw new EditFailure('unrepresentable_value', `a key over ${MAX_KEY_CHARS} characters`);
  }
  return rendered;
}

function renderNumber(value: number): string {
  if (Number.isNaN(value)) return '.nan';
  if (value === Number.POSITIVE_INFINITY) return '.inf';
  if (value === Number.NEGATIVE_INFINITY) return '-.inf';
  if (Object.is(value, -0)) return '-0.0';
  return String(value);
}

// Probing the parser is slower than a hand-written rule set but cannot drift from what the
// parser accepts; a small cache keeps repeated keys and values cheap.
const plainCache = new Map<string, boolean>();
const PLAIN_CACHE_LIMIT = 4096;

/**
 * A string is written plain only when every context it can land in reads it back as that same
 * string, under YAML 1.2 (what svc reads) and YAML 1.1 (what older tools read), so `on`, `yes`,
 * `1:30` and `2026-01-01` stay quoted and no other reader of the file sees a different value.
 */
function isPlainSafe(text: string, role: 'key' | 'value', context: Context): boolean {
  if (text === '' || text !== text.trim() || text.includes('\t') || [...text].some(needsEscape)) {
    return false;
  }
  const cacheKey = `${role}:${context}:${text}`;
  const cached = plainCache.get(cacheKey);
  if (cached !== undefined) return cached;
  const safe = probesFor(text, role, context).every(
    (probe) => readsBack(probe, text, '1.2') && readsBack(probe, text, '1.1'),
  );
  if (plainCache.size >= PLAIN_CACHE_LIMIT) plainCache.clear();
  plainCache.set(cacheKey, safe);
  return safe;
}

interface Probe {
  source: string;
  /** Where the probed scalar must land: a path of collection steps from the document root. */
  steps: Array<'item' | 'key' | 'value'>;
}

function probesFor(text: string, role: 'key' | 'value', context: Context): Probe[] {
  if (role === 'key') {
    return context === 'block'
      ? [
          { source: `${text}: x\n`, steps: ['key'] },
          { source: `- ${text}: x\n`, steps: ['item', 'key'] },
        ]
      : [{ source: `{${text}: x}`, steps: ['key'] }];
  }
  return context === 'block'
    ? [
        { source: `k: ${text}\n`, steps: ['value'] },
        { source: `- ${text}\n`, steps: ['item'] },
      ]
    : [
        { source: `[${text}]`, steps: ['item'] },
        { source: `{k: ${text}}`, steps: ['value'] },
      ];
}

function readsBack(probe: Probe, text: string, version: '1.1' | '1.2'): boolean {
  const doc = parseDocument(probe.source, { version, prettyErrors: false });
  if (doc.errors.length > 0 || doc.warnings.length > 0) return false;
  let node: unknown = doc.contents;
  for (const step of probe.steps) {
    if (step === 'item') {
      if (!isSeq(node) || node.items.length !== 1) return false;
      node = node.items[0];
    } else {
      if (!isMap(node) || node.items.length !== 1) return false;
      node = step === 'key' ? node.items[0]!.key : node.items[0]!.value;
    }
  }
  return isScalar(node) && node.type === Scalar.PLAIN && node.value === text && !node.comment;
}

const NAMED_ESCAPES: Record<string, string> = {
  '\0': '\\0',
  '\x07': '\\a',
  '\b': '\\b',
  '\t': '\\t',
  '\n': '\\n',
  '\v': '\\v',
  '\f': '\\f',
  '\r': '\\r',
  '\x1b': '\\e',
  '"': '\\"',
  '\\': '\\\\',
  '\x85': '\\N',
  '\u2028': '\\L',
  '\u2029': '\\P',
};

/**
 * Characters YAML cannot carry literally (or that YAML 1.1 reads as line breaks), plus the byte
 * order mark, which a reader could take for the start of a stream.
 */
export function needsEscape(ch: string): boolean {
  const code = ch.codePointAt(0)!;
  if (code === 0x09) return false;
  if (code < 0x20 || code === 0x7f || (code >= 0x80 && code <= 0x9f)) return true;
  if (code === 0x2028 || code === 0x2029 || code === 0xfeff) return true;
  if (code === 0xfffe || code === 0xffff) return true;
  // A lone surrogate (a well-formed pair arrives here as one code point above 0xffff).
  return code >= 0xd800 && code <= 0xdfff;
}

export function doubleQuote(text: string): string {
  let out = '"';
  for (const ch of text) {
    const named = NAMED_ESCAPES[ch];
    if (named !== undefined) out += named;
    else if (needsEscape(ch)) out += hexEscape(ch.codePointAt(0)!);
    else out += ch;
  }
  return out + '"';
}

function hexEscape(code: number): string {
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  return `\\u${code.toString(16).padStart(4, '0')}`;
}

export interface BlockScalar {
  /** `|`, `|-` or `|+`, with an indentation indicator when the text starts with a space. */
  header: string;
  /** Content lines, already indented; empty lines stay empty. */
  body: string[];
}

/**
 * A literal block scalar that reads back as exactly `text`, or null when it would not. Chomping
 * follows the trailing line breaks: none is `|-`, one is `|`, more is `|+`. Whitespace-only lines
 * are where YAML readers disagree most, so every candidate is read back before it is used.
 */
export function renderBlockScalar(
  text: string,
  ownerColumn: number,
  contentIndent: number,
): BlockScalar | null {
  if ([...text].some((ch) => ch !== '\n' && needsEscape(ch))) return null;
  const width = contentIndent - ownerColumn;
  if (width < 1 || width > 9) return null;
  let header: string;
  let lines: string[];
  if (/^\n*$/.test(text)) {
    // Nothing but line breaks: only `|+` keeps them, and `|-` with no lines is the empty string.
    header = text === '' ? '|-' : '|+';
    lines = text.split('\n').slice(1);
  } else {
    const trailing = text.length - text.replace(/\n+$/, '').length;
    lines = text.split('\n');
    if (trailing > 0) lines.pop();
    // Auto-detected indentation would swallow leading whitespace: state the indentation instead.
    const first = lines.find((line) => line !== '') ?? '';
    const indicator = first.trim() === '' || /^\s/.test(first) ? String(width) : '';
    header = `|${indicator}${trailing === 0 ? '-' : trailing === 1 ? '' : '+'}`;
  }
  const block = {
    header,
    body: lines.map((line) => (line === '' ? '' : ' '.repeat(contentIndent) + line)),
  };
  return readsBackBlock(block, text, ownerColumn) ? block : null;
}

function readsBackBlock(block: BlockScalar, text: string, ownerColumn: number): boolean {
  const body = block.body.map((line) => (line === '' ? '' : line.slice(ownerColumn)));
  const probe = [`k: ${block.header}`, ...body, 'z: end', ''].join('\n');
  const doc = parseDocument(probe, { prettyErrors: false });
  if (doc.errors.length > 0 || !isMap(doc.contents)) return false;
  const value = doc.contents.items[0]?.value;
  return isScalar(value) && value.value === text;
}
