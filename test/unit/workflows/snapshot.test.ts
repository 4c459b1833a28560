// Issue 3 point 7 and decision 025: includes spliced into a task snapshot with resolved_from[] and
// the callee's defaults; cycles, invisible names, depth, reused ids, platforms and the fan_out
// bounds refused with the chain named.
import { describe, expect, it } from 'vitest';
import {
  digestOf,
  resolveSnapshot,
  type SnapshotOptions,
  type WorkflowSource,
  type WorkflowView,
} from '../../../kernel/workflows/index.js';
import { DEFAULT_LIMITS } from '../../support/step-tester.js';
import { check, options } from './support.js';

async function source(
  text: string,
  scope: WorkflowSource['scope'] = 'global',
): Promise<WorkflowSource> {
  const validation = await check(text);
  const name = validation.declaredName ?? 'unnamed';
  return {
    name,
    scope,
    relFile: scope === 'builtin' ? null : `workflows/${name}.yaml`,
    digest: digestOf(text).digest,
    validation,
  };
}

async function viewOf(...texts: string[]): Promise<WorkflowView> {
  const all = await Promise.all(texts.map((t) => source(t)));
  return { find: (name) => all.find((s) => s.name === name) };
}

async function opts(over: Partial<SnapshotOptions> = {}): Promise<SnapshotOptions> {
  return { ...(await options()), host: { os: 'linux' }, ...over };
}

async function resolve(rootName: string, view: WorkflowView, over: Partial<SnapshotOptions> = {}) {
  const root = view.find(rootName);
  if (!root) throw new Error(`no ${rootName}`);
  return resolveSnapshot(root, view, await opts(over));
}

const CHECKS = `name: checks
defaults:
  max_retries: 0
  agent: codex
  container:
    image: alpine
steps:
  - id: lint
    type: command
    run: make lint
  - id: review
    type: agent
    prompt: review
    agent: claude
`;

describe('include resolution', () => {
  it('splices callee steps with resolved_from and carried defaults, leaving the rest alone', async () => {
    const view = await viewOf(
      `name: feature
description: Build it
fields:
  - name: kind
    type: enum
    values: [bug, feature]
defaults:
  max_retries: 2
steps:
  - id: impl
    type: agent
    prompt: build
  - type: include
    workflow: checks
  - type: command
    run: make ship
`,
      CHECKS,
    );
    const r = await resolve('feature', view);
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    const { snapshot } = r;
    expect(snapshot.steps).toEqual([
      { id: 'impl', type: 'agent', prompt: 'build' },
      {
        id: 'lint',
        type: 'command',
        run: 'make lint',
        resolved_from: ['checks'],
        include_defaults: { max_retries: 0, agent: 'codex' },
      },
      {
        id: 'review',
        type: 'agent',
        prompt: 'review',
        agent: 'claude',
        resolved_from: ['checks'],
        include_defaults: { max_retries: 0 },
      },
      { id: 'command-3', type: 'command', run: 'make ship' },
    ]);
    expect(snapshot.defaults).toEqual({ max_retries: 2 });
    expect(snapshot.fields.map((f) => f.name)).toEqual(['kind']);
    expect(snapshot.workflow_origin).toEqual({
      scope: 'global',
      file: 'workflows/feature.yaml',
      digest: view.find('feature')?.digest,
    });
    expect(snapshot.includes).toEqual([
      {
        name: 'checks',
        origin: {
          scope: 'global',
          file: 'workflows/checks.yaml',
          digest: view.find('checks')?.digest,
        },
      },
    ]);
    expect(r.warnings.map((w) => w.code)).toEqual(['include_container_ignored']);
  });

  it('chains resolved_from outermost first, with inner defaults winning', async () => {
    const view = await viewOf(
      'name: root\nsteps:\n  - type: include\n    workflow: mid\n',
      'name: mid\ndefaults:\n  timeout: 5m\n  max_retries: 3\nsteps:\n  - type: include\n    workflow: leaf\n',
      'name: leaf\ndefaults:\n  max_retries: 0\nsteps:\n  - id: t\n    type: command\n    run: make\n',
    );
    const r = await resolve('root', view);
    expect(r.ok && r.snapshot.steps).toEqual([
      {
        id: 't',
        type: 'command',
        run: 'make',
        resolved_from: ['mid', 'leaf'],
        include_defaults: { timeout: '5m', max_retries: 0 },
      },
    ]);
  });

  it('splices inside parallel groups, loop bodies and lane steps', async () => {
    const view = await viewOf(
      `name: root
steps:
  - id: group
    type: parallel
    steps:
      - type: include
        workflow: two
  - id: again
    type: loop
    count: 2
    steps:
      - type: include
        workflow: one
  - id: split
    type: fan_out
    lanes:
      - id: l
        steps:
          - type: include
            workflow: three
`,
      'name: two\nsteps:\n  - id: a\n    type: command\n    run: a\n  - id: b\n    type: agent\n    prompt: b\n',
      'name: one\nsteps:\n  - id: c\n    type: command\n    run: c\n',
      'name: three\nsteps:\n  - id: d\n    type: command\n    run: d\n',
    );
    const r = await resolve('root', view);
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    const [group, loop, fan] = r.snapshot.steps as unknown as [
      { steps: Array<{ id: string }> },
      { steps: Array<{ id: string; resolved_from: string[] }> },
      { lanes: Array<{ steps: Array<{ id: string }> }> },
    ];
    expect(group.steps.map((s) => s.id)).toEqual(['a', 'b']);
    expect(loop.steps[0]).toMatchObject({
      id: 'c',
      resolved_from: ['one'],
    });
    expect(fan.lanes[0]?.steps[0]).toMatchObject({
      id: 'd',
      resolved_from: ['three'],
    });
    expect(r.snapshot.includes.map((i) => i.name)).toEqual(['two', 'one', 'three']);
  });

  it('refuses a cycle, naming it (checked before depth)', async () => {
    const view = await viewOf(
      'name: a\nsteps:\n  - type: include\n    workflow: b\n',
      'name: b\nsteps:\n  - type: include\n    workflow: a\n',
    );
    const r = await resolve('a', view, { limits: { ...DEFAULT_LIMITS, include_max_depth: 1 } });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.errors.map((e) => [e.code, e.message])).toEqual([
      ['include_cycle', 'workflow cycle: a → b → a'],
    ]);
  });

  it('refuses an invisible name, an invalid callee and a callee for another platform', async () => {
    const view = await viewOf(
      'name: root\nsteps:\n  - type: include\n    workflow: nowhere\n',
      'name: root2\nsteps:\n  - type: include\n    workflow: broken\n',
      'name: broken\nsteps: 3\n',
      'name: root3\nsteps:\n  - type: include\n    workflow: mac-only\n',
      'name: mac-only\nplatforms: [darwin]\nsteps:\n  - type: command\n    run: x\n',
    );
    const one = await resolve('root', view);
    expect(!one.ok && one.errors.map((e) => [e.code, e.message])).toEqual([
      ['include_not_found', 'included workflow "nowhere" not found (root → nowhere)'],
    ]);
    expect(!one.ok && one.errors[0]?.path).toBe('steps[0].workflow');
    const two = await resolve('root2', view);
    expect(!two.ok && two.errors.map((e) => e.code)).toEqual(['include_invalid']);
    const three = await resolve('root3', view);
    expect(!three.ok && three.errors.map((e) => e.code)).toEqual(['include_platform']);
    expect(!three.ok && three.errors[0]?.message).toMatch(
      /does not run on linux .*root3 → mac-only/,
    );
    expect((await resolve('root3', view, { host: { os: 'darwin' } })).ok).toBe(true);
  });

  it('refuses nesting past include.max_depth (a direct include is depth 1)', async () => {
    const view = await viewOf(
      'name: l0\nsteps:\n  - type: include\n    workflow: l1\n',
      'name: l1\nsteps:\n  - type: include\n    workflow: l2\n',
      'name: l2\nsteps:\n  - id: x\n    type: command\n    run: x\n',
    );
    const limits = (n: number) => ({ limits: { ...DEFAULT_LIMITS, include_max_depth: n } });
    expect((await resolve('l0', view, limits(2))).ok).toBe(true);
    const r = await resolve('l0', view, limits(1));
    expect(!r.ok && r.errors.map((e) => [e.code, e.message])).toEqual([
      [
        'include_max_depth',
        'includes nest 2 levels deep, past include.max_depth (1) (l0 → l1 → l2)',
      ],
    ]);
  });

  it('refuses a step id used twice once expanded, naming both origins', async () => {
    const view = await viewOf(
      'name: root\nsteps:\n  - id: lint\n    type: command\n    run: x\n  - type: include\n    workflow: checks\n',
      CHECKS,
      'name: twice\nsteps:\n  - type: include\n    workflow: checks\n  - type: include\n    workflow: checks\n',
    );
    const r = await resolve('root', view);
    expect(!r.ok && r.errors.map((e) => [e.code, e.message])).toEqual([
      [
        'duplicate_id',
        'expanding this workflow uses step id "lint" twice: once from workflow "root" itself, once from included workflow checks',
      ],
    ]);
    expect((await resolve('twice', view)).ok).toBe(false);
  });

  it('re-checks the spliced steps: a callee may bring what may not stand there', async () => {
    const view = await viewOf(
      'name: root\nsteps:\n  - id: g\n    type: parallel\n    steps:\n      - type: include\n        workflow: gated\n',
      'name: gated\nsteps:\n  - id: ok\n    type: manual\n    instructions: approve\n',
      'name: asks\ndefaults:\n  on_input: require\nsteps:\n  - id: q\n    type: agent\n    prompt: x\n',
      'name: root2\nsteps:\n  - id: g2\n    type: parallel\n    steps:\n      - type: include\n        workflow: asks\n',
    );
    const r = await resolve('root', view);
    expect(!r.ok && r.errors.map((e) => [e.path, e.code])).toEqual([
      ['steps[0].steps[0].type', 'not_allowed_here'],
    ]);
    expect(!r.ok && r.errors[0]?.message).toMatch(
      /^workflow "root" does not validate once its includes are expanded/,
    );
    // on_input: require judged on the value carried in from the callee's defaults.
    const r2 = await resolve('root2', view);
    expect(!r2.ok && r2.errors.map((e) => e.code)).toEqual(['input_required_here']);
  });

  it('refuses a root workflow the host does not admit, and an invalid root', async () => {
    const view = await viewOf(
      'name: win\nplatforms: [windows]\nsteps:\n  - type: command\n    run: dir\n',
      'name: bad\nsteps: []\n',
    );
    const r = await resolve('win', view);
    expect(!r.ok && r.errors.map((e) => e.code)).toEqual(['platform_unsupported']);
    expect((await resolve('win', view, { host: { os: 'windows' } })).ok).toBe(true);
    const bad = await resolve('bad', view);
    expect(!bad.ok && bad.errors.map((e) => e.code)).toEqual(['empty']);
  });
});

describe('fan_out bounds at creation', () => {
  const lanes = (n: number, workflow?: string) =>
    Array.from({ length: n }, (_, i) =>
      workflow
        ? `      - id: l${i}\n        workflow: ${workflow}\n`
        : `      - id: l${i}\n        steps:\n          - id: s${i}\n            type: command\n            run: x\n`,
    ).join('');

  it('counts lanes through named lane workflows at every depth, guarded ones included', async () => {
    const view = await viewOf(
      `name: root\nsteps:\n  - id: f\n    type: fan_out\n    lanes:\n${lanes(3, 'child')}`,
      `name: child\nsteps:\n  - id: g\n    type: fan_out\n    lanes:\n${lanes(2)}`,
    );
    // 3 lanes, each spawning 2: 9 descendants.
    expect(
      (await resolve('root', view, { limits: { ...DEFAULT_LIMITS, fan_out_max_tasks: 9 } })).ok,
    ).toBe(true);
    const r = await resolve('root', view, { limits: { ...DEFAULT_LIMITS, fan_out_max_tasks: 8 } });
    expect(!r.ok && r.errors.map((e) => [e.code, e.message])).toEqual([
      ['fan_out_max_tasks', 'fan-out would create more than fan_out.max_tasks (8) child tasks (9)'],
    ]);
  });

  it('refuses nesting past fan_out.max_depth (a root-level fan_out is depth 1)', async () => {
    const view = await viewOf(
      `name: root\nsteps:\n  - id: f\n    type: fan_out\n    lanes:\n${lanes(1, 'child')}`,
      `name: child\nsteps:\n  - id: g\n    type: fan_out\n    lanes:\n${lanes(1)}`,
    );
    expect(
      (await resolve('root', view, { limits: { ...DEFAULT_LIMITS, fan_out_max_depth: 2 } })).ok,
    ).toBe(true);
    const r = await resolve('root', view, { limits: { ...DEFAULT_LIMITS, fan_out_max_depth: 1 } });
    expect(!r.ok && r.errors.map((e) => [e.code, e.message])).toEqual([
      [
        'fan_out_max_depth',
        'fan-out nests 2 levels deep, past fan_out.max_depth (1) (root → child)',
      ],
    ]);
  });

  it('refuses a lane workflow that is missing or cycles back', async () => {
    const view = await viewOf(
      `name: alpha\nsteps:\n  - id: f\n    type: fan_out\n    lanes:\n${lanes(1, 'beta')}`,
      `name: beta\nsteps:\n  - id: g\n    type: fan_out\n    lanes:\n${lanes(1, 'alpha')}`,
      `name: lonely\nsteps:\n  - id: h\n    type: fan_out\n    lanes:\n${lanes(1, 'ghost')}`,
    );
    const r = await resolve('alpha', view);
    expect(!r.ok && r.errors.map((e) => [e.code, e.message])).toEqual([
      ['lane_cycle', 'workflow cycle: alpha → beta → alpha'],
    ]);
    const m = await resolve('lonely', view);
    expect(!m.ok && m.errors.map((e) => [e.code, e.message])).toEqual([
      ['lane_workflow_not_found', 'lane workflow "ghost" not found (lonely → ghost)'],
    ]);
  });
});
