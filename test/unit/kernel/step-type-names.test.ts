// Issue 21 point 2 (decision 225): what the kernel knows about a step type is declared by the type
// (StepTypeMeta hooks, kernel/plugin/step-traits.ts), so a new control-flow type is one folder.
// At most one kernel file may branch on a built-in step type's name: the one that names the types
// the kernel writes itself (kernel/engine/kernel-steps.ts). Every other comparison or switch on a
// name fails here, naming the file and the line.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const ALLOWED = 'kernel/engine/kernel-steps.ts';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [p] : [];
  });
}

/** The built-in step types: one folder each under plugins/steps, named for its id. */
function builtinTypes(): string[] {
  const dir = join(ROOT, 'plugins/steps');
  return readdirSync(dir).filter((n) => statSync(join(dir, n)).isDirectory());
}

/**
 * Lines of `text` that branch on one of `names`: `type === 'x'`, `'x' !== step.type`,
 * `step_type === 'x'`, `stepType('x')`, and `case 'x':` inside a `switch` on a type.
 */
function branchesOnNames(text: string, names: readonly string[]): number[] {
  const alt = names.map((n) => n.replace(/[^a-z0-9_]/gi, '')).join('|');
  const typeish = String.raw`(?:\w*[tT]ype|step_type)\b(?:\s*\?\?\s*[^=!]+)?`;
  const lit = String.raw`['"\`](?:${alt})['"\`]`;
  const compare = new RegExp(
    String.raw`${typeish}\s*[!=]==?\s*${lit}|${lit}\s*[!=]==?\s*[\w.?]*(?:[tT]ype|step_type)\b`,
  );
  const lookup = new RegExp(String.raw`stepType\(\s*${lit}\s*\)`);
  const caseLine = new RegExp(String.raw`^\s*case\s+${lit}\s*:`);
  const out: number[] = [];
  let switchOnType = false;
  text.split('\n').forEach((line, i) => {
    const sw = /\bswitch\s*\((.*)\)/.exec(line);
    if (sw) switchOnType = /type/i.test(sw[1] ?? '');
    if (compare.test(line) || lookup.test(line) || (switchOnType && caseLine.test(line)))
      out.push(i + 1);
  });
  return out;
}

describe('step type names in the kernel', () => {
  const names = builtinTypes();

  it('knows the built-in types from their folders', () => {
    expect(names).toEqual(
      expect.arrayContaining(['agent', 'command', 'manual', 'loop', 'fan_out', 'include', 'break']),
    );
  });

  it('finds each way of branching on a name (the check is not vacuous)', () => {
    const sample = [
      "if (step.type === 'loop') x();",
      "if (row.step_type !== 'manual') y();",
      "const t = deps.registry.stepType('agent');",
      "if ('fan_out' === s.type) z();",
      'switch (step.type) {',
      "  case 'break':",
      '}',
      "if (overrun !== 'parallel') w();",
      "const kind: 'agent' | 'command' = 'agent';",
      "steps.push({ type: AGENT_STEP, created_via: 'fan_out' });",
    ].join('\n');
    expect(branchesOnNames(sample, names)).toEqual([1, 2, 3, 4, 6]);
  });

  it('at most one kernel file branches on a step type name: the one naming the kernel’s own', () => {
    const found: string[] = [];
    for (const file of sources(join(ROOT, 'kernel'))) {
      const rel = relative(ROOT, file).split('\\').join('/');
      if (rel === ALLOWED) continue;
      for (const line of branchesOnNames(readFileSync(file, 'utf8'), names))
        found.push(`${rel}:${line}`);
    }
    expect(found, 'ask the type’s declared hooks (kernel/plugin/step-traits.ts) instead').toEqual(
      [],
    );
  });
});
