// Issue 20 point 5 (decision 217): a handed-off chat's record can be archived and deleted, so the
// rows do not pile up. Neither touches git: the worktree and the branch went to the task, and
// `delete_branch` on such a chat is refused naming the task.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentConfig } from '../../support/agents.js';
import { buildTestApp, type TestApp } from '../../support/app.js';
import { chatDetail, chatEvents, createChat } from '../../support/chats.js';
import { act, addProject, commandWorkflow, waitState } from '../../support/tasks.js';

const post = (t: TestApp, url: string, body?: unknown) =>
  t.api('POST', url, body, body === undefined ? {} : { 'content-type': 'application/json' });

async function handedOff() {
  const t = await buildTestApp({ config: agentConfig() });
  const { project, repo } = await addProject(t, { ok: commandWorkflow('ok', 'true') });
  const chat = await createChat(t, { project_id: project.id, title: 'Prototype' });
  writeFileSync(join(chat.worktree_path, 'notes.txt'), 'kept\n');
  const res = await post(t, `/v1/chats/${chat.id}/handoff`, { workflow: 'ok' });
  expect(res.statusCode, res.body).toBe(201);
  const taskId = (res.json() as { task: { id: number } }).task.id;
  return { t, repo, chat, taskId };
}

describe('a handed-off chat', () => {
  it('archives without touching the task’s worktree or branch, then deletes', async () => {
    const { t, repo, chat, taskId } = await handedOff();
    const task = await waitState(t, taskId, 'done');
    const archived = await post(t, `/v1/chats/${chat.id}/archive`);
    expect(archived.statusCode, archived.body).toBe(200);
    expect(archived.json()).toMatchObject({ state: 'archived', handoff_task_id: taskId });
    expect(archived.json()).not.toHaveProperty('branch');
    expect(existsSync(join(task.worktree_path as string, 'notes.txt'))).toBe(true);
    expect(repo.git('branch', '--list', chat.branch_name)).toContain(chat.branch_name);
    const archivedEvent = chatEvents(t, chat.id).find((e) => e.kind === 'chat.archived');
    expect(archivedEvent?.payload).toEqual({ task_id: taskId });

    const noBranch = await t.api('DELETE', `/v1/chats/${chat.id}?delete_branch=true`);
    expect(noBranch.statusCode).toBe(409);
    expect(noBranch.json().error).toMatchObject({
      code: 'invalid_state',
      details: { reason: 'handed_off', task_id: taskId },
    });
    expect(noBranch.json().error.message).toContain(`handed off to task ${taskId}`);

    const gone = await t.api('DELETE', `/v1/chats/${chat.id}`);
    expect(gone.statusCode, gone.body).toBe(200);
    expect((await t.api('GET', `/v1/chats/${chat.id}`)).statusCode).toBe(404);
    expect(repo.git('branch', '--list', chat.branch_name)).toContain(chat.branch_name);
  });

  it('deletes straight from handed_off, also after its task was archived', async () => {
    const { t, chat, taskId } = await handedOff();
    await waitState(t, taskId, 'done');
    expect((await act(t, taskId, 'archive', { force: true })).statusCode).toBe(200);
    expect((await chatDetail(t, chat.id)).chat.state).toBe('handed_off');
    const gone = await t.api('DELETE', `/v1/chats/${chat.id}`);
    expect(gone.statusCode, gone.body).toBe(200);
    expect(gone.json()).toEqual({ id: chat.id, deleted: true });
  });
});
