// Issue 7 point 4: chats on a task (SPEC §3.2 rules 4 and 6, §4.5 table, §6 rule 1). Opening is
// allowed from blocked, awaiting_gate, done and aborted with a worktree, and every refusal of the
// table carries its code and details; the first turn opens with the context block for the task's
// state, later turns carry none; while the chat is open every task action but cancel is 409
// task_locked_by_chat and available_actions narrows; cancel stops the turn, closes the chat and
// aborts the task together; chat activity writes no task.* event; restricted tasks restrict the
// chat and refuse codex.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentAdapter } from '../../../kernel/plugin/index.js';
import { agentConfig, records } from '../../support/agents.js';
import { buildTestApp, type TestApp, waitFor } from '../../support/app.js';
import { chatDetail, chatEvents, send, waitTurn } from '../../support/chats.js';
import { call, connect, listen } from '../../support/mcp.js';
import {
  act,
  addProject,
  commandWorkflow,
  createTask,
  getTask,
  waitState,
} from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';

const WORKFLOWS = {
  fails: commandWorkflow('fails', 'echo boom-from-the-step; exit 3', '    max_retries: 0\n'),
  passes: commandWorkflow('passes', 'echo all-good-summary'),
  gate: 'name: gate\nsteps:\n  - id: review\n    type: manual\n    instructions: "Check the diff of {{.Task.Title}}"\n',
};

async function setup(knobs: Record<string, string> = {}) {
  const record = join(tempDir(), 'record.jsonl');
  const t = await buildTestApp({ config: agentConfig({ FAKE_AGENT_RECORD: record, ...knobs }) });
  const { project, repo } = await addProject(t, WORKFLOWS);
  return { t, project, repo, record };
}

async function taskIn(
  t: TestApp,
  projectId: number,
  workflow: keyof typeof WORKFLOWS,
  state: string,
  extra = {},
) {
  const task = await createTask(t, {
    project_id: projectId,
    title: `T ${workflow}`,
    description: 'the description',
    workflow,
    ...extra,
  });
  return waitState(t, task.id, state);
}

const openChat = (t: TestApp, taskId: number, body?: unknown) =>
  t.api(
    'POST',
    `/v1/tasks/${taskId}/chat`,
    body,
    body === undefined ? {} : { 'content-type': 'application/json' },
  );

function stdinOf(file: string): string[] {
  return records(file)
    .filter((r) => r.event === 'stdin')
    .map((r) => String(r.data));
}

function taskEvents(t: TestApp, taskId: number): number {
  return (
    t.kernel.services.store.db
      .prepare("SELECT COUNT(*) AS n FROM events WHERE task_id = ? AND kind LIKE 'task.%'")
      .get(taskId) as { n: number }
  ).n;
}

describe('opening a chat on a task', () => {
  it('refuses every case of the table with its code and details', async () => {
    const { t, project, repo } = await setup();
    // invalid_state: a paused task
    const paused = await createTask(t, {
      project_id: project.id,
      title: 'p',
      workflow: 'passes',
      paused: true,
    });
    let res = await openChat(t, paused.id);
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({ code: 'invalid_state', details: { state: 'paused' } });
    // task_has_no_worktree: aborted before starting, and blocked on branch_exists
    await act(t, paused.id, 'cancel');
    res = await openChat(t, paused.id);
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({
      code: 'task_has_no_worktree',
      details: { state: 'aborted', action: 'chat', task_id: paused.id },
    });
    const held = await createTask(t, {
      project_id: project.id,
      title: 'b',
      workflow: 'passes',
      paused: true,
      branch_name: 'taken',
    });
    repo.git('branch', 'taken');
    await act(t, held.id, 'resume');
    expect((await waitState(t, held.id, 'blocked')).block_reason).toBe('branch_exists');
    res = await openChat(t, held.id);
    expect(res.json().error).toMatchObject({
      code: 'task_has_no_worktree',
      details: { state: 'blocked' },
    });
    // validation_failed: an unregistered agent; agent_cannot_resume
    const blocked = await taskIn(t, project.id, 'fails', 'blocked');
    res = await openChat(t, blocked.id, { agent: 'nope' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({
      code: 'validation_failed',
      details: { field: 'agent' },
    });
    const claude = t.kernel.services.registry.agent('claude') as AgentAdapter;
    const traits = claude.traits as { supports_resume: boolean };
    traits.supports_resume = false;
    try {
      res = await openChat(t, blocked.id, { agent: 'claude' });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('agent_cannot_resume');
    } finally {
      traits.supports_resume = true;
    }
    expect(t.kernel.services.store.db.prepare('SELECT COUNT(*) AS n FROM chats').get()).toEqual({
      n: 0,
    });
    // task_locked_by_chat: one open chat per task
    const first = await openChat(t, blocked.id);
    expect(first.statusCode).toBe(201);
    res = await openChat(t, blocked.id);
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({
      code: 'task_locked_by_chat',
      details: { chat_id: first.json().id },
    });
    // an unknown task is 404
    expect((await openChat(t, 999)).statusCode).toBe(404);
  });

  it('runs in the task’s worktree; the first turn carries the failure block, later turns none', async () => {
    const { t, project, record } = await setup();
    const task = await taskIn(t, project.id, 'fails', 'blocked');
    const res = await openChat(t, task.id);
    expect(res.statusCode).toBe(201);
    const chat = res.json();
    expect(chat).toMatchObject({
      linked_task_id: task.id,
      worktree_path: '',
      agent: 'claude',
      state: 'idle',
    });
    expect(chat.title).toContain(`task ${task.id}`);
    await send(t, chat.id, 'why did it fail?');
    await waitTurn(t, chat.id, 1);
    const first = stdinOf(record).join('\n');
    expect(first).toContain('T fails');
    expect(first).toContain('the description');
    expect(first).toContain('blocked');
    expect(first).toContain('boom-from-the-step');
    expect(first).toContain(join(t.paths.transcriptsDir));
    expect(first).toContain('why did it fail?');
    const starts = records(record).filter(
      (r) => r.event === 'start' && r.cwd === task.worktree_path,
    );
    expect(starts.length).toBeGreaterThan(0);
    const before = stdinOf(record).length;
    await send(t, chat.id, 'second question');
    await waitTurn(t, chat.id, 2);
    const later = stdinOf(record).slice(before).join('\n');
    expect(later).toContain('second question');
    expect(later).not.toContain('boom-from-the-step');
  });

  it('assembles the gate text for awaiting_gate, the summary for done, the abort reason for aborted', async () => {
    const { t, project, record } = await setup();
    const gate = await taskIn(t, project.id, 'gate', 'awaiting_gate');
    const g = (await openChat(t, gate.id)).json();
    await send(t, g.id, 'q1');
    await waitTurn(t, g.id, 1);
    expect(stdinOf(record).join('\n')).toContain('Check the diff of T gate');
    await t.api('POST', `/v1/chats/${g.id}/close`);

    const done = await taskIn(t, project.id, 'passes', 'done');
    const d = (await openChat(t, done.id)).json();
    let mark = stdinOf(record).length;
    await send(t, d.id, 'q2');
    await waitTurn(t, d.id, 1);
    expect(stdinOf(record).slice(mark).join('\n')).toContain('all-good-summary');
    await t.api('POST', `/v1/chats/${d.id}/close`);

    const failing = await taskIn(t, project.id, 'fails', 'blocked');
    await act(t, failing.id, 'cancel');
    const a = (await openChat(t, failing.id)).json();
    mark = stdinOf(record).length;
    await send(t, a.id, 'q3');
    await waitTurn(t, a.id, 1);
    const text = stdinOf(record).slice(mark).join('\n');
    expect(text).toContain('The task was aborted by a cancel');
    expect(text).toContain('Last failed step: run, reason');
  });
});

describe('the task lock', () => {
  it('refuses every task action but cancel with task_locked_by_chat, narrows available_actions, emits no task event', async () => {
    const { t, project } = await setup();
    const task = await taskIn(t, project.id, 'fails', 'blocked');
    const eventsBefore = taskEvents(t, task.id);
    const updated = (await getTask(t, task.id)).updated_at;
    const chat = (await openChat(t, task.id)).json();
    const view = await getTask(t, task.id);
    expect(view).toMatchObject({
      available_actions: ['cancel'],
      open_chat_id: chat.id,
      state: 'blocked',
    });
    const bodies: Record<string, unknown> = {
      retry: {},
      repair: { prompt: 'fix it' },
      follow_up: { prompt: 'more' },
      answer: { allow: true },
      archive: {},
    };
    for (const action of [
      'retry',
      'repair',
      'skip',
      'pause',
      'resume',
      'approve',
      'reject',
      'archive',
      'follow_up',
      'answer',
    ]) {
      const res = await act(t, task.id, action, bodies[action]);
      expect(res.statusCode, action).toBe(409);
      expect(res.json().error, action).toMatchObject({
        code: 'task_locked_by_chat',
        details: { chat_id: chat.id },
      });
    }
    // The engine door MCP tools and trigger reactions go through refuses too.
    await expect(t.kernel.services.engine.actions.retry(task.id, {})).rejects.toMatchObject({
      code: 'task_locked_by_chat',
    });
    // Chat activity never touches the task row nor writes a task.* event.
    await send(t, chat.id, 'hello');
    await waitTurn(t, chat.id, 1);
    const close = await t.api('POST', `/v1/chats/${chat.id}/close`);
    expect(close.json()).toMatchObject({ state: 'closed' });
    expect(taskEvents(t, task.id)).toBe(eventsBefore);
    const after = await getTask(t, task.id);
    expect(after.updated_at).toBe(updated);
    expect(after.open_chat_id).toBeUndefined();
    expect(after.available_actions).toContain('retry');
    const closed = chatEvents(t, chat.id).find((e) => e.kind === 'chat.closed');
    expect(closed?.payload).toMatchObject({ task_id: task.id });
    // The lock is lifted.
    expect((await act(t, task.id, 'skip')).statusCode).toBe(200);
  });

  it('on a done task leaves no action available; close refuses twice', async () => {
    const { t, project } = await setup();
    const task = await taskIn(t, project.id, 'passes', 'done');
    const chat = (await openChat(t, task.id)).json();
    expect((await getTask(t, task.id)).available_actions).toEqual([]);
    expect((await t.api('POST', `/v1/chats/${chat.id}/close`)).statusCode).toBe(200);
    const again = await t.api('POST', `/v1/chats/${chat.id}/close`);
    expect(again.statusCode).toBe(409);
    expect(again.json().error.details.state).toBe('closed');
  });

  it('cancelling the task stops the live turn, closes the chat and aborts the task together', async () => {
    const { t, project } = await setup({ FAKE_CLAUDE_SCENARIO: 'hang' });
    const task = await taskIn(t, project.id, 'fails', 'blocked');
    const chat = (await openChat(t, task.id)).json();
    await send(t, chat.id, 'go');
    expect((await chatDetail(t, chat.id)).chat.state).toBe('running');
    const res = await act(t, task.id, 'cancel');
    expect(res.statusCode).toBe(200);
    expect(res.json().state).toBe('aborted');
    expect((await chatDetail(t, chat.id)).chat.state).toBe('closed');
    const d = await waitFor(async () => {
      const x = await chatDetail(t, chat.id);
      return x.turns[0]?.state === 'cancelled' ? x : null;
    });
    expect(d.chat.state).toBe('closed');
    expect(chatEvents(t, chat.id).find((e) => e.kind === 'chat.closed')?.payload).toMatchObject({
      task_id: task.id,
      by: 'task_cancel',
    });
  });

  it('refuses archive, hand-off and delete_branch on a chat on a task with chat_linked_to_task', async () => {
    const { t, project } = await setup();
    const task = await taskIn(t, project.id, 'passes', 'done');
    const chat = (await openChat(t, task.id)).json();
    for (const action of ['archive', 'handoff']) {
      const res = await t.api('POST', `/v1/chats/${chat.id}/${action}`);
      expect(res.statusCode, action).toBe(409);
      expect(res.json().error).toMatchObject({
        code: 'chat_linked_to_task',
        details: { task_id: task.id, state: 'idle', action },
      });
    }
    await t.api('POST', `/v1/chats/${chat.id}/close`);
    const del = await t.api('DELETE', `/v1/chats/${chat.id}?delete_branch=true`);
    expect(del.statusCode).toBe(409);
    expect(del.json().error).toMatchObject({
      code: 'chat_linked_to_task',
      details: { action: 'delete_branch' },
    });
    expect((await t.api('DELETE', `/v1/chats/${chat.id}`)).statusCode).toBe(200);
  });
});

describe('the task lock over MCP', () => {
  it('refuses the agent task tools too, and no chat route is an MCP tool', async () => {
    const { t, project } = await setup();
    const task = await taskIn(t, project.id, 'fails', 'blocked');
    const chat = (await openChat(t, task.id)).json();
    const { client } = await connect(`${await listen(t)}/mcp`, t.token);
    for (const [tool, args] of [
      ['tasks_retry', {}],
      ['tasks_repair', { prompt: 'fix' }],
      ['tasks_skip', {}],
      ['tasks_archive', {}],
    ] as const) {
      const r = await call(client, tool, { task_id: task.id, ...args });
      expect(r, tool).toMatchObject({
        isError: true,
        body: { error: { code: 'task_locked_by_chat', details: { chat_id: chat.id } } },
      });
    }
    const { tools } = await client.listTools();
    expect(tools.filter((x) => x.name.includes('chat'))).toEqual([]);
  });
});

describe('restricted tasks', () => {
  it('restrict the chat (claude runs restricted) and refuse codex with validation_failed', async () => {
    const { t, project, record } = await setup();
    const task = await taskIn(t, project.id, 'fails', 'blocked', { restricted: true });
    const codex = await openChat(t, task.id, { agent: 'codex' });
    expect(codex.statusCode).toBe(400);
    expect(codex.json().error).toMatchObject({
      code: 'validation_failed',
      details: { field: 'agent' },
    });
    const chat = (await openChat(t, task.id)).json();
    expect(chat.restricted).toBe(true);
    await send(t, chat.id, 'look');
    await waitTurn(t, chat.id, 1);
    const start = records(record).find((r) => r.event === 'start' && r.cwd === task.worktree_path);
    const argv = (start?.argv ?? []) as string[];
    expect(argv.join(' ')).toContain('--allowedTools');
    expect(argv).not.toContain('--dangerously-skip-permissions');
  });
});
