/**
 * Load-time template checks: every string a step type declares as a template (`meta.templates`)
 * must parse as a Go text/template. A parse error becomes a finding at the key, on the file line
 * where the error is, with the template's own line and column in the message.
 */

import { checkTemplate } from '../../lib/template/index.js';
import type { PathSegment } from '../plugin/index.js';

/** A parse error at a 1-based line and column of the template text. */
export interface TemplateProblem {
  line: number;
  col: number;
  message: string;
}

/** Parses a template and reports its first syntax error, or null. */
export type TemplateChecker = (source: string) => TemplateProblem | null;

/**
 * The load-time check with the Go text/template engine (decision 101): builtins plus `slug`, so a
 * function the engine would not know at run time is refused now, as Go refuses it at parse.
 */
export const checkWorkflowTemplate: TemplateChecker = (source) => {
  const error = checkTemplate(source);
  if (!error) return null;
  return { line: error.line, col: error.col, message: error.detail };
};

/**
 * The template strings of `value` named by `patterns` (`prompt`, `env.*`, `lanes[].if`): dotted
 * keys, `key[]` for every item of a list, `key.*` for every value of a map. Only strings are
 * returned; a key holding something else is the schema's business.
 */
export function collectTemplates(
  value: unknown,
  patterns: readonly string[],
): Array<{ path: PathSegment[]; source: string }> {
  const out: Array<{ path: PathSegment[]; source: string }> = [];
  for (const pattern of patterns) {
    const parts = pattern.split('.');
    const visit = (v: unknown, i: number, path: PathSegment[]): void => {
      if (i === parts.length) {
        if (typeof v === 'string') out.push({ path, source: v });
        return;
      }
      if (typeof v !== 'object' || v === null) return;
      const part = parts[i] as string;
      if (part === '*') {
        if (Array.isArray(v)) return;
        for (const [k, child] of Object.entries(v)) visit(child, i + 1, [...path, k]);
        return;
      }
      const isList = part.endsWith('[]');
      const key = isList ? part.slice(0, -2) : part;
      if (Array.isArray(v)) return;
      const child = (v as Record<string, unknown>)[key];
      if (child === undefined) return;
      if (isList) {
        if (Array.isArray(child))
          child.forEach((item, j) => {
            visit(item, i + 1, [...path, key, j]);
          });
        return;
      }
      visit(child, i + 1, [...path, key]);
    };
    visit(value, 0, []);
  }
  return out;
}
