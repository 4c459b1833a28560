import { quote } from './quote.js';

// A global-registry symbol, so two copies of this module (a plugin bundling its own) still agree
// on what a template error is; instanceof would not.
const BRAND = Symbol.for('svc.workflows.template.error');

export type TemplateErrorKind = 'parse' | 'exec';

/**
 * A template that failed to parse (kind 'parse') or to execute (kind 'exec'). `message` has Go's
 * shape (`template: NAME:LINE:COL: …`, exec errors add `executing "T" at <NODE>: `); `detail` is
 * the bare reason without that prefix. Positions point into the source: `offset` is a string index,
 * `line` and `col` are 1-based and count UTF-16 code units.
 */
export class TemplateError extends Error {
  readonly [BRAND] = true;
  override readonly name = 'TemplateError';

  constructor(
    readonly kind: TemplateErrorKind,
    readonly templateName: string,
    readonly detail: string,
    readonly offset: number,
    readonly line: number,
    readonly col: number,
    message: string,
  ) {
    super(message);
  }
}

export function isTemplateError(e: unknown): e is TemplateError {
  return typeof e === 'object' && e !== null && (e as { [BRAND]?: unknown })[BRAND] === true;
}

export function lineCol(source: string, offset: number): { line: number; col: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = source.indexOf('\n'); i !== -1 && i < offset; i = source.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, col: offset - lineStart + 1 };
}

export function parseError(name: string, source: string, offset: number, detail: string) {
  const { line, col } = lineCol(source, offset);
  const message = `template: ${name}:${line}:${col}: ${detail}`;
  return new TemplateError('parse', name, detail, offset, line, col, message);
}

export function execError(
  name: string,
  source: string,
  at: { offset: number; context: string; executing: string } | null,
  detail: string,
) {
  if (at === null) {
    return new TemplateError('exec', name, detail, 0, 1, 1, `template: ${name}: ${detail}`);
  }
  const { line, col } = lineCol(source, at.offset);
  const where = `${name}:${line}:${col}`;
  const message = `template: ${where}: executing ${quote(at.executing)} at <${at.context}>: ${detail}`;
  return new TemplateError('exec', name, detail, at.offset, line, col, message);
}
