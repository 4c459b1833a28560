// Issue 7 point 1: the chat resource (SPEC §2.5, §3.3, §4.5): POST /v1/chats cuts a worktree on
// svc/{id}-{slug} or checks out an existing branch, the pairing rules of existing_branch and
// branch_name, the branch claim 409 (branch, claimed_by), agent_cannot_resume, the default agent,
// the detail {chat, turns[]}, and the list with every query parameter.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { AgentAdapter } from '../../../kernel/plugin/index.js';
import { agentConfig } from '../../support/agents.js';
import { buildTestApp, type TestApp, waitFor } from '../../support/app.js';
import { chatDetail, createChat } from '../../support/chats.js';
import { git } from '../../support/git.js';
import { addProject, createTask, postTask } from '../../support/tasks.js';

async function setup() {
  const t = await buildTestApp({ config: agentConfig() });
  const { project, repo } = await addProject(t);
  return { t, project, repo };
}

async function post(t: TestApp, body: unknown) {
  return t.api('POST', '/v1/chats', body, { 'content-type': 'application/json' });
}

/** A chat on an existing branch: `existing_branch: true` with `branch_name`. */
async function postOnBranch(t: TestApp, projectId: number, title: string, branch: string) {
  return post(t, { project_id: projectId, title, existing_branch: true, branch_name: branch });
}

describe('POST /v1/chats', () => {
  it('cuts a worktree on svc/{id}-{slug} from the default branch, with the first resumable agent', async () => {
    const { t, project, repo } = await setup();
    const chat = await createChat(t, { project_id: project.id, title: 'Explore the parser' });
    expect(chat).toMatchObject({
      id: 1,
      state: 'idle',
      agent: 'claude',
      branch_name: 'svc/1-explore-the-parser',
      restricted: false,
    });
    expect(chat.linked_task_id).toBeUndefined();
    expect(existsSync(chat.worktree_path)).toBe(true);
    expect(git(chat.worktree_path, 'symbolic-ref', '--short', 'HEAD')).toBe(
      'svc/1-explore-the-parser',
    );
    expect(git(chat.worktree_path, 'rev-parse', 'HEAD')).toBe(repo.git('rev-parse', 'main'));
    expect(await chatDetail(t, chat.id)).toEqual({
      chat: expect.objectContaining({ id: 1 }),
      turns: [],
    });
    const created = t.kernel.services.store.db
      .prepare("SELECT COUNT(*) AS n FROM events WHERE kind = 'chat.created' AND chat_id = 1")
      .get() as { n: number };
    expect(created.n).toBe(1);
  });

  it('defaults to the first registered adapter that can resume, skipping one that cannot', async () => {
    const { t, project } = await setup();
    const agents = t.kernel.services.registry.listAgents() as AgentAdapter[];
    const claude = agents[0] as AgentAdapter;
    // A registry whose first adapter cannot resume: the default falls to the next one.
    const traits = claude.traits as { supports_resume: boolean };
    traits.supports_resume = false;
    try {
      const chat = await createChat(t, { project_id: project.id, title: 'x' });
      expect(chat.agent).toBe('codex');
      const res = await post(t, { project_id: project.id, title: 'y', agent: 'claude' });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'agent_cannot_resume' });
    } finally {
      traits.supports_resume = true;
    }
  });

  it('pairs existing_branch with branch_name; either alone is 400 and nothing is written', async () => {
    const { t, project, repo } = await setup();
    repo.git('branch', 'feature/x');
    for (const body of [
      { project_id: project.id, title: 'a', branch_name: 'feature/x' },
      { project_id: project.id, title: 'a', existing_branch: true },
      { project_id: project.id, title: 'a', existing_branch: false, branch_name: 'feature/x' },
    ]) {
      const res = await post(t, body);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({
        code: 'validation_failed',
        details: { field: 'branch_name' },
      });
    }
    for (const [body, field] of [
      [{ project_id: project.id, title: 'a', agent: 'nope' }, 'agent'],
      [{ project_id: 999, title: 'a' }, 'project_id'],
      [{ project_id: project.id, title: ' ' }, 'title'],
      [
        { project_id: project.id, title: 'a', existing_branch: true, branch_name: 'missing' },
        'branch_name',
      ],
    ] as const) {
      const res = await post(t, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.details.field).toBe(field);
    }
    expect(t.kernel.services.store.db.prepare('SELECT COUNT(*) AS n FROM chats').get()).toEqual({
      n: 0,
    });
    const chat = await createChat(t, {
      project_id: project.id,
      title: 'on a feature',
      existing_branch: true,
      branch_name: 'feature/x',
    });
    expect(chat).toMatchObject({ branch_name: 'feature/x', existing_branch: true });
    expect(git(chat.worktree_path, 'symbolic-ref', '--short', 'HEAD')).toBe('feature/x');
  });

  it('refuses a branch another task or chat works in: 409 with branch and claimed_by', async () => {
    const { t, project, repo } = await setup();
    repo.git('branch', 'shared');
    const first = await createChat(t, {
      project_id: project.id,
      title: 'one',
      existing_branch: true,
      branch_name: 'shared',
    });
    const res = await postOnBranch(t, project.id, 'two', 'shared');
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({
      code: 'invalid_state',
      details: { branch: 'shared', claimed_by: `chat:${first.id}` },
    });
    // A task's branch (claimed from creation, before any worktree exists).
    const task = await createTask(t, {
      project_id: project.id,
      title: 'work',
      paused: true,
      branch_name: 'task-branch',
    });
    repo.git('branch', 'task-branch');
    const again = await postOnBranch(t, project.id, 'three', 'task-branch');
    expect(again.statusCode).toBe(409);
    expect(again.json().error.details).toEqual({
      branch: 'task-branch',
      claimed_by: `task:${task.id}`,
    });
    // The project's own checkout holds main.
    const main = await postOnBranch(t, project.id, 'four', 'main');
    expect(main.statusCode).toBe(409);
    expect(main.json().error.details).toEqual({ branch: 'main', claimed_by: 'checkout' });
    // A task named onto a live chat's branch is refused: the branch exists in git.
    const taskRes = await postTask(t, {
      project_id: project.id,
      title: 'x',
      branch_name: 'shared',
      paused: true,
    });
    expect(taskRes.statusCode).toBe(400);
    expect(taskRes.json().error).toMatchObject({
      code: 'validation_failed',
      details: { field: 'branch_name' },
    });
    expect(taskRes.json().error.message).toContain('branch shared already exists');
    // A template that renders the chat's branch is judged after rendering, by the chat's claim
    // itself (git is not asked about a templated name until admission).
    await t.json('PATCH', `/v1/projects/${project.id}`, { branch_template: 'shared' });
    const templated = await postTask(t, { project_id: project.id, title: 'y', paused: true });
    expect(templated.statusCode).toBe(400);
    expect(templated.json().error).toMatchObject({
      code: 'validation_failed',
      message: `branch shared is already claimed by chat ${first.id}`,
      details: { field: 'branch_name' },
    });
  });

  it('disambiguates its default branch when task 1 already holds svc/1-{slug} (decision 162)', async () => {
    const { t, project } = await setup();
    await createTask(t, { project_id: project.id, title: 'Fix login', paused: true });
    const chat = await createChat(t, { project_id: project.id, title: 'Fix login' });
    expect(chat.branch_name).toBe('svc/chat-1-fix-login');
  });
});

describe('maintenance', () => {
  it('never takes a chat’s worktree or turn transcripts for orphans', async () => {
    const { t, project } = await setup();
    const chat = await createChat(t, { project_id: project.id, title: 'kept' });
    await t.json('POST', `/v1/chats/${chat.id}/send`, { message: 'hi' });
    await waitFor(async () => (await chatDetail(t, chat.id)).chat.state === 'idle');
    const res = await t.api('GET', '/v1/maintenance/orphans');
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain(chat.worktree_path);
    expect(res.body).not.toContain('chat-1');
  });
});

describe('project delete', () => {
  it('is refused while a chat runs a turn, and otherwise takes the chats and their worktrees', async () => {
    const t = await buildTestApp({ config: agentConfig({ FAKE_CLAUDE_SCENARIO: 'hang' }) });
    const { project } = await addProject(t);
    const chat = await createChat(t, { project_id: project.id, title: 'x' });
    await t.json('POST', `/v1/chats/${chat.id}/send`, { message: 'hi' });
    const busy = await t.api('DELETE', `/v1/projects/${project.id}`);
    expect(busy.statusCode).toBe(409);
    expect(busy.json().error.details).toMatchObject({ reason: 'chat_running' });
    await t.json('POST', `/v1/chats/${chat.id}/cancel`);
    expect((await t.api('DELETE', `/v1/projects/${project.id}`)).statusCode).toBeLessThan(300);
    expect(existsSync(chat.worktree_path)).toBe(false);
    expect((await t.api('GET', `/v1/chats/${chat.id}`)).statusCode).toBe(404);
  });
});

describe('GET /v1/chats', () => {
  it('lists newest first; archived covers archived, handed_off and closed; state wins; bad archived is 400', async () => {
    const { t, project } = await setup();
    const { project: other } = await addProject(t);
    const a = await createChat(t, { project_id: project.id, title: 'a' });
    const b = await createChat(t, { project_id: project.id, title: 'b' });
    const c = await createChat(t, { project_id: other.id, title: 'c' });
    const db = t.kernel.services.store.db;
    db.prepare(
      "UPDATE chats SET state = 'archived', ended_at = '2026-01-01T00:00:00.000Z' WHERE id = ?",
    ).run(a.id);
    db.prepare(
      "UPDATE chats SET state = 'handed_off', ended_at = '2026-03-01T00:00:00.000Z' WHERE id = ?",
    ).run(b.id);
    const ids = async (q: string) =>
      (await t.json<Array<{ id: number }>>('GET', `/v1/chats${q}`)).map((x) => x.id);
    expect(await ids('')).toEqual([c.id]);
    expect(await ids('?archived=false')).toEqual([c.id]);
    expect(await ids('?archived=true')).toEqual([b.id, a.id]);
    expect(await ids('?archived=all')).toEqual([c.id, b.id, a.id]);
    expect(await ids(`?archived=all&project_id=${project.id}`)).toEqual([b.id, a.id]);
    expect(await ids('?state=archived')).toEqual([a.id]);
    expect(await ids('?state=archived&state=idle')).toEqual([c.id, a.id]);
    expect(await ids('?state=handed_off&archived=false')).toEqual([b.id]);
    expect(await ids('?archived=true&archived_before=2026-02-01T00:00:00Z')).toEqual([a.id]);
    expect(await ids('?archived=true&archived_since=2026-02-01T00:00:00Z')).toEqual([b.id]);
    expect(await ids('?archived=all&limit=1')).toEqual([c.id]);
    expect(await ids('?archived=all&limit=1&offset=1')).toEqual([b.id]);
    for (const q of [
      '?archived=yes',
      '?state=nope',
      '?limit=0',
      '?archived_before=soon',
      '?task_id=x',
      '?what=1',
    ]) {
      const res = await t.api('GET', `/v1/chats${q}`);
      expect(res.statusCode, q).toBe(400);
      expect(res.json().error.code).toBe('validation_failed');
    }
  });

  it('unknown chat ids are 404', async () => {
    const { t } = await setup();
    expect((await t.api('GET', '/v1/chats/7')).statusCode).toBe(404);
    expect((await t.api('GET', '/v1/chats/x')).statusCode).toBe(404);
  });
});
