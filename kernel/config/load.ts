/**
 * Reading and validating config.yaml. Pure apart from the file read; no side effects on failure.
 * Nothing here throws past its boundary (decision 187): a file too large, an alias bomb, nesting
 * past the bound, a parser that runs out of stack, or an empty file all come back as findings,
 * refused like any other invalid edit.
 */
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { parseDocument } from 'yaml';
import { type Finding, findingsFromZod, valueNestsDeeper } from '../input/index.js';
import { type Config, ConfigSchema } from './schema.js';

export type ConfigLoad =
  | { ok: true; config: Config; raw: Record<string, unknown>; text: string }
  | { ok: false; findings: Finding[]; text: string };

/** A config file is a page of keys; anything this large is not one. */
export const CONFIG_MAX_BYTES = 1024 * 1024;
/** Aliases a document may expand (yaml's own guard against exponential "billion laughs"). */
export const CONFIG_MAX_ALIASES = 100;
/** Nesting of mappings and lists, far past the schema's own depth. */
export const CONFIG_MAX_DEPTH = 32;

const refuse = (text: string, message: string, line?: number): ConfigLoad => ({
  ok: false,
  text,
  findings: [{ path: '', message, ...(line === undefined ? {} : { line }) }],
});

/** No config key sits this far right; a deeper line is nesting, not layout. */
const MAX_INDENT = 512;

/**
 * Why the raw text nests too deep to hand to the parser, or null: flow collections (`[`, `{`
 * outside quotes and comments) opened past `max`, or a line indented past MAX_INDENT columns. One
 * pass, no recursion: the parser follows nesting on the stack, and 100,000 `[` took it seconds
 * to overflow.
 */
export function yamlNestingProblem(text: string, max = CONFIG_MAX_DEPTH): string | null {
  let depth = 0;
  let quote: '"' | "'" | null = null;
  let lineStart = true;
  let indent = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '\n') {
      lineStart = true;
      indent = 0;
      continue;
    }
    if (lineStart && c === ' ') {
      if (++indent > MAX_INDENT) return `it has a line indented past ${MAX_INDENT} columns`;
      continue;
    }
    lineStart = false;
    if (quote === '"') {
      if (c === '\\') i++;
      else if (c === '"') quote = null;
      continue;
    }
    if (quote === "'") {
      if (c === "'") quote = null;
      continue;
    }
    // A quote opens a scalar only where one can start (`don't` in a plain scalar is text).
    if ((c === '"' || c === "'") && /[\s[{,:?-]/.test(i === 0 ? ' ' : (text[i - 1] as string)))
      quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(text[i - 1] as string))) {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end - 1;
    } else if (c === '[' || c === '{') {
      if (++depth > max) return `it nests deeper than ${max} levels`;
    } else if ((c === ']' || c === '}') && depth > 0) depth--;
  }
  return null;
}

/** True for text with nothing in it but blanks: an editor's truncation, not a config. */
export function isBlankConfig(text: string): boolean {
  return text.trim() === '';
}

export interface ParseOptions {
  /** An empty file means "all defaults" (only at first start, or for a file that is absent). */
  allowEmpty?: boolean;
}

/** Parses and validates config text. A document of comments alone means "all defaults". */
export function parseConfigText(text: string, opts: ParseOptions = {}): ConfigLoad {
  const bytes = Buffer.byteLength(text);
  if (bytes > CONFIG_MAX_BYTES)
    return refuse(text, `config.yaml is ${bytes} bytes, over the limit of ${CONFIG_MAX_BYTES}`);
  if (isBlankConfig(text) && !opts.allowEmpty)
    return refuse(
      text,
      'config.yaml is empty; an empty file is not taken as "all defaults" (write {} for that)',
    );
  const nesting = yamlNestingProblem(text);
  if (nesting) return refuse(text, `config.yaml is refused: ${nesting}`);
  let raw: unknown;
  try {
    const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true });
    if (doc.errors.length > 0) {
      return {
        ok: false,
        text,
        findings: doc.errors.map((e) => ({
          path: '',
          message: `config.yaml does not parse: ${e.message.split('\n')[0]}`,
          line: e.linePos?.[0]?.line,
        })),
      };
    }
    raw = doc.toJS({ maxAliasCount: CONFIG_MAX_ALIASES }) ?? {};
  } catch (err) {
    // The parser's own guards (alias count) and the stack it runs on (deep flow collections).
    const message = String((err as Error)?.message ?? err);
    const reason = /call stack/i.test(message)
      ? 'it nests deeper than the parser can follow'
      : message.split('\n')[0];
    return refuse(text, `config.yaml does not parse: ${reason}`);
  }
  if (typeof raw !== 'object' || Array.isArray(raw) || raw === null)
    return refuse(text, 'config.yaml must be a mapping of keys');
  if (valueNestsDeeper(raw, CONFIG_MAX_DEPTH))
    return refuse(text, `config.yaml nests deeper than ${CONFIG_MAX_DEPTH} levels`);
  return validateRawConfig(raw as Record<string, unknown>, text);
}

/**
 * Parsed without zod's compiled fast path (`jitless`, a documented parse option): the file is
 * parsed once at start and again on each edit, and writing and compiling a parser for every
 * object in the schema costs more than it saves. The generated file's first parse took 14–19 ms
 * with it and 6–7 ms without in a fresh process (11–13 ms and 4.5–5.3 ms in profiled cold
 * starts of the daemon); a second parse is no slower.
 */
export function validateRawConfig(raw: Record<string, unknown>, text = ''): ConfigLoad {
  const parsed = ConfigSchema.safeParse(raw, { jitless: true });
  if (!parsed.success) return { ok: false, text, findings: findingsFromZod(parsed.error) };
  return { ok: true, config: parsed.data, raw, text };
}

/**
 * The file's text, read only when it is within the size bound: a huge file is refused without
 * being loaded into memory (its text is then empty and `tooLarge` its size).
 */
export function readConfigText(path: string): { text: string; tooLarge?: number } {
  const size = statSync(path).size;
  if (size > CONFIG_MAX_BYTES) return { text: '', tooLarge: size };
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(size);
    let got = 0;
    while (got < size) {
      const n = readSync(fd, buf, got, size - got, got);
      if (n === 0) break;
      got += n;
    }
    return { text: buf.subarray(0, got).toString('utf8') };
  } finally {
    closeSync(fd);
  }
}

/** Reads and parses a config file; a missing file is all defaults. */
export function readConfigFile(path: string, opts: ParseOptions = {}): ConfigLoad {
  if (!existsSync(path)) return validateRawConfig({}, '');
  let read: { text: string; tooLarge?: number };
  try {
    read = readConfigText(path);
  } catch (err) {
    return refuse('', `config.yaml cannot be read: ${(err as Error).message}`);
  }
  if (read.tooLarge !== undefined)
    return refuse(
      '',
      `config.yaml is ${read.tooLarge} bytes, over the limit of ${CONFIG_MAX_BYTES}`,
    );
  return parseConfigText(read.text, opts);
}
