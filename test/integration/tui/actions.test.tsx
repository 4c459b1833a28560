// Issue 12 point 1: actions by key against a real daemon (agent CLIs faked) — approve, reject, answer, retry with
// override, pause, resume, cancel, archive, follow-up, open chat — with tui.keys rebinding.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { agentConfig, agentWorkflow, records } from '../../support/agents.js';
import { waitFor } from '../../support/app.js';
import { addProject, createTask, getTask, waitState } from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';
import { listeningApp, renderBoard, selectedLine } from '../../support/tui.js';

const GATE =
  'name: gate\nsteps:\n  - id: hello\n    type: command\n    run: echo hi\n  - id: check\n    type: manual\n    instructions: look\n';

describe('actions by key', () => {
  it('approves and rejects a gate, refuses what the state does not allow, cancels after asking', async () => {
    const { t, client } = await listeningApp();
    const { project } = await addProject(t, { gate: GATE });
    const one = await createTask(t, { project_id: project.id, title: 'One', workflow: 'gate' });
    const two = await createTask(t, { project_id: project.id, title: 'Two', workflow: 'gate' });
    const three = await createTask(t, { project_id: project.id, title: 'Three', workflow: 'gate' });
    for (const x of [one, two, three]) await waitState(t, x.id, 'awaiting_gate');
    const b = renderBoard(client);
    await b.select(one.id);
    expect(b.frame()).toContain('a approve · x reject · s skip · c cancel · t chat · ⏎ open');
    await b.press('a');
    await b.until(`#${one.id} approve: now queued`);
    await waitState(t, one.id, 'done');
    await b.until(new RegExp(`#${one.id}\\s+done`));
    // approve again: the board says why not, and sends nothing
    await b.select(one.id);
    await b.press('a');
    await b.until(`approve does not apply to #${one.id}: it is done`);

    await b.select(two.id);
    await b.press('x');
    await b.until(`#${two.id} reject: now blocked`);
    expect((await getTask(t, two.id)).block_reason).toBe('rejected');

    await b.select(three.id);
    await b.press('c');
    await b.until(`Cancel #${three.id} Three? [y/n]`);
    await b.press('n');
    await b.until('nothing done');
    expect((await getTask(t, three.id)).state).toBe('awaiting_gate');
    await b.press('c', 'y');
    await b.until(`#${three.id} cancel: now aborted`);
  });

  it('retries a blocked command with a command override typed in the prompt', async () => {
    const { t, client } = await listeningApp();
    const { project } = await addProject(t, {
      flaky:
        'name: flaky\nsteps:\n  - id: build\n    type: command\n    run: echo broken; exit 4\n    max_retries: 0\n',
    });
    const task = await createTask(t, { project_id: project.id, title: 'Flaky', workflow: 'flaky' });
    await waitState(t, task.id, 'blocked');
    const b = renderBoard(client);
    await b.select(task.id);
    await b.press('r');
    await b.until(
      `#${task.id} command override (empty: none) · tab: command override / new branch name`,
    );
    await b.press('echo fixed-by-override', 'enter');
    await b.until(`#${task.id} retry: now queued`);
    await waitState(t, task.id, 'done');
    const steps = await t.json<Array<{ run_override: string | null; state: string }>>(
      'GET',
      `/v1/tasks/${task.id}/steps`,
    );
    expect(steps.map((s) => [s.state, s.run_override])).toEqual([
      ['failed', null],
      ['succeeded', 'echo fixed-by-override'],
    ]);
  });

  it('retries a failed agent step with a prompt override, which reaches the agent CLI', async () => {
    const record = join(tempDir(), 'claude.jsonl');
    const { t, client } = await listeningApp({
      config: agentConfig({ FAKE_CLAUDE_SCENARIO: 'fail', FAKE_CLAUDE_RECORD: record }),
    });
    const { project } = await addProject(t, {
      work: agentWorkflow('work', { agent: 'claude', max_retries: 0 }),
    });
    const task = await createTask(t, { project_id: project.id, title: 'Work', workflow: 'work' });
    await waitState(t, task.id, 'blocked');
    const b = renderBoard(client);
    await b.select(task.id);
    await b.press('r');
    await b.until(`#${task.id} prompt override (empty: none)`);
    await b.press('Try the other file', 'enter');
    await b.until(`#${task.id} retry: now queued`);
    await waitState(t, task.id, 'blocked');
    const steps = await t.json<Array<{ prompt_override: string | null }>>(
      'GET',
      `/v1/tasks/${task.id}/steps`,
    );
    expect(steps.map((s) => s.prompt_override)).toEqual([null, 'Try the other file']);
    const prompts = records(record)
      .filter((r) => r.event === 'stdin')
      .map((r) => String(r.data));
    expect(prompts.findIndex((p) => p.includes('Do Work'))).toBeGreaterThanOrEqual(0);
    expect(prompts.findIndex((p) => p.includes('Try the other file'))).toBeGreaterThan(
      prompts.findIndex((p) => p.includes('Do Work')),
    );
  });

  it('answers an agent’s questions one by one, several options for a multi-select', async () => {
    const { t, client } = await listeningApp({
      config: agentConfig({ FAKE_CLAUDE_SCENARIO: 'ask-question', FAKE_CLAUDE_ASK_MULTI: '1' }),
    });
    const { project } = await addProject(t, {
      asks: agentWorkflow('asks', { agent: 'claude', max_retries: 0 }),
    });
    const task = await createTask(t, { project_id: project.id, title: 'Ask', workflow: 'asks' });
    await waitState(t, task.id, 'awaiting_input');
    const b = renderBoard(client);
    await b.select(task.id);
    await b.press('enter');
    await b.until('the agent asks: Which colour?');
    // Issue 19 point 8: each option with what it means.
    expect(b.frame()).toContain('  2. Blue — cool');
    // Issue 19 point 7: what the agent printed before the pane opened is rendered from its
    // events (under its attempt's header), not replaced by a pointer to `svc task logs`.
    const pane = await b.until('── work attempt 1');
    expect(pane).not.toContain('earlier agent output');
    await b.press('i');
    await b.until(`#${task.id} question 1/2: Which colour? — 1. Red  2. Blue`);
    await b.press('7', 'enter');
    await b.until('pick a number from 1 to 2');
    await b.press('backspace', '2', 'enter');
    await b.until(`#${task.id} question 2/2: Which toppings?`);
    await b.press('1,2', 'enter');
    await b.until(`#${task.id} answer: now running`);
    // The fake claude echoes what it was told, live, in the open pane.
    await b.until('answered: {"Which colour?":"Blue","Which toppings?":"Cheese,Olives"}');
    await waitState(t, task.id, 'done');
    // claude reports a cost: the row shows it.
    await b.press('escape');
    await b.until(new RegExp(`#${task.id}\\s+done\\s+1/1\\s+\\$0\\.01`));
  });

  it('answers an agent’s permission request with y, and the agent goes on to use it', async () => {
    const { t, client } = await listeningApp({
      config: agentConfig({ FAKE_CLAUDE_SCENARIO: 'permission' }),
    });
    const { project } = await addProject(t, {
      asks: agentWorkflow('asks', { agent: 'claude', max_retries: 0 }),
    });
    const task = await createTask(t, { project_id: project.id, title: 'Write', workflow: 'asks' });
    await waitState(t, task.id, 'awaiting_input');
    const b = renderBoard(client);
    await b.select(task.id);
    await b.press('enter');
    await b.until('the agent asks permission: Write');
    await b.press('i');
    await b.until(`#${task.id} allow Write? y/n`);
    await b.press('y', 'enter');
    await b.until(`#${task.id} answer: now running`);
    const done = await waitState(t, task.id, 'done');
    expect(readFileSync(join(String(done.worktree_path), 'hello.txt'), 'utf8')).toBe('hello\n');
  });

  it('pauses a running task at the step boundary and resumes it', async () => {
    const { t, client } = await listeningApp();
    const { project } = await addProject(t, {
      // The first step runs until the test lets it finish, so the pause lands while it runs.
      slow: 'name: slow\nsteps:\n  - id: hold\n    type: command\n    run: while [ ! -e go ]; do sleep 0.1; done\n  - id: next\n    type: command\n    run: echo next\n',
    });
    const task = await createTask(t, { project_id: project.id, title: 'Slow', workflow: 'slow' });
    await waitState(t, task.id, 'running');
    // Admitted is not yet started: a pause before the first step parks at once.
    await waitFor(async () => {
      const runs = await t.json<Array<{ state: string }>>('GET', `/v1/tasks/${task.id}/steps`);
      return runs[0]?.state === 'running';
    });
    const b = renderBoard(client);
    await b.select(task.id);
    await b.press('p');
    await b.until(/running \(pausing\)/);
    writeFileSync(join(String((await getTask(t, task.id)).worktree_path), 'go'), '');
    await b.until(new RegExp(`#${task.id}\\s+paused`));
    expect(b.frame()).toContain('u resume');
    await b.press('u');
    await b.until(`#${task.id} resume: now queued`);
    await waitState(t, task.id, 'done');
  });

  it('follows up on a done task, then archives it after asking', async () => {
    const { t, client } = await listeningApp();
    const { project } = await addProject(t, {
      quick: 'name: quick\nsteps:\n  - id: a\n    type: command\n    run: echo quick\n',
    });
    const task = await createTask(t, { project_id: project.id, title: 'Quick', workflow: 'quick' });
    await waitState(t, task.id, 'done');
    const b = renderBoard(client);
    await b.select(task.id);
    await b.press('f');
    await b.until(
      `#${task.id} follow-up prompt · tab: follow-up prompt / follow-up command / follow-up workflow`,
    );
    await b.press('enter');
    await b.until('follow-up prompt is required');
    await b.press('tab', 'echo one-more-round', 'enter');
    await b.until(`#${task.id} follow-up: now queued`);
    await waitState(t, task.id, 'done');
    const steps = await t.json<Array<{ follow_up: boolean }>>('GET', `/v1/tasks/${task.id}/steps`);
    expect(steps.map((s) => s.follow_up)).toEqual([false, true]);
    await b.until(new RegExp(`#${task.id}\\s+done`));
    await b.press('A');
    await b.until(
      `Archive #${task.id}? Its worktree is removed and an empty branch deleted. [y/n]`,
    );
    await b.press('y');
    await b.until(`#${task.id} archive: now archived`);
    await b.until((f) => !f.includes(`#${task.id} `) || f.includes('no tasks yet'));
  });

  it('offers to force an archive the daemon refuses for uncommitted changes', async () => {
    const { t, client } = await listeningApp();
    const { project } = await addProject(t, {
      dirty:
        'name: dirty\nsteps:\n  - id: a\n    type: command\n    run: echo scratch > notes.txt\n',
    });
    const task = await createTask(t, { project_id: project.id, title: 'Dirty', workflow: 'dirty' });
    await waitState(t, task.id, 'done');
    const b = renderBoard(client);
    await b.select(task.id);
    await b.press('A', 'y');
    await b.until(`#${task.id} has uncommitted changes. Archive anyway, discarding them? [y/n]`);
    await b.press('y');
    await b.until(`#${task.id} archive: now archived`);
  });

  it('uses the keys tui.keys binds, and picks up a rebind without a restart', async () => {
    const { t, client } = await listeningApp({
      config: 'tui:\n  keys:\n    approve: "y"\n    help: h\n',
    });
    const { project } = await addProject(t, { gate: GATE });
    const task = await createTask(t, { project_id: project.id, title: 'Keys', workflow: 'gate' });
    await waitState(t, task.id, 'awaiting_gate');
    const b = renderBoard(client);
    await b.until('y approve · x reject');
    await b.press('h');
    const help = await b.until('Rebind with tui.keys');
    expect(help).toMatch(/y\s+approve\s+approve the gate/);
    expect(help).toMatch(/\^R\s+refresh/);
    await b.press('z');
    await b.until('y approve');
    await b.press('a');
    expect((await getTask(t, task.id)).state).toBe('awaiting_gate');
    // A refused rebind (onto reject's key) never reaches the board; a valid one does.
    const refused = await t.api(
      'PATCH',
      '/v1/config',
      { tui: { keys: { approve: 'x' } } },
      {
        'content-type': 'application/json',
      },
    );
    expect(refused.statusCode).toBe(400);
    await t.json('PATCH', '/v1/config', { tui: { keys: { approve: 'Y', reject: 'X' } } });
    await b.until('Y approve · X reject');
    await b.press('Y');
    await b.until(`#${task.id} approve: now queued`);
  });

  it('opens a chat on a stopped task through POST /v1/tasks/{id}/chat', async () => {
    const { t, client } = await listeningApp();
    const { project } = await addProject(t, { gate: GATE });
    const task = await createTask(t, { project_id: project.id, title: 'Talk', workflow: 'gate' });
    await waitState(t, task.id, 'awaiting_gate');
    const b = renderBoard(client);
    await b.select(task.id);
    await b.press('t');
    await b.until(new RegExp(`chat #\\d+ opened on #${task.id}; the task takes no other action`));
    await b.until(new RegExp(`#${task.id}\\s+awaiting_gate · chat #\\d+`));
    const chats = await t.json<Array<{ linked_task_id: number | null }>>('GET', '/v1/chats');
    expect(chats.map((c) => c.linked_task_id)).toEqual([task.id]);
  });

  it('says so where the daemon does not serve task chats', async () => {
    // An older daemon: the route answers 404 like any path it does not serve.
    const older = (app: FastifyInstance) => {
      app.addHook('onRequest', async (req, reply) => {
        if (/^\/v1\/tasks\/\d+\/chat/.test(req.url))
          return reply.code(404).send({ error: { code: 'not_found', message: 'no route' } });
      });
    };
    const { t, client } = await listeningApp({ extraRoutes: [older] });
    const { project } = await addProject(t, { gate: GATE });
    const task = await createTask(t, { project_id: project.id, title: 'Talk', workflow: 'gate' });
    await waitState(t, task.id, 'awaiting_gate');
    const b = renderBoard(client);
    await b.select(task.id);
    expect(selectedLine(b.frame())).toContain('Talk');
    await b.press('t');
    await b.until(`this daemon does not serve task chats yet (POST /v1/tasks/${task.id}/chat)`);
  });
});
