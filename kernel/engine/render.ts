/**
 * Rendering step templates (SPEC §2.8). Prompts, instructions and guards render values as they
 * are. Command lines (`run`, `check`) render in shell mode: every string that came from a user, an
 * event, an agent or git — anything but the workflow author's own text and numbers — is printed
 * as a double-quoted reference to an environment variable holding the value, so a title like
 * `x"; rm -rf ~` reaches the shell as data, never as syntax (decision 014).
 */
import { renderTemplate, taint } from '../workflows/template/index.js';

export interface Rendered {
  text: string;
  env: Record<string, string>;
}

/** Author-written strings that stay plain even in shell mode. */
const AUTHOR_PATHS = new Set([
  'Step.ID',
  'Step.Name',
  'Step.Index',
  'Step.Attempt',
  'Workflow.Name',
  'Workflow.Description',
  'Host.OS',
  'Host.Arch',
]);

function taintStrings(value: unknown, path: string, env: Record<string, string>): unknown {
  if (typeof value === 'string') {
    if (AUTHOR_PATHS.has(path)) return value;
    return taint(value, (v) => {
      const name = `SVC_TEMPLATE_${Object.keys(env).length + 1}`;
      env[name] = v;
      return `"\${${name}}"`;
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => taintStrings(v, `${path}[${i}]`, env));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value))
      out[k] = taintStrings(v, path ? `${path}.${k}` : k, env);
    return out;
  }
  return value;
}

export function renderPlain(
  template: string,
  context: Record<string, unknown>,
  name = 'step',
): string {
  return renderTemplate(template, context, { name, missingKey: 'error' });
}

export function renderShell(
  template: string,
  context: Record<string, unknown>,
  name = 'run',
): Rendered {
  const env: Record<string, string> = {};
  const data = taintStrings(context, '', env) as Record<string, unknown>;
  const text = renderTemplate(template, data, { name, missingKey: 'error' });
  return { text, env };
}

/** A guard renders to exactly `true` or `false` after trimming; anything else is a guard error. */
export function evaluateGuard(
  template: string,
  context: Record<string, unknown>,
): { ok: true; value: boolean } | { ok: false; error: string } {
  let out: string;
  try {
    out = renderPlain(template, context, 'if').trim();
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
  if (out === 'true') return { ok: true, value: true };
  if (out === 'false') return { ok: true, value: false };
  return {
    ok: false,
    error: `if: rendered ${JSON.stringify(out.slice(0, 80))}, expected true or false`,
  };
}
