/**
 * Rendering step templates (SPEC §2.8). Prompts, instructions and guards render values as they
 * are. Command lines (`run`, `check`) render in shell mode: every string that came from a user, an
 * event, an agent or git — anything but the workflow author's own text and numbers — is printed
 * as a double-quoted reference to an environment variable holding the value, so a title like
 * `x"; rm -rf ~` reaches the shell as data, never as syntax (decision 014).
 */
import { renderTemplate, taintTree } from '../../lib/template/index.js';

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

/**
 * Maps whose keys svc or the workflow author chose (the context's own shape, step ids). Every
 * other map's keys — task fields, event payloads, anything nested in them — are someone else's
 * text and print as environment variable references like values do (decision 185).
 */
const OWN_KEYS = new Set([
  '',
  'Task',
  'Project',
  'Workflow',
  'Step',
  'Steps',
  'Loop',
  'Host',
  'Worktree',
  'LastFailure',
]);
/** `.Steps.<id>` entries are `{Status, Result, ExitCode}`; a dotted step id errs on the safe side. */
const ownKeys = (path: string): boolean => OWN_KEYS.has(path) || /^Steps\.[^.[]+$/.test(path);

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
  const printer = (v: string): string => {
    // An environment value cannot hold NUL: say so as a template error instead of failing the spawn.
    if (v.includes('\0')) throw new Error('a value holding a NUL byte cannot reach a command line');
    const name = `SVC_TEMPLATE_${Object.keys(env).length + 1}`;
    env[name] = v;
    return `"\${${name}}"`;
  };
  const data = taintTree(context, {
    printer,
    plainString: (path) => AUTHOR_PATHS.has(path),
    plainKeys: ownKeys,
  }) as Record<string, unknown>;
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
