/**
 * Every human action as a tool (issue 9 point 2): answer, approve, archive, cancel, follow_up,
 * pause, reject, repair, resume, retry and skip, each driven through `/mcp` with the SDK's own
 * Client on a real task in a real repository, and each taking the task where its route would.
 * The engine's action list is the reference: a human action without a tool fails here.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, test } from 'vitest';
import { HUMAN_ACTIONS } from '../../../kernel/engine/index.js';
import { builtinTools } from '../../../kernel/mcp/index.js';
import { agentConfig, agentWorkflow, stepRuns } from '../../support/agents.js';
import { buildTestApp, waitFor } from '../../support/app.js';
import { call, connect, listen } from '../../support/mcp.js';
import { act, addProject, commandWorkflow, type TaskJson, waitState } from '../../support/tasks.js';

const WORKFLOWS = {
  gate: 'name: gate\nsteps:\n  - id: look\n    type: manual\n    instructions: look\n  - id: after\n    type: command\n    run: "true"\n',
  failing: commandWorkflow('failing', 'echo broken; exit 3', '    max_retries: 0\n'),
  hold: 'name: hold\nsteps:\n  - id: wait\n    type: command\n    run: while [ ! -f release ]; do sleep 0.05; done\n  - id: then\n    type: command\n    run: "true"\n',
  ok: commandWorkflow('ok', 'true'),
};

async function session(config?: string) {
  const t = await buildTestApp(config === undefined ? {} : { config });
  const url = await listen(t);
  const { client } = await connect(`${url}/mcp`, t.token);
  const { project, repo } = await addProject(t, WORKFLOWS);
  /** tasks_create through MCP; the created task's view. */
  const create = async (body: Record<string, unknown>): Promise<TaskJson> => {
    const r = await call<TaskJson>(client, 'tasks_create', { project_id: project.id, ...body });
    if (r.isError) throw new Error(`tasks_create → ${JSON.stringify(r.body)}`);
    return r.body;
  };
  return { t, client, project, repo, create };
}

/** A tool call that must succeed: its body, the route's answer for the action. */
async function ok(client: Client, tool: string, args: Record<string, unknown>): Promise<TaskJson> {
  const r = await call<TaskJson>(client, tool, args);
  expect(r.isError, `${tool} → ${JSON.stringify(r.body)}`).toBe(false);
  expect(r.structured).toEqual(r.body);
  return r.body;
}

test('every human action of the engine is a tool mirroring its route', () => {
  const routes = new Map(builtinTools.map((t) => [t.name, t.route]));
  for (const action of HUMAN_ACTIONS)
    expect(routes.get(`tasks_${action}`), action).toBe(`POST /v1/tasks/:id/${action}`);
});

describe('human actions through /mcp', () => {
  test('a gate: approve runs on, reject blocks `rejected`', async () => {
    const { t, client, create } = await session();
    const a = await create({ title: 'approve me', workflow: 'gate' });
    await waitState(t, a.id, 'awaiting_gate');
    const approved = await ok(client, 'tasks_approve', { task_id: a.id });
    expect(approved.id).toBe(a.id);
    expect(approved.state).not.toBe('awaiting_gate');
    await waitState(t, a.id, 'done');

    const r = await create({ title: 'reject me', workflow: 'gate' });
    await waitState(t, r.id, 'awaiting_gate');
    expect(await ok(client, 'tasks_reject', { task_id: r.id })).toMatchObject({
      id: r.id,
      state: 'blocked',
      block_reason: 'rejected',
    });
  });

  test('resume a paused task, pause it while it runs, then cancel it', async () => {
    const { t, client, create } = await session();
    const task = await create({ title: 'hold', workflow: 'hold', paused: true });
    expect(task.state).toBe('paused');
    expect(await ok(client, 'tasks_resume', { task_id: task.id })).toMatchObject({
      id: task.id,
      state: 'queued',
    });
    await waitFor(async () => (await stepRuns(t, task.id)).some((s) => s.state === 'running'));
    const running = await waitState(t, task.id, 'running');
    expect(await ok(client, 'tasks_pause', { task_id: task.id })).toMatchObject({
      state: 'running',
      pause_requested: true,
    });
    writeFileSync(join(running.worktree_path as string, 'release'), '');
    expect(await waitState(t, task.id, 'paused')).toMatchObject({ current_step: 1 });
    expect(await ok(client, 'tasks_cancel', { task_id: task.id })).toMatchObject({
      state: 'aborted',
    });

    const live = await create({ title: 'cancel me', workflow: 'hold' });
    await waitFor(async () => (await stepRuns(t, live.id)).some((s) => s.state === 'running'));
    expect(await ok(client, 'tasks_cancel', { task_id: live.id })).toMatchObject({
      id: live.id,
      state: 'aborted',
    });
    // The step's process tree is stopped: its run closes.
    await waitFor(async () => (await stepRuns(t, live.id)).every((s) => s.state !== 'running'));
  });

  test('a blocked task: retry with a run override, skip, and repair by an agent', async () => {
    const { t, client, create } = await session(agentConfig());
    const retried = await create({ title: 'retry', workflow: 'failing' });
    await waitState(t, retried.id, 'blocked');
    expect(
      await ok(client, 'tasks_retry', { task_id: retried.id, run_override: 'echo fixed' }),
    ).toMatchObject({ id: retried.id, state: 'queued' });
    await waitState(t, retried.id, 'done');
    expect((await stepRuns(t, retried.id)).at(-1)).toMatchObject({
      state: 'succeeded',
      run_override: 'echo fixed',
    });

    const skipped = await create({ title: 'skip', workflow: 'failing' });
    await waitState(t, skipped.id, 'blocked');
    await ok(client, 'tasks_skip', { task_id: skipped.id });
    await waitState(t, skipped.id, 'done');

    const repaired = await create({ title: 'repair', workflow: 'failing' });
    const blocked = await waitState(t, repaired.id, 'blocked');
    // A blank prompt is refused exactly as the route refuses it.
    const blank = await call(client, 'tasks_repair', { task_id: repaired.id, prompt: '  ' });
    const route = await act(t, repaired.id, 'repair', { prompt: '  ' });
    expect(route.statusCode).toBe(400);
    expect(blank).toMatchObject({ isError: true, body: route.json() });
    expect(
      await ok(client, 'tasks_repair', { task_id: repaired.id, prompt: 'fix it', agent: 'claude' }),
    ).toMatchObject({ id: repaired.id, state: 'queued', warnings: [] });
    await waitFor(async () => (await stepRuns(t, repaired.id)).length === 2);
    const after = await waitState(t, repaired.id, 'blocked');
    expect(after.block_reason).toBe(blocked.block_reason);
    expect((await stepRuns(t, repaired.id)).map((s) => [s.step_id, s.state])).toEqual([
      ['run', 'failed'],
      ['__repair', 'succeeded'],
    ]);
  });

  test('a finished task: follow_up runs more work, archive removes the worktree', async () => {
    const { t, client, create } = await session();
    const task = await create({ title: 'more', workflow: 'ok' });
    const done = await waitState(t, task.id, 'done');
    const worktree = done.worktree_path as string;
    expect(
      await ok(client, 'tasks_follow_up', { task_id: task.id, run: 'echo more > more.txt' }),
    ).toMatchObject({ id: task.id, state: 'queued', warnings: [] });
    await waitFor(async () => (await stepRuns(t, task.id)).length === 2);
    await waitState(t, task.id, 'done');
    expect(existsSync(join(worktree, 'more.txt'))).toBe(true);
    expect((await stepRuns(t, task.id)).at(-1)).toMatchObject({
      state: 'succeeded',
      follow_up: true,
    });

    // Dirty (more.txt is uncommitted): refused like the route, then forced.
    const refused = await call(client, 'tasks_archive', { task_id: task.id });
    expect(refused).toMatchObject({ isError: true, body: { error: { code: 'invalid_state' } } });
    const archived = await ok(client, 'tasks_archive', { task_id: task.id, force: true });
    expect(archived).toMatchObject({ id: task.id, state: 'archived' });
    expect(archived.branch).toMatchObject({ name: done.branch_name });
    expect(existsSync(worktree)).toBe(false);
  });

  test('answer: the question a task waits on, refused answers in the route’s envelope', async () => {
    const { t, client, project } = await session(
      agentConfig({ FAKE_CLAUDE_SCENARIO: 'ask-question' }),
    );
    const { project: asking } = await addProject(t, {
      ask: agentWorkflow('ask', { agent: 'claude', max_retries: 0 }),
    });
    expect(asking.id).not.toBe(project.id);
    const made = await call<TaskJson>(client, 'tasks_create', {
      project_id: asking.id,
      title: 'pick',
      workflow: 'ask',
    });
    const id = made.body.id;
    await waitState(t, id, 'awaiting_input');
    const wrong = { answers: { 'Which flavour?': 'Red' } };
    const refused = await call(client, 'tasks_answer', { task_id: id, ...wrong });
    const route = await act(t, id, 'answer', wrong);
    expect(route.statusCode).toBe(400);
    expect(refused).toMatchObject({ isError: true, body: route.json() });
    expect(
      await ok(client, 'tasks_answer', { task_id: id, answers: { 'Which colour?': 'Blue' } }),
    ).toMatchObject({ id, state: 'running' });
    await waitState(t, id, 'done');
    expect((await stepRuns(t, id))[0]?.result_summary).toBe('answered: {"Which colour?":"Blue"}');
  });
});

describe('project writes through /mcp', () => {
  test('projects_update changes what the route changes; projects_delete refuses, then deletes', async () => {
    const { t, client, project, create } = await session();
    const updated = await ok(client, 'projects_update', {
      project_id: project.id,
      name: 'renamed',
      max_parallel_tasks: 2,
    });
    expect(updated).toMatchObject({ id: project.id, name: 'renamed', max_parallel_tasks: 2 });
    expect(await t.json('GET', `/v1/projects/${project.id}`)).toEqual(updated);

    const task = await create({ title: 'keeps it', paused: true });
    const refused = await call(client, 'projects_delete', { project_id: project.id });
    const route = await t.api('DELETE', `/v1/projects/${project.id}`);
    expect(route.statusCode).toBeGreaterThanOrEqual(400);
    expect(refused).toMatchObject({ isError: true, body: route.json() });

    expect(
      await call(client, 'projects_delete', { project_id: project.id, force: true }),
    ).toMatchObject({ isError: false, body: { deleted: true } });
    expect((await t.api('GET', `/v1/projects/${project.id}`)).statusCode).toBe(404);
    expect((await t.api('GET', `/v1/tasks/${task.id}`)).statusCode).toBe(404);
  });
});
