// Issue 7 point 3: archive, hand-off and delete (SPEC §3.3, §4.5; decisions 163, 164). Archive is
// legal from idle alone and removes the worktree; hand-off validates a POST /v1/tasks body with the
// same code, takes project, base and branch from the chat, keeps the worktree with its uncommitted
// work (never committed), refuses mid merge with repo_operation_in_progress, and writes the task,
// task.created and chat.handed_off in one transaction: both events or neither.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentConfig } from '../../support/agents.js';
import { buildTestApp, type TestApp } from '../../support/app.js';
import { chatDetail, chatEvents, createChat, send, waitTurn } from '../../support/chats.js';
import { git } from '../../support/git.js';
import { act, addProject, commandWorkflow, getTask, waitState } from '../../support/tasks.js';

async function setup(knobs: Record<string, string> = {}) {
  const t = await buildTestApp({ config: agentConfig(knobs) });
  const { project, repo } = await addProject(t, {
    check: commandWorkflow(
      'check',
      'test -f notes.txt && git status --porcelain | grep -q notes.txt',
    ),
  });
  return { t, project, repo };
}

const post = (t: TestApp, url: string, body?: unknown) =>
  t.api('POST', url, body, body === undefined ? {} : { 'content-type': 'application/json' });

function count(t: TestApp, sql: string): number {
  return (t.kernel.services.store.db.prepare(sql).get() as { n: number }).n;
}

describe('archive', () => {
  it('is legal from idle alone, removes the worktree, deletes an empty branch, and is terminal', async () => {
    const { t, project, repo } = await setup({ FAKE_CLAUDE_SCENARIO: 'hang' });
    const chat = await createChat(t, { project_id: project.id, title: 'a' });
    await send(t, chat.id, 'go');
    const busy = await post(t, `/v1/chats/${chat.id}/archive`);
    expect(busy.statusCode).toBe(409);
    expect(busy.json().error).toMatchObject({
      code: 'invalid_state',
      details: { state: 'running' },
    });
    await post(t, `/v1/chats/${chat.id}/cancel`);
    writeFileSync(join(chat.worktree_path, 'scratch.txt'), 'x');
    const dirty = await post(t, `/v1/chats/${chat.id}/archive`);
    expect(dirty.statusCode).toBe(409);
    expect(dirty.json().error.details).toMatchObject({ reason: 'worktree_dirty' });
    const res = await post(t, `/v1/chats/${chat.id}/archive`, { force: true });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      state: 'archived',
      worktree_path: '',
      branch: { name: chat.branch_name, result: 'deleted' },
    });
    expect(existsSync(chat.worktree_path)).toBe(false);
    expect(repo.git('branch', '--list', chat.branch_name)).toBe('');
    expect(chatEvents(t, chat.id).map((e) => e.kind)).toContain('chat.archived');
    for (const action of ['archive', 'send', 'handoff']) {
      const again = await post(
        t,
        `/v1/chats/${chat.id}/${action}`,
        action === 'send' ? { message: 'x' } : undefined,
      );
      expect(again.statusCode, action).toBe(409);
    }
  });
});

describe('hand-off', () => {
  it('creates the task on the chat’s branch and worktree, uncommitted work kept and never committed', async () => {
    const { t, project, repo } = await setup();
    const chat = await createChat(t, { project_id: project.id, title: 'Prototype' });
    writeFileSync(join(chat.worktree_path, 'notes.txt'), 'from the chat\n');
    const head = git(chat.worktree_path, 'rev-parse', 'HEAD');
    const res = await post(t, `/v1/chats/${chat.id}/handoff`, {
      workflow: 'check',
      paused: true,
      // Ignored: the chat's own project, base and branch win.
      project_id: 999,
      branch_name: 'elsewhere',
      base_branch: 'nope',
    });
    expect(res.statusCode).toBe(201);
    const { task, chat: after } = res.json() as {
      task: Record<string, unknown>;
      chat: Record<string, unknown>;
    };
    expect(task).toMatchObject({
      title: 'Prototype',
      project_id: project.id,
      branch_name: chat.branch_name,
      base_branch: 'main',
      source_chat_id: chat.id,
      state: 'paused',
      worktree_path: chat.worktree_path,
    });
    expect(after).toMatchObject({
      state: 'handed_off',
      handoff_task_id: task.id,
      worktree_path: '',
    });
    const kinds = (
      t.kernel.services.store.db
        .prepare(
          'SELECT kind FROM events WHERE (task_id = ? AND kind = ?) OR (chat_id = ? AND kind = ?)',
        )
        .all(task.id, 'task.created', chat.id, 'chat.handed_off') as Array<{ kind: string }>
    ).map((r) => r.kind);
    expect(kinds.sort()).toEqual(['chat.handed_off', 'task.created']);
    // The task runs in the chat's worktree, where the uncommitted file still waits, uncommitted.
    await act(t, task.id as number, 'resume');
    expect((await waitState(t, task.id as number, 'done')).worktree_path).toBe(chat.worktree_path);
    expect(git(chat.worktree_path, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(chat.worktree_path, 'status', '--porcelain')).toContain('notes.txt');
    expect(repo.git('log', '--oneline', chat.branch_name).split('\n')).toHaveLength(2);
  });

  it('validates the body with the task code before any write; a refusal leaves nothing', async () => {
    const { t, project } = await setup();
    const chat = await createChat(t, { project_id: project.id, title: 'x' });
    for (const body of [
      { workflow: 'missing' },
      { title: 5 },
      { max_task_cost_usd: -1 },
      { agent: 'nope' },
      { bogus: true },
    ]) {
      const res = await post(t, `/v1/chats/${chat.id}/handoff`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.code).toBe('validation_failed');
    }
    expect(count(t, 'SELECT COUNT(*) AS n FROM tasks')).toBe(0);
    expect((await chatDetail(t, chat.id)).chat.state).toBe('idle');
    expect(chatEvents(t, chat.id).map((e) => e.kind)).toEqual(['chat.created']);
  });

  it('writes both durable events or neither: a failure inside the transaction leaves no task', async () => {
    const { t, project } = await setup();
    const chat = await createChat(t, { project_id: project.id, title: 'x' });
    const events = t.kernel.services.events;
    const original = events.append.bind(events);
    events.append = ((kind, subjects, payload) => {
      if (kind === 'chat.handed_off') throw new Error('disk full');
      return original(kind, subjects, payload);
    }) as typeof events.append;
    try {
      const res = await post(t, `/v1/chats/${chat.id}/handoff`, { paused: true });
      expect(res.statusCode).toBe(500);
    } finally {
      events.append = original;
    }
    expect(count(t, 'SELECT COUNT(*) AS n FROM tasks')).toBe(0);
    expect(
      count(
        t,
        "SELECT COUNT(*) AS n FROM events WHERE kind IN ('task.created', 'chat.handed_off')",
      ),
    ).toBe(0);
    expect((await chatDetail(t, chat.id)).chat).toMatchObject({
      state: 'idle',
      worktree_path: chat.worktree_path,
    });
    // And the same hand-off succeeds once the fault is gone.
    expect((await post(t, `/v1/chats/${chat.id}/handoff`, { paused: true })).statusCode).toBe(201);
  });

  it('refuses mid merge with 409 repo_operation_in_progress and details.operation', async () => {
    const { t, project, repo } = await setup();
    const chat = await createChat(t, { project_id: project.id, title: 'x' });
    writeFileSync(join(chat.worktree_path, 'README.md'), 'chat side\n');
    git(chat.worktree_path, 'commit', '-qam', 'chat edit');
    repo.commit('main edit', { 'README.md': 'main side\n' });
    expect(() => git(chat.worktree_path, 'merge', 'main')).toThrow();
    const res = await post(t, `/v1/chats/${chat.id}/handoff`, {});
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({
      code: 'repo_operation_in_progress',
      details: { operation: 'merge' },
    });
    expect(count(t, 'SELECT COUNT(*) AS n FROM tasks')).toBe(0);
  });
});

describe('close and delete', () => {
  it('close is for chats on a task; delete takes archived or closed chats, with delete_branch (decision 163)', async () => {
    const { t, project, repo } = await setup();
    const chat = await createChat(t, { project_id: project.id, title: 'keep me' });
    const close = await post(t, `/v1/chats/${chat.id}/close`);
    expect(close.statusCode).toBe(409);
    expect(close.json().error.details).toMatchObject({ state: 'idle', reason: 'not_task_linked' });
    const live = await t.api('DELETE', `/v1/chats/${chat.id}`);
    expect(live.statusCode).toBe(409);
    expect(live.json().error).toMatchObject({ code: 'invalid_state', details: { state: 'idle' } });
    // A commit on the branch keeps it through archive; delete_branch removes it anyway.
    writeFileSync(join(chat.worktree_path, 'work.txt'), 'w');
    git(chat.worktree_path, 'add', '-A');
    git(chat.worktree_path, 'commit', '-qm', 'work');
    await send(t, chat.id, 'hi');
    await waitTurn(t, chat.id, 1);
    const archived = await post(t, `/v1/chats/${chat.id}/archive`);
    expect(archived.json().branch).toMatchObject({ result: 'has_commits' });
    const res = await t.api('DELETE', `/v1/chats/${chat.id}?delete_branch=true`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      id: chat.id,
      deleted: true,
      branch: { name: chat.branch_name, result: 'deleted' },
    });
    expect(repo.git('branch', '--list', chat.branch_name)).toBe('');
    expect((await t.api('GET', `/v1/chats/${chat.id}`)).statusCode).toBe(404);
    expect(count(t, 'SELECT COUNT(*) AS n FROM chat_turns')).toBe(0);
    expect(existsSync(join(t.paths.transcriptsDir, `chat-${chat.id}`))).toBe(false);
    expect((await t.api('DELETE', '/v1/chats/1?delete_branch=maybe')).statusCode).toBe(404);
  });

  it('delete without delete_branch keeps the branch', async () => {
    const { t, project, repo } = await setup();
    const chat = await createChat(t, { project_id: project.id, title: 'k' });
    git(chat.worktree_path, 'commit', '-q', '--allow-empty', '-m', 'keep');
    await post(t, `/v1/chats/${chat.id}/archive`);
    const bad = await t.api('DELETE', `/v1/chats/${chat.id}?delete_branch=maybe`);
    expect(bad.statusCode).toBe(400);
    expect((await t.api('DELETE', `/v1/chats/${chat.id}`)).json()).toEqual({
      id: chat.id,
      deleted: true,
    });
    expect(repo.git('branch', '--list', chat.branch_name)).toContain(chat.branch_name);
    expect(await getTask(t, 1).catch(() => null)).toBeNull();
  });
});
