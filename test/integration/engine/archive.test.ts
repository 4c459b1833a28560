// SPEC §4.4 archive (the branch object) and §4.2 project delete, against real repositories.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../../support/app.js';
import { bareRemote, git } from '../../support/git.js';
import { act, addProject, commandWorkflow, createTask, waitState } from '../../support/tasks.js';

const WF = {
  ok: commandWorkflow('ok', 'true'),
  commit: commandWorkflow(
    'commit',
    'echo change > change.txt && git add change.txt && git commit -q -m change',
  ),
  dirty: commandWorkflow('dirty', 'echo scratch > scratch.txt'),
};

describe('archive', () => {
  it('removes the worktree and deletes an empty branch', async () => {
    const t = await buildTestApp();
    const { project, repo } = await addProject(t, WF);
    const task = await waitState(
      t,
      (await createTask(t, { project_id: project.id, title: 'e', workflow: 'ok' })).id,
      'done',
    );
    const res = await act(t, task.id, 'archive', {});
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      state: 'archived',
      worktree_path: null,
      branch: { name: task.branch_name, result: 'deleted' },
    });
    expect(existsSync(task.worktree_path as string)).toBe(false);
    expect(repo.git('branch', '--list', task.branch_name)).toBe('');
  });

  it('keeps a branch with commits', async () => {
    const t = await buildTestApp();
    const { project, repo } = await addProject(t, WF);
    const task = await waitState(
      t,
      (await createTask(t, { project_id: project.id, title: 'c', workflow: 'commit' })).id,
      'done',
    );
    const res = await act(t, task.id, 'archive', {});
    expect(res.json().branch).toEqual({ name: task.branch_name, result: 'has_commits' });
    expect(repo.git('branch', '--list', task.branch_name)).toContain(task.branch_name);
  });

  it('refuses a dirty worktree unless forced', async () => {
    const t = await buildTestApp();
    const { project } = await addProject(t, WF);
    const task = await waitState(
      t,
      (await createTask(t, { project_id: project.id, title: 'd', workflow: 'dirty' })).id,
      'done',
    );
    const refused = await act(t, task.id, 'archive', {});
    expect(refused.statusCode).toBe(409);
    // Issue 19 point 6: the refusal names the worktree and what is in it.
    expect(refused.json().error.details).toEqual({
      state: 'done',
      reason: 'worktree_dirty',
      path: task.worktree_path,
      files: ['?? scratch.txt'],
      more_files: 0,
    });
    expect(refused.json().error.message).toContain(`(${task.worktree_path})`);
    expect(existsSync(task.worktree_path as string)).toBe(true);
    const forced = await t.api('POST', `/v1/tasks/${task.id}/archive?force=true`);
    expect(forced.json()).toMatchObject({ state: 'archived', branch: { result: 'deleted' } });
  });

  it('omits the branch object when the policy is off', async () => {
    const t = await buildTestApp({ config: 'delete_empty_branch_on_archive: false\n' });
    const { project } = await addProject(t, WF);
    const task = await waitState(
      t,
      (await createTask(t, { project_id: project.id, title: 'o', workflow: 'ok' })).id,
      'done',
    );
    const res = (await act(t, task.id, 'archive', {})).json();
    expect(res.state).toBe('archived');
    expect(res).not.toHaveProperty('branch');
  });

  it('deletes the upstream leg on a real bare remote when asked', async () => {
    const t = await buildTestApp({ config: 'delete_remote_branch_on_archive: true\n' });
    const { project, repo } = await addProject(t, WF);
    const origin = bareRemote(repo);
    const task = await waitState(
      t,
      (await createTask(t, { project_id: project.id, title: 'r', workflow: 'ok' })).id,
      'done',
    );
    repo.git('push', '-q', '-u', 'origin', task.branch_name);
    expect(git(origin, 'branch', '--list', task.branch_name)).toContain(task.branch_name);
    const res = (await act(t, task.id, 'archive', {})).json();
    expect(res.branch).toEqual({
      name: task.branch_name,
      result: 'deleted',
      remote: { remote: 'origin', ref: `refs/heads/${task.branch_name}`, result: 'deleted' },
    });
    expect(git(origin, 'branch', '--list', task.branch_name)).toBe('');
    const plain = await waitState(
      t,
      (await createTask(t, { project_id: project.id, title: 'n', workflow: 'ok' })).id,
      'done',
    );
    expect((await act(t, plain.id, 'archive', {})).json().branch).toEqual({
      name: plain.branch_name,
      result: 'deleted',
      remote: { remote: '', ref: '', result: 'no_upstream' },
    });
  });
});

describe('DELETE /v1/projects/{id}', () => {
  it('is refused with non-archived tasks; force archives them, deletes empty branches and keeps ones with commits', async () => {
    const t = await buildTestApp();
    const { project, repo } = await addProject(t, WF);
    const empty = await waitState(
      t,
      (await createTask(t, { project_id: project.id, title: 'e', workflow: 'ok' })).id,
      'done',
    );
    const full = await waitState(
      t,
      (await createTask(t, { project_id: project.id, title: 'f', workflow: 'commit' })).id,
      'done',
    );
    const refused = await t.api('DELETE', `/v1/projects/${project.id}`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.code).toBe('invalid_state');
    expect((await t.api('DELETE', `/v1/projects/${project.id}?force=true`)).statusCode).toBe(204);
    expect(existsSync(empty.worktree_path as string)).toBe(false);
    expect(existsSync(full.worktree_path as string)).toBe(false);
    expect(repo.git('branch', '--list', empty.branch_name)).toBe('');
    expect(repo.git('branch', '--list', full.branch_name)).toContain(full.branch_name);
    expect(await t.json('GET', '/v1/tasks?archived=all')).toEqual([]);
    expect((await t.api('GET', `/v1/projects/${project.id}`)).statusCode).toBe(404);
  });

  it('force is refused while a task runs', async () => {
    const t = await buildTestApp();
    const { project } = await addProject(t, { sleep: commandWorkflow('sleep', 'sleep 60') });
    const task = await createTask(t, { project_id: project.id, title: 's', workflow: 'sleep' });
    await waitState(t, task.id, 'running');
    const res = await t.api('DELETE', `/v1/projects/${project.id}?force=true`);
    expect(res.statusCode).toBe(409);
    expect(res.json().error.details.state).toBe('running');
  });

  it('a forced delete frees idempotency keys of the tasks it destroyed', async () => {
    const t = await buildTestApp();
    const { project } = await addProject(t, WF);
    const body = { project_id: project.id, title: 'k', workflow: 'ok', paused: true };
    await createTask(t, body, { 'idempotency-key': 'same' });
    await t.api('DELETE', `/v1/projects/${project.id}?force=true`);
    const { project: again } = await addProject(t, WF);
    const fresh = await createTask(
      t,
      { ...body, project_id: again.id },
      { 'idempotency-key': 'same' },
    );
    expect(fresh.project_id).toBe(again.id);
  });
});
