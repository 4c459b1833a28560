// Issue 7 point 5: what clients complete `/skill` and `@file` mentions from (decision 166).
// GET /v1/chats/{id}/skills asks the chat's adapter (the fake CLIs answer like the real ones), is
// cached per chat until `refresh=true`, is empty for an adapter that cannot list, and is 409
// task_has_no_worktree for a chat on a task that lost its worktree. GET /v1/chats/{id}/files
// lists the workspace (tracked and untracked files, .gitignore honoured) up to `limit`.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentConfig, records } from '../../support/agents.js';
import { buildTestApp } from '../../support/app.js';
import { createChat } from '../../support/chats.js';
import { addProject, commandWorkflow, createTask, waitState } from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';

async function setup() {
  const record = join(tempDir(), 'record.jsonl');
  const t = await buildTestApp({ config: agentConfig({ FAKE_AGENT_RECORD: record }) });
  const { project, repo } = await addProject(t, { passes: commandWorkflow('passes', 'true') });
  return { t, project, repo, record };
}

describe('GET /v1/chats/{id}/skills', () => {
  it('lists what the chat’s agent would load in its worktree, cached until refresh', async () => {
    const { t, project, record } = await setup();
    const chat = await createChat(t, { project_id: project.id, title: 'x', agent: 'codex' });
    const res = await t.json<{
      agent: string;
      supported: boolean;
      sigil: string;
      skills: Array<{ name: string }>;
    }>('GET', `/v1/chats/${chat.id}/skills`);
    expect(res).toMatchObject({
      agent: 'codex',
      supported: true,
      sigil: '$',
      position: 'anywhere',
    });
    expect(res.skills.map((s) => s.name)).toContain('fake-skill');
    const asked = () =>
      records(record).filter((r) => r.event === 'start' && r.cwd === chat.worktree_path).length;
    const once = asked();
    expect(once).toBeGreaterThan(0);
    await t.json('GET', `/v1/chats/${chat.id}/skills`);
    expect(asked()).toBe(once);
    await t.json('GET', `/v1/chats/${chat.id}/skills?refresh=true`);
    expect(asked()).toBeGreaterThan(once);
    expect((await t.api('GET', `/v1/chats/${chat.id}/skills?refresh=yes`)).statusCode).toBe(400);
  });

  it('is empty for an adapter that cannot list skills', async () => {
    const { t, project } = await setup();
    const chat = await createChat(t, { project_id: project.id, title: 'x', agent: 'cursor' });
    expect(await t.json('GET', `/v1/chats/${chat.id}/skills`)).toEqual({
      agent: 'cursor',
      supported: false,
      sigil: '/',
      position: 'anywhere',
      skills: [],
    });
  });

  it('is 409 task_has_no_worktree for a chat on a task that lost its worktree', async () => {
    const { t, project } = await setup();
    const task = await waitState(
      t,
      (await createTask(t, { project_id: project.id, title: 'x', workflow: 'passes' })).id,
      'done',
    );
    const chat = await t.json<{ id: number }>('POST', `/v1/tasks/${task.id}/chat`);
    rmSync(task.worktree_path as string, { recursive: true, force: true });
    const res = await t.api('GET', `/v1/chats/${chat.id}/skills`);
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({
      code: 'task_has_no_worktree',
      details: { state: 'done', action: 'skills', task_id: task.id },
    });
  });
});

describe('GET /v1/chats/{id}/files', () => {
  it('lists tracked and untracked files, honours .gitignore, and stops at limit', async () => {
    const { t, project } = await setup();
    const chat = await createChat(t, { project_id: project.id, title: 'x' });
    const wt = chat.worktree_path;
    writeFileSync(join(wt, '.gitignore'), 'build/\n*.log\n');
    mkdirSync(join(wt, 'build'));
    writeFileSync(join(wt, 'build', 'out.js'), '');
    writeFileSync(join(wt, 'debug.log'), '');
    mkdirSync(join(wt, 'src'));
    writeFileSync(join(wt, 'src', 'new.ts'), '');
    const all = await t.json<{ files: string[]; truncated: boolean; total: number }>(
      'GET',
      `/v1/chats/${chat.id}/files`,
    );
    expect(all.files).toEqual(expect.arrayContaining(['.gitignore', 'README.md', 'src/new.ts']));
    expect(all.files).not.toContain('debug.log');
    expect(all.files.some((f) => f.startsWith('build/'))).toBe(false);
    expect(all.truncated).toBe(false);
    const one = await t.json<{ files: string[]; truncated: boolean; total: number }>(
      'GET',
      `/v1/chats/${chat.id}/files?limit=1`,
    );
    expect(one.files).toHaveLength(1);
    expect(one).toMatchObject({ truncated: true, total: all.total });
    for (const q of ['?limit=0', '?limit=x', '?other=1'])
      expect((await t.api('GET', `/v1/chats/${chat.id}/files${q}`)).statusCode, q).toBe(400);
  });
});
