// Issue 6 point 5: input requests (SPEC §3.2 awaiting_input, §4.4 answer, §2.8 on_input). The fake
// claude asks a question or a permission over the stream-json control protocol; the task parks in
// awaiting_input with the process alive and its slot held, the answer (keyed by question text, or
// `allow`) resumes it, `deny` answers for the human, the input timeout runs on the daemon clock.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeClock } from '../../../kernel/clock/index.js';
import { agentConfig, agentWorkflow, stepRuns } from '../../support/agents.js';
import { buildTestApp, type TestApp, waitFor } from '../../support/app.js';
import { act, addProject, createTask, getTask, waitState } from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';

async function asking(
  knobs: Record<string, string>,
  step: Record<string, unknown> = {},
  extra = '',
): Promise<{ t: TestApp; id: number; projectId: number }> {
  const t = await buildTestApp({ config: agentConfig(knobs, extra) });
  const { project } = await addProject(t, {
    ask: agentWorkflow('ask', { agent: 'claude', max_retries: 0, ...step }),
  });
  const task = await createTask(t, { project_id: project.id, title: 'pick', workflow: 'ask' });
  return { t, id: task.id, projectId: project.id };
}

function stateEvents(t: TestApp, id: number): Array<Record<string, unknown>> {
  return (
    t.kernel.services.store.db
      .prepare("SELECT payload FROM events WHERE kind = 'task.state_changed' AND task_id = ?")
      .all(id) as Array<{ payload: string }>
  ).map((r) => JSON.parse(r.payload) as Record<string, unknown>);
}

describe('a question', () => {
  it('parks the task in awaiting_input with the pending question, the process alive and the slot held', async () => {
    const out = join(tempDir(), 'notify.json');
    const { t, id, projectId } = await asking(
      { FAKE_CLAUDE_SCENARIO: 'ask-question' },
      {},
      `max_parallel_tasks: 1\nnotify:\n  on: [awaiting_input]\n  command: ["/bin/sh", "-c", "cat > ${out}"]\n`,
    );
    const waiting = await waitState(t, id, 'awaiting_input');
    expect(waiting.pending_input).toEqual({
      kind: 'question',
      questions: [
        {
          text: 'Which colour?',
          header: 'Colour',
          options: ['Red', 'Blue'],
          // Issue 19 point 8: what each option means travels with it.
          option_descriptions: ['warm', 'cool'],
          multi_select: false,
        },
      ],
    });
    expect(waiting.available_actions).toEqual(expect.arrayContaining(['answer', 'cancel']));
    // the notify envelope and the event carry input {kind, summary}
    expect(stateEvents(t, id).find((e) => e.to === 'awaiting_input')?.input).toEqual({
      kind: 'question',
      summary: 'Which colour?',
    });
    await waitFor(() => existsSync(out) && readFileSync(out, 'utf8').length > 0);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toMatchObject({
      to: 'awaiting_input',
      input: { kind: 'question', summary: 'Which colour?' },
    });
    // the process is alive (its row is running with a pid) and the slot is held
    const [row] = await stepRuns(t, id);
    expect(row).toMatchObject({ state: 'running' });
    expect(row?.pid).toEqual(expect.any(Number));
    const second = await createTask(t, { project_id: projectId, title: 'other', workflow: 'ask' });
    await new Promise((r) => setTimeout(r, 300));
    expect((await getTask(t, second.id)).state).toBe('queued');
    await act(t, id, 'cancel');
  });

  it('refuses answers that do not fit the question, naming the field; then an answer resumes the run', async () => {
    const { t, id } = await asking({ FAKE_CLAUDE_SCENARIO: 'ask-question' }, { timeout: '5m' });
    await waitState(t, id, 'awaiting_input');
    for (const [body, field] of [
      [{ answers: { 'Which flavour?': 'Red' } }, 'answers.Which flavour?'],
      [{ answers: { 'Which colour?': ['Red', 'Blue'] } }, 'answers.Which colour?'],
      [{ answers: { 'Which colour?': ' ' } }, 'answers.Which colour?'],
      [{ allow: true }, 'allow'],
      [{}, 'answers'],
    ] as const) {
      const res = await act(t, id, 'answer', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'validation_failed', details: { field } });
    }
    expect((await getTask(t, id)).state).toBe('awaiting_input');
    // a wait longer than the step timeout: the step clock is paused while a human decides
    await (t.clock as FakeClock).advance('10m');
    const res = await act(t, id, 'answer', { answers: { 'Which colour?': 'Blue' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().state).toBe('running');
    await waitState(t, id, 'done');
    const [row] = await stepRuns(t, id);
    expect(row).toMatchObject({
      state: 'succeeded',
      result_summary: 'answered: {"Which colour?":"Blue"}',
      input_wait_ms: 600_000,
    });
    // answering again, with nothing pending, is a state conflict
    const late = await act(t, id, 'answer', { answers: { 'Which colour?': 'Red' } });
    expect(late.statusCode).toBe(409);
    expect(late.json().error).toMatchObject({ code: 'invalid_state', details: { state: 'done' } });
  });

  it('takes several values for a multi-select question', async () => {
    const { t, id } = await asking({
      FAKE_CLAUDE_SCENARIO: 'ask-question',
      FAKE_CLAUDE_ASK_MULTI: '1',
    });
    const waiting = await waitState(t, id, 'awaiting_input');
    expect((waiting.pending_input as { questions: unknown[] }).questions).toHaveLength(2);
    const res = await act(t, id, 'answer', {
      answers: { 'Which colour?': 'Red', 'Which toppings?': ['Cheese', 'Olives'] },
    });
    expect(res.statusCode, res.body).toBe(200);
    await waitState(t, id, 'done');
    expect((await stepRuns(t, id))[0]?.result_summary).toBe(
      'answered: {"Which colour?":"Red","Which toppings?":"Cheese,Olives"}',
    );
  });

  it('on_input deny answers for the human: the agent carries on and the task never waits', async () => {
    const { t, id } = await asking({ FAKE_CLAUDE_SCENARIO: 'ask-question' }, { on_input: 'deny' });
    await waitState(t, id, 'done');
    expect(stateEvents(t, id).some((e) => e.to === 'awaiting_input')).toBe(false);
    expect((await stepRuns(t, id))[0]?.result_summary).toBe(
      'answered: No user is available to answer; decide with your best judgment.',
    );
  });

  it('times out per request after input_timeout on the daemon clock: the run stops, input_timeout', async () => {
    const { t, id } = await asking(
      { FAKE_CLAUDE_SCENARIO: 'ask-question' },
      { input_timeout: '30m' },
    );
    await waitState(t, id, 'awaiting_input');
    await (t.clock as FakeClock).advance('29m');
    expect((await getTask(t, id)).state).toBe('awaiting_input');
    await (t.clock as FakeClock).advance('1m');
    const blocked = await waitState(t, id, 'blocked');
    expect(blocked.block_reason).toBe('input_timeout');
    expect((await stepRuns(t, id))[0]).toMatchObject({
      state: 'failed',
      failure_reason: 'input_timeout',
      input_wait_ms: 30 * 60_000,
    });
  });

  it('times out after defaults.input_timeout when the workflow sets none', async () => {
    const { t, id } = await asking(
      { FAKE_CLAUDE_SCENARIO: 'ask-question' },
      {},
      'defaults:\n  input_timeout: 2h\n',
    );
    await waitState(t, id, 'awaiting_input');
    await (t.clock as FakeClock).advance('2h');
    expect((await waitState(t, id, 'blocked')).block_reason).toBe('input_timeout');
  });

  it('cancel while waiting stops the process and aborts the task', async () => {
    const { t, id } = await asking({ FAKE_CLAUDE_SCENARIO: 'ask-question' });
    await waitState(t, id, 'awaiting_input');
    const res = await act(t, id, 'cancel');
    expect(res.json().state).toBe('aborted');
    await waitFor(async () => (await stepRuns(t, id))[0]?.state === 'interrupted');
    expect((await stepRuns(t, id))[0]?.failure_reason).toBe('canceled');
  });
});

describe('a permission', () => {
  it('allow: the tool runs', async () => {
    const { t, id } = await asking({ FAKE_CLAUDE_SCENARIO: 'permission' });
    const waiting = await waitState(t, id, 'awaiting_input');
    expect(waiting.pending_input).toMatchObject({
      kind: 'permission',
      permission: { tool: 'Write' },
    });
    expect(stateEvents(t, id).find((e) => e.to === 'awaiting_input')?.input).toMatchObject({
      kind: 'permission',
      summary: expect.stringContaining('permission: Write'),
    });
    const bad = await act(t, id, 'answer', { answers: { x: 'y' } });
    expect(bad.statusCode).toBe(400);
    expect((await act(t, id, 'answer', { allow: true })).statusCode).toBe(200);
    const done = await waitState(t, id, 'done');
    expect(readFileSync(join(done.worktree_path as string, 'hello.txt'), 'utf8')).toBe('hello\n');
    expect((await stepRuns(t, id))[0]?.result_summary).toBe('permission allow');
  });

  it('deny: the tool is refused and the run goes on', async () => {
    const { t, id } = await asking({ FAKE_CLAUDE_SCENARIO: 'permission' });
    await waitState(t, id, 'awaiting_input');
    expect((await act(t, id, 'answer', { allow: false })).statusCode).toBe(200);
    const done = await waitState(t, id, 'done');
    expect(existsSync(join(done.worktree_path as string, 'hello.txt'))).toBe(false);
    expect((await stepRuns(t, id))[0]?.result_summary).toBe('permission deny: denied by the user');
  });

  it('on_input deny refuses it without asking', async () => {
    const { t, id } = await asking({ FAKE_CLAUDE_SCENARIO: 'permission' }, { on_input: 'deny' });
    await waitState(t, id, 'done');
    expect((await stepRuns(t, id))[0]?.result_summary).toBe(
      'permission deny: permission denied: no user is available to approve this',
    );
  });
});

describe('requests that cannot be answered', () => {
  it('an unknown control request is input_protocol_error and the run is stopped', async () => {
    const { t, id } = await asking({ FAKE_CLAUDE_SCENARIO: 'bad-input-request' });
    const blocked = await waitState(t, id, 'blocked');
    expect(blocked.block_reason).toBe('input_protocol_error');
  });

  it('on_input require is refused at creation for an adapter that cannot ask, accepted for claude', async () => {
    const t = await buildTestApp({ config: agentConfig() });
    const { project } = await addProject(t, {
      codex: agentWorkflow('codex', { agent: 'codex', on_input: 'require' }),
      claude: agentWorkflow('claude', { agent: 'claude', on_input: 'require' }),
      viadefaults: `name: viadefaults\ndefaults:\n  on_input: require\nsteps:\n  - id: w\n    type: agent\n    prompt: x\n`,
    });
    const res = await t.api(
      'POST',
      '/v1/tasks',
      { project_id: project.id, title: 'x', workflow: 'codex' },
      { 'content-type': 'application/json' },
    );
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toMatch(/step work requires input .* codex cannot ask/);
    // the task-level agent override decides the adapter the defaults' require meets
    const viaTask = await t.api(
      'POST',
      '/v1/tasks',
      { project_id: project.id, title: 'x', workflow: 'viadefaults', agent: 'cursor' },
      { 'content-type': 'application/json' },
    );
    expect(viaTask.statusCode).toBe(400);
    const ok = await createTask(t, { project_id: project.id, title: 'x', workflow: 'claude' });
    expect(ok.state).toBe('queued');
  });
});
