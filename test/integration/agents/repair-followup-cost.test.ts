// Issue 6 point 9: repair (SPEC §4.4: the failure context around the human's prompt, stored as
// __repair at the blocked index, back to blocked with the same reason whatever the agent does),
// follow-up prompts (a follow-up continues the task's latest session of its CLI, decision 044),
// and cost caps biting on claude's reported cost (task and tree, repair and follow-ups included).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentConfig, agentWorkflow, prompts, records, stepRuns } from '../../support/agents.js';
import { buildTestApp, type TestApp } from '../../support/app.js';
import { act, addProject, createTask, getTask, waitState } from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';

function runArgv(log: string): string[][] {
  return records(log)
    .filter((r) => r.event === 'start' && (r.argv as string[]).includes('--permission-prompt-tool'))
    .map((r) => r.argv as string[]);
}

async function setScenario(t: TestApp, knobs: Record<string, string>) {
  const res = await t.api(
    'PATCH',
    '/v1/config',
    { environment: { set: knobs } },
    { 'content-type': 'application/json' },
  );
  if (res.statusCode !== 200) throw new Error(res.body);
}

const FAILING = `name: failing
steps:
  - id: build
    type: command
    max_retries: 0
    run: "for i in $(seq 1 300); do echo output-line-$i; done; exit 3"
`;

describe('repair', () => {
  it('gives the agent the failure context around the literal prompt, at the blocked index', async () => {
    const log = join(tempDir(), 'rec.jsonl');
    const t = await buildTestApp({ config: agentConfig({ FAKE_CLAUDE_RECORD: log }) });
    const { project } = await addProject(t, { failing: FAILING });
    const task = await createTask(t, {
      project_id: project.id,
      title: 'Make the build pass',
      description: 'The build is red.',
      workflow: 'failing',
    });
    const blocked = await waitState(t, task.id, 'blocked');
    const [failed] = await stepRuns(t, task.id);
    const res = await act(t, task.id, 'repair', { prompt: 'Please fix the loop {{.Task.ID}}' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ state: 'queued', warnings: [] });
    const after = await waitState(t, task.id, 'blocked');
    expect(after).toMatchObject({
      block_reason: blocked.block_reason,
      block_detail: blocked.block_detail,
    });
    const [prompt] = prompts(log);
    expect(prompt).toContain('task 1 "Make the build pass"');
    expect(prompt).toContain('Task description:\nThe build is red.');
    expect(prompt).toContain('Blocked at step 1 of 1 (build, command).');
    expect(prompt).toContain('Command of the step:\nfor i in $(seq 1 300)');
    expect(prompt).toContain('Reason: step_failed — nonzero_exit at step build: exit 3');
    expect(prompt).toContain('Exit code: 3; check exit code: none');
    const tail = (
      await t.json<Array<{ id: number; transcript_path?: string }>>(
        'GET',
        `/v1/tasks/${task.id}/steps`,
      )
    )[0];
    expect(tail?.id).toBe(failed?.id);
    expect(prompt).toMatch(/full transcript: \/.+\/transcripts\/1\/0-1\.jsonl/);
    expect(prompt).toContain('output-line-300');
    expect(prompt).toContain('output-line-110');
    expect(prompt).not.toContain('output-line-50"');
    // the human's words arrive literally, after the context
    expect(prompt.endsWith('Please fix the loop {{.Task.ID}}')).toBe(true);
    const rows = await stepRuns(t, task.id);
    expect(rows.map((r) => [r.step_index, r.step_id, r.state])).toEqual([
      [0, 'build', 'failed'],
      [0, '__repair', 'succeeded'],
    ]);
    expect(rows[1]).toMatchObject({ agent: 'claude', cost_usd: 0.0123, follow_up: false });
  });

  it('returns to blocked with the same reason when the repair agent fails too, spending no retry', async () => {
    const t = await buildTestApp({ config: agentConfig({ FAKE_CLAUDE_SCENARIO: 'fail' }) });
    const { project } = await addProject(t, { failing: FAILING });
    const task = await createTask(t, { project_id: project.id, title: 'x', workflow: 'failing' });
    const blocked = await waitState(t, task.id, 'blocked');
    await act(t, task.id, 'repair', { prompt: 'fix', agent: 'claude', model: 'sonnet' });
    const after = await waitState(t, task.id, 'blocked');
    expect(after.block_reason).toBe(blocked.block_reason);
    expect((await stepRuns(t, task.id))[1]).toMatchObject({
      step_id: '__repair',
      state: 'failed',
      failure_reason: 'agent_error',
      model: 'sonnet',
    });
    // the blocked step still has its budget: a retry re-runs it
    await setScenario(t, { FAKE_CLAUDE_SCENARIO: 'success' });
    expect((await act(t, task.id, 'retry', {})).statusCode).toBe(200);
  });
});

describe('follow-up prompts', () => {
  it("continue the task's latest claude session and return to done", async () => {
    const log = join(tempDir(), 'rec.jsonl');
    const t = await buildTestApp({ config: agentConfig({ FAKE_CLAUDE_RECORD: log }) });
    const { project } = await addProject(t, {
      one: agentWorkflow('one', { agent: 'claude' }),
    });
    const task = await createTask(t, { project_id: project.id, title: 'x', workflow: 'one' });
    await waitState(t, task.id, 'done');
    // literal text, like a repair prompt: braces reach the agent as typed
    const res = await act(t, task.id, 'follow_up', { prompt: 'Now add tests {{.Task.ID}}' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ state: 'queued', warnings: [] });
    await waitState(t, task.id, 'done');
    const rows = await stepRuns(t, task.id);
    expect(rows[1]).toMatchObject({
      step_index: 1,
      step_id: 'follow-up-1',
      state: 'succeeded',
      follow_up: true,
      result_summary:
        'resumed 00000000-0000-4000-8000-00000000fa6e: done: Now add tests {{.Task.ID}}',
    });
    const [first, second] = runArgv(log);
    expect(first).not.toContain('--resume');
    expect(second).toEqual(
      expect.arrayContaining(['--resume', '00000000-0000-4000-8000-00000000fa6e']),
    );
  });

  it('start a fresh session when the task has no session of that CLI', async () => {
    const log = join(tempDir(), 'rec.jsonl');
    const t = await buildTestApp({ config: agentConfig({ FAKE_CLAUDE_RECORD: log }) });
    const { project } = await addProject(t, {
      cmd: 'name: cmd\nsteps:\n  - id: c\n    type: command\n    run: "true"\n',
    });
    const task = await createTask(t, { project_id: project.id, title: 'x', workflow: 'cmd' });
    await waitState(t, task.id, 'done');
    await act(t, task.id, 'follow_up', { prompt: 'Look around' });
    await waitState(t, task.id, 'done');
    expect(runArgv(log)[0]).not.toContain('--resume');
    expect((await stepRuns(t, task.id))[1]?.result_summary).toBe('done: Look around');
  });

  it('continue a codex thread with per-run tokens, but not on a restricted task (codex cannot resume restricted)', async () => {
    const log = join(tempDir(), 'rec.jsonl');
    const t = await buildTestApp({
      config: agentConfig({ FAKE_CODEX_RECORD: log, FAKE_CODEX_USAGE_BASE: '1000' }),
    });
    const { project } = await addProject(t, { one: agentWorkflow('one', { agent: 'codex' }) });
    const task = await createTask(t, { project_id: project.id, title: 'x', workflow: 'one' });
    await waitState(t, task.id, 'done');
    await act(t, task.id, 'follow_up', { prompt: 'more', agent: 'codex' });
    await waitState(t, task.id, 'done');
    const rows = await stepRuns(t, task.id);
    // the thread reports 1100/1042 cumulative; the first run's 100/42 are subtracted
    expect(rows.map((r) => [r.input_tokens, r.output_tokens, r.cost_usd])).toEqual([
      [100, 42, null],
      [1000, 1000, null],
    ]);
    const execs = records(log)
      .filter((r) => r.event === 'start' && (r.argv as string[])[0] === 'exec')
      .map((r) => r.argv as string[]);
    expect(execs[1]).toContain('resume');

    const restricted = await createTask(t, {
      project_id: project.id,
      title: 'y',
      workflow: 'one',
      restricted: true,
    });
    await waitState(t, restricted.id, 'done');
    await act(t, restricted.id, 'follow_up', { prompt: 'more' });
    await waitState(t, restricted.id, 'done');
    const last = records(log)
      .filter((r) => r.event === 'start' && (r.argv as string[])[0] === 'exec')
      .map((r) => r.argv as string[])
      .at(-1);
    expect(last).not.toContain('resume');
  });

  it('return to the origin state whatever the agent does', async () => {
    const t = await buildTestApp({ config: agentConfig() });
    const { project } = await addProject(t, { one: agentWorkflow('one', { agent: 'claude' }) });
    const task = await createTask(t, { project_id: project.id, title: 'x', workflow: 'one' });
    await waitState(t, task.id, 'done');
    await setScenario(t, { FAKE_CLAUDE_SCENARIO: 'fail' });
    await act(t, task.id, 'follow_up', { prompt: 'break it' });
    await waitState(t, task.id, 'done');
    expect((await stepRuns(t, task.id))[1]).toMatchObject({
      state: 'failed',
      failure_reason: 'agent_error',
    });
  });
});

describe("cost caps on claude's reported cost", () => {
  async function costly(extra: string, task: Record<string, unknown> = {}, cost = '0.5') {
    const t = await buildTestApp({
      config: agentConfig({ FAKE_CLAUDE_SCENARIO: 'cost', FAKE_CLAUDE_COST: cost }, extra),
    });
    const { project } = await addProject(t, {
      two: `name: two\ndefaults:\n  agent: claude\nsteps:\n  - id: a\n    type: agent\n    prompt: a\n  - id: b\n    type: agent\n    prompt: b\n`,
    });
    const created = await createTask(t, {
      project_id: project.id,
      title: 'x',
      workflow: 'two',
      ...task,
    });
    return { t, id: created.id };
  }

  it('max_task_cost_usd blocks cost_limit after the attempt that crossed it; the step keeps its state', async () => {
    const { t, id } = await costly('', { max_task_cost_usd: 0.4 });
    const blocked = await waitState(t, id, 'blocked');
    expect(blocked).toMatchObject({ block_reason: 'cost_limit', current_step: 1 });
    expect((await stepRuns(t, id)).map((r) => [r.step_id, r.state, r.cost_usd])).toEqual([
      ['a', 'succeeded', 0.5],
    ]);
    expect((await getTask(t, id)).cost_usd).toBe(0.5);
  });

  it('the config cap and the task cap: the lower one bites', async () => {
    const { t, id } = await costly('max_task_cost_usd: 0.9\n', { max_task_cost_usd: 5 });
    const blocked = await waitState(t, id, 'blocked');
    expect(blocked.block_reason).toBe('cost_limit');
    expect((await stepRuns(t, id)).length).toBe(2);
  });

  it('max_tree_cost_usd blocks tree_cost_limit; where both caps are passed the reason is cost_limit', async () => {
    const tree = await costly('max_tree_cost_usd: 0.9\n');
    expect((await waitState(tree.t, tree.id, 'blocked')).block_reason).toBe('tree_cost_limit');
    const both = await costly('max_tree_cost_usd: 0.9\nmax_task_cost_usd: 0.9\n');
    expect((await waitState(both.t, both.id, 'blocked')).block_reason).toBe('cost_limit');
  });

  it('counts repair and follow-up spend: a follow-up over the lifetime cap blocks', async () => {
    const { t, id } = await costly('', { max_task_cost_usd: 1.2 });
    await waitState(t, id, 'done');
    await act(t, id, 'follow_up', { prompt: 'again' });
    const blocked = await waitState(t, id, 'blocked');
    expect(blocked.block_reason).toBe('cost_limit');
    expect((await getTask(t, id)).cost_usd).toBe(1.5);
  });

  it('max_tree_cost_usd counts every lane of a fan_out tree: the lane whose attempt crossed it blocks', {
    timeout: 60_000,
  }, async () => {
    const t = await buildTestApp({
      config: agentConfig(
        { FAKE_CLAUDE_SCENARIO: 'cost', FAKE_CLAUDE_COST: '0.5' },
        'max_tree_cost_usd: 0.9\nmax_parallel_tasks: 4\n',
      ),
    });
    const { project } = await addProject(t, {
      fan: `name: fan
steps:
  - id: split
    type: fan_out
    lanes:
      - id: a
        steps:
          - id: wa
            type: agent
            agent: claude
            prompt: a
      - id: b
        steps:
          - id: wb
            type: agent
            agent: claude
            prompt: b
`,
    });
    const root = await createTask(t, { project_id: project.id, title: 'x', workflow: 'fan' });
    const lanes = async () =>
      t.json<Array<{ id: number; state: string; block_reason: string | null }>>(
        'GET',
        `/v1/tasks?parent_id=${root.id}&archived=all`,
      );
    for (let i = 0; i < 1000; i++) {
      const now = await lanes();
      if (now.length === 2 && now.every((l) => ['done', 'blocked'].includes(l.state))) break;
      await new Promise((r) => setTimeout(r, 30));
    }
    const settled = await lanes();
    const seen = JSON.stringify(settled.map((l) => [l.state, l.block_reason]));
    expect(
      settled.some((l) => l.block_reason === 'tree_cost_limit'),
      seen,
    ).toBe(true);
    expect(
      settled.every((l) => l.state === 'done' || l.block_reason === 'tree_cost_limit'),
      seen,
    ).toBe(true);
    const parent = await getTask(t, root.id);
    expect(parent.state).toBe('awaiting_children');
    expect((parent.children as { cost_usd: number }).cost_usd).toBe(1);
  });

  it('is inert for an adapter that reports no cost', async () => {
    const t = await buildTestApp({ config: agentConfig({}, 'max_task_cost_usd: 0.0001\n') });
    const { project } = await addProject(t, { one: agentWorkflow('one', { agent: 'codex' }) });
    const task = await createTask(t, { project_id: project.id, title: 'x', workflow: 'one' });
    await waitState(t, task.id, 'done');
    expect((await stepRuns(t, task.id))[0]?.cost_usd).toBeNull();
  });
});
