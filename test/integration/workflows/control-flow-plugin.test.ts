// Issue 21 point 2 (decision 225): a new control-flow step type is one folder. A plugin written
// outside the repository (plain JS, its own zod, loaded through the config's plugins: key) declares
// two types with the step-type hooks alone — `until`, a break-like type (bodyIf: true leaves the
// loop), and `signoff`, a gate (waitsForHuman) — and real workflows run them end to end as the
// kernel runs break and manual, with no kernel change naming them.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../../support/app.js';
import {
  act,
  addProject,
  createTask,
  type StepJson,
  type TaskJson,
  waitState,
} from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';

const zodUrl = pathToFileURL(createRequire(import.meta.url).resolve('zod')).href;

function writeControlFlowPlugin(): string {
  const dir = join(tempDir(), 'control-flow-plugin');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'index.js'),
    `import { z } from '${zodUrl}';
const until = {
  meta: {
    type: 'until',
    schema: z.strictObject({
      type: z.literal('until'),
      id: z.string().optional(),
      name: z.string().optional(),
      if: z.string(),
    }),
    common: [],
    rows: [{ key: 'if', control: 'template', required: true, description: 'True leaves the loop.' }],
    docs: { summary: 'Leave the loop once a template renders true.', url: 'https://acme.test/until' },
    reasons: ['condition_error'],
    contexts: ['loop'],
    templates: ['if'],
    ifRole: 'body',
    bodyIf: { when: true, ends: 'loop' },
  },
};
const signoff = {
  meta: {
    type: 'signoff',
    schema: z.strictObject({
      type: z.literal('signoff'),
      id: z.string().optional(),
      name: z.string().optional(),
      note: z.string(),
    }),
    common: [],
    rows: [{ key: 'note', control: 'template', required: true, description: 'What to sign off.' }],
    docs: { summary: 'Wait for a named human to sign off.', url: 'https://acme.test/signoff' },
    reasons: ['template_error'],
    contexts: ['body'],
    templates: ['note'],
    waitsForHuman: true,
  },
  async run(ctx, def) {
    return { kind: 'awaiting_gate', instructions: 'sign off: ' + ctx.render(String(def.note)).text };
  },
};
export default {
  name: 'acme:control-flow',
  svc: '^2.0.0',
  setup(api) {
    api.registerStepType(until);
    api.registerStepType(signoff);
  },
};
`,
  );
  return dir;
}

const rowsOf = (t: TaskJson) =>
  (t.steps ?? []).map((s: StepJson) => [s.step_id, s.state, s.iteration ?? 0]);

describe('a control-flow step type from a plugin folder', () => {
  it('a break-like type leaves the loop when its if renders true, as its bodyIf declares', async () => {
    const t = await buildTestApp({ config: `plugins:\n  - ${writeControlFlowPlugin()}\n` });
    const { project } = await addProject(t, {
      converge: `name: converge
steps:
  - id: fix
    type: loop
    count: 5
    steps:
      - id: attempt
        type: command
        run: echo "{{.Iteration}}" >> tries.txt
      - id: enough
        type: until
        if: '{{ge .Iteration 2}}'
  - id: after
    type: command
    run: touch after.txt
`,
    });
    const task = await createTask(t, { project_id: project.id, title: 'c', workflow: 'converge' });
    const done = await waitState(t, task.id, 'done');
    const worktree = done.worktree_path as string;
    // Two iterations, not five: `until` ended the loop (a condition-like type would only have
    // ended the iteration), and the workflow went on after it.
    expect(readFileSync(join(worktree, 'tries.txt'), 'utf8')).toBe('1\n2\n');
    expect(existsSync(join(worktree, 'after.txt'))).toBe(true);
    expect(rowsOf(done)).toEqual([
      ['attempt', 'succeeded', 1],
      ['enough', 'succeeded', 1],
      ['attempt', 'succeeded', 2],
      ['enough', 'stopped', 2],
      ['after', 'succeeded', 0],
    ]);
  });

  it('a gate-like type parks the task for a human, and its open row is the gate a lost worktree closes', async () => {
    const t = await buildTestApp({ config: `plugins:\n  - ${writeControlFlowPlugin()}\n` });
    const { project } = await addProject(t, {
      gated: `name: gated
steps:
  - id: work
    type: command
    run: echo draft > draft.txt
  - id: legal
    type: signoff
    note: 'the draft of {{.Task.Title}}'
  - id: after
    type: command
    run: touch after.txt
`,
    });
    // Approved, the gate lets the workflow go on.
    const first = await createTask(t, { project_id: project.id, title: 'one', workflow: 'gated' });
    const waiting = await waitState(t, first.id, 'awaiting_gate');
    expect(waiting.steps?.find((s) => s.step_id === 'legal')?.result_summary).toBe(
      'sign off: the draft of one',
    );
    expect((await act(t, first.id, 'approve')).statusCode).toBe(200);
    const done = await waitState(t, first.id, 'done');
    expect(existsSync(join(done.worktree_path as string, 'after.txt'))).toBe(true);

    // Its worktree deleted while it waited: approve is refused and the gate's row is closed with
    // the reason, as for a manual step (it is known as a gate by its declared waitsForHuman).
    const second = await createTask(t, { project_id: project.id, title: 'two', workflow: 'gated' });
    const parked = await waitState(t, second.id, 'awaiting_gate');
    rmSync(parked.worktree_path as string, { recursive: true, force: true });
    const res = await act(t, second.id, 'approve');
    expect(res.statusCode, res.body).toBe(409);
    const blocked = await waitState(t, second.id, 'blocked');
    expect(blocked.block_reason).toBe('worktree_missing');
    expect(blocked.steps?.map((s) => [s.step_id, s.state, s.failure_reason])).toEqual([
      ['work', 'succeeded', null],
      ['legal', 'interrupted', 'worktree_missing'],
    ]);
  });
});
