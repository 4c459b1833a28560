// Issue 17 hold 2 (decisions 014, 088, 185): no person's or event's text ever becomes shell code.
// fast-check builds a template context whose task fields and event payload are trees of hostile
// keys and values at random depths (past the old cut-off of 8 and far beyond), and templates over
// them that print, range over keys and values, index, slice, pipe through functions, bind
// variables and call sub-templates. Each rendered command line runs in a real /bin/sh; every
// hostile string carries a command that would create a marker file. Asserted for every case: the
// marker never appears, and the rendered line never holds the hostile text (it lives only in the
// environment). The same data goes through a trigger's follow-up `run`, where printing event text
// is refused outright.
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { buildContext } from '../../../kernel/engine/context.js';
import type { StepDef, WorkflowSnapshot } from '../../../kernel/engine/model.js';
import { renderShell } from '../../../kernel/engine/render.js';
import type { Project } from '../../../kernel/projects/index.js';
import type { TaskRow } from '../../../kernel/store/index.js';
import type { TriggerDefinition } from '../../../kernel/triggers/definition.js';
import { type JudgeContext, judge } from '../../../kernel/triggers/judge.js';
import { tempDir } from '../../support/tmp.js';

const dir = tempDir();
const TOKEN = 'pwnmark';
const MARKER = join(dir, TOKEN);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Strings that run `touch MARKER` if they ever reach the shell as code, in every quoting context. */
const PAYLOADS = [
  `$(touch ${MARKER})`,
  `\`touch ${MARKER}\``,
  `;touch ${MARKER};`,
  `"; touch ${MARKER}; echo "`,
  `'; touch ${MARKER}; echo '`,
  `\ntouch ${MARKER}\n`,
  `| touch ${MARKER}`,
  `&& touch ${MARKER} #`,
  `$(IFS=_;x=touch_${MARKER};$x)`,
  `{{"x"}}$(touch ${MARKER})`,
  `\${PATH:+$(touch ${MARKER})}`,
];
const hostile = fc.oneof(
  fc.constantFrom(...PAYLOADS),
  fc
    .tuple(fc.string({ maxLength: 6 }), fc.constantFrom(...PAYLOADS), fc.string({ maxLength: 6 }))
    .map(
      ([a, p, b]) => `${a.replace(/[\ud800-\udfff]/g, '')}${p}${b.replace(/[\ud800-\udfff]/g, '')}`,
    ),
);
/** Keys: hostile ones and plain identifiers, so both `.a.b` and `index` reach nodes. */
const key = fc.oneof(fc.constantFrom('a', 'b', 'kind', 'data', 'x_1'), hostile);
const leaf = fc.oneof(
  { weight: 4, arbitrary: hostile },
  { weight: 1, arbitrary: fc.integer({ min: -50, max: 50 }) },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
);
const tree = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'medium', withCrossShrink: true },
    leaf,
    fc.array(tie('node'), { minLength: 1, maxLength: 3 }),
    fc.dictionary(key, tie('node'), { minKeys: 1, maxKeys: 3 }),
  ),
})).node;
/** A tree hung at the end of a chain of maps `depth` long: depth is no hiding place. */
const deepTree = fc
  .tuple(fc.integer({ min: 0, max: 60 }), fc.array(key, { minLength: 1, maxLength: 60 }), tree)
  .map(([depth, keys, t]) => {
    let v: unknown = t;
    for (let i = depth - 1; i >= 0; i--) v = { [keys[i % keys.length] as string]: v };
    return v;
  });

type Path = Array<string | number>;

/** Every node of `v` with its path (bounded, so huge trees stay cheap). */
function nodes(v: unknown, max = 200): Array<{ path: Path; value: unknown }> {
  const out: Array<{ path: Path; value: unknown }> = [];
  const stack: Array<{ path: Path; value: unknown }> = [{ path: [], value: v }];
  while (stack.length > 0 && out.length < max) {
    const n = stack.pop() as { path: Path; value: unknown };
    out.push(n);
    if (Array.isArray(n.value)) {
      for (let i = 0; i < n.value.length; i++)
        stack.push({ path: [...n.path, i], value: n.value[i] });
    } else if (n.value && typeof n.value === 'object')
      for (const [k, x] of Object.entries(n.value)) stack.push({ path: [...n.path, k], value: x });
  }
  return out;
}

const lit = (s: string) => JSON.stringify(s);
/** A template expression reaching `path` under `root`: field chains where keys allow, else index. */
function expr(root: string, path: Path, useIndex: boolean): string {
  if (path.length === 0) return root;
  if (!useIndex && path.every((p) => typeof p === 'string' && /^[A-Za-z_]\w*$/.test(p)))
    return `${root}.${path.join('.')}`;
  return `(index ${root} ${path.map((p) => (typeof p === 'number' ? String(p) : lit(p))).join(' ')})`;
}

const SUB = '{{define "sub"}}{{range $k, $v := .}}<{{$k}}:{{$v}}>{{end}}{{end}}';
const FORMS: Array<(e: string) => string> = [
  (e) => `echo {{${e}}}`,
  (e) => `echo {{printf "%v|%s" ${e} ${e}}}`,
  (e) => `echo {{print ${e}}} {{println ${e}}}`,
  (e) => `echo {{html ${e}}} {{js ${e}}} {{urlquery ${e}}}`,
  (e) => `echo {{range $k, $v := ${e}}}{{$k}}={{$v}} {{end}}`,
  (e) => `echo {{range ${e}}}{{.}}{{end}}`,
  (e) => `echo {{with ${e}}}{{.}}{{end}}`,
  (e) => `echo {{$x := ${e}}}{{$x}}`,
  (e) => `echo {{template "sub" ${e}}}`,
  (e) => `echo {{range $k, $v := ${e}}}{{range $k2, $v2 := $v}}{{$k2}}{{$v2}}{{end}}{{end}}`,
  (e) => `echo {{slice ${e} 0}}`,
  (e) => `echo {{range $i, $v := ${e}}}{{index ${e} $i}}{{end}}`,
  (e) => `echo {{if ${e}}}{{len ${e}}}{{end}}`,
];

interface Data {
  fields: unknown;
  event: unknown;
  title: string;
  result: string;
}

/** One case: the data, then templates over nodes of the given roots that exist in it. */
function scenario(roots: (d: Data) => Array<{ root: string; value: unknown }>) {
  return fc
    .record({
      fields: tree,
      event: deepTree.map((v) => ({ data: v })),
      title: hostile,
      result: hostile,
    })
    .chain((d) => {
      const picks = roots(d).flatMap((r) =>
        nodes(r.value).map((n) => ({ root: r.root, path: n.path })),
      );
      const one = fc
        .tuple(
          fc.constantFrom(...picks),
          fc.boolean(),
          fc.integer({ min: 0, max: FORMS.length - 1 }),
        )
        .map(([p, useIndex, f]) =>
          (FORMS[f] as (e: string) => string)(expr(p.root, p.path, useIndex)),
        );
      return fc.record({
        data: fc.constant(d as Data),
        template: fc
          .array(one, { minLength: 1, maxLength: 3 })
          .map((ts) => `${ts.join('; ')}${SUB}`),
      });
    });
}

const everywhere = scenario((d) => [
  { root: '.Event', value: d.event },
  { root: '.Task.Fields', value: d.fields },
  { root: '.Task.Title', value: d.title },
  { root: '.Steps.plan.Result', value: d.result },
  { root: '.LastFailure.Output', value: d.result },
]);
const eventOnly = scenario((d) => [{ root: '.Event', value: d.event }]);

function contextFor(d: Data) {
  const task = {
    id: 1,
    title: d.title,
    description: d.title,
    prompt: d.title,
    fields: JSON.stringify(d.fields),
    base_branch: 'main',
    branch_name: 'svc/1-x',
    worktree_path: dir,
  } as unknown as TaskRow;
  const project = { id: 1, name: 'p', path: dir, default_branch: 'main' } as unknown as Project;
  const step: StepDef = { id: 'run', type: 'command' };
  const snapshot: WorkflowSnapshot = { name: 'w', steps: [step] };
  const rows = [
    { step_id: 'plan', step_index: 0, iteration: 0, state: 'succeeded', result_summary: d.result },
  ] as never;
  return buildContext(
    task,
    project,
    snapshot,
    step,
    { index: 1, attempt: 1, iteration: 0, item: null },
    rows,
    {
      event: d.event,
      lastFailure: { Reason: d.result, Output: d.result },
    },
  );
}

const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

/**
 * Runs rendered command lines, each in its own `/bin/sh -c` with its own environment exactly as
 * the command step passes them, batched into one outer shell per 40 (spawning from this process
 * costs ten times more on a loaded machine). Answers how many exited 0.
 */
function runShells(cases: Array<{ text: string; env: Record<string, string> }>): number {
  let ok = 0;
  for (let i = 0; i < cases.length; i += 40) {
    const script = cases
      .slice(i, i + 40)
      .map((c) => {
        const vars = Object.entries(c.env).map(([k, v]) => `${k}=${quote(v)}`);
        return `env ${vars.join(' ')} /bin/sh -c ${quote(c.text)} >/dev/null 2>&1 && echo ok`;
      })
      .join('\n');
    const r = spawnSync('/bin/sh', ['-c', script], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    ok += (r.stdout.match(/^ok$/gm) ?? []).length;
  }
  return ok;
}

function judgeCtx(): JudgeContext {
  return {
    triggerId: 't',
    project: { id: 1, name: 'p', path: dir, default_branch: 'main' },
    now: 0,
    seeding: false,
    holdsKey: () => false,
    firedLastHour: () => 0,
    inFlight: () => [],
    task: (id) => (id === 5 ? { id: 5, branch_name: 'svc/5-x', state: 'done' } : undefined),
    taskOnBranch: () => undefined,
  };
}

describe('shell templates over hostile keys and values at any depth', () => {
  it('never run the marker and never hold the raw text in the command line', () => {
    const cases: Array<{ text: string; env: Record<string, string>; template: string }> = [];
    fc.assert(
      fc.property(everywhere, ({ data, template }) => {
        let out: { text: string; env: Record<string, string> } | null = null;
        try {
          out = renderShell(template, contextFor(data));
        } catch {
          // A template that does not fit the data (range over a string, slice of a map) fails
          // like any execution error; what matters is that nothing ran and nothing printed.
        }
        if (out === null) return;
        expect(out.text, template).not.toContain(TOKEN);
        cases.push({ ...out, template });
      }),
      { numRuns: 250, seed: 20261127 },
    );
    const ran = runShells(cases);
    expect(existsSync(MARKER), cases.map((c) => c.template).join('\n')).toBe(false);
    // The property is only as strong as the share of cases that really rendered and ran.
    expect(cases.length).toBeGreaterThan(125);
    expect(ran).toBeGreaterThan(100);
  }, 120_000);

  it('refuse event keys and values in a follow-up run, at any depth', () => {
    let refused = 0;
    const cases: Array<{ text: string; env: Record<string, string> }> = [];
    fc.assert(
      fc.property(eventOnly, ({ data, template: run }) => {
        const def = {
          id: 't',
          enabled: true,
          project_id: 1,
          source: { type: 'command', command: ['x'] },
          action: { type: 'follow_up', task: '5', run },
        } as unknown as TriggerDefinition;
        const j = judge(def, { ...(data.event as object), id: 'e' }, judgeCtx());
        const body = j.action?.body as { run?: string } | undefined;
        if (j.outcome === 'error') {
          refused++;
          return;
        }
        expect(body?.run ?? '', run).not.toContain(TOKEN);
        // The engine renders the follow-up's run again as a step template, then runs it.
        try {
          cases.push(renderShell(body?.run ?? '', contextFor(data)));
        } catch {}
      }),
      { numRuns: 150, seed: 20261128 },
    );
    runShells(cases);
    expect(existsSync(MARKER)).toBe(false);
    expect(refused).toBeGreaterThan(50);
  }, 120_000);
});

describe('shell rendering of the step context', () => {
  const ctx = (fields: Record<string, string>) =>
    contextFor({ fields, event: { data: { n: 3 } }, title: 't', result: 'r' });

  it('prints task field names as environment references, and step ids as written', () => {
    const out = renderShell(
      'echo K={{range $k, $v := .Task.Fields}}{{$k}} {{end}}{{range $id, $s := .Steps}}{{$id}}{{end}}',
      ctx({ [`$(touch ${MARKER})`]: 'v' }),
    );
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell's own ${…}, not JavaScript's
    expect(out.text).toBe('echo K="${SVC_TEMPLATE_1}" plan');
    expect(out.env).toEqual({ SVC_TEMPLATE_1: `$(touch ${MARKER})` });
  });

  it('refuses a value holding NUL with a template error instead of a failed spawn', () => {
    expect(() => renderShell('echo {{.Task.Fields.k}}', ctx({ k: 'a\u0000b' }))).toThrow(
      /NUL byte cannot reach a command line/,
    );
  });

  it('stops a range over a number someone else chose at the iteration limit', () => {
    const c = contextFor({ fields: {}, event: { n: 2_000_000_000 }, title: 't', result: 'r' });
    expect(() => renderShell('{{range .Event.n}}{{end}}', c)).toThrow(
      /range ran over the limit of 100000 iterations/,
    );
  });
});
