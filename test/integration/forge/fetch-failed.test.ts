// Issue 20 point 4: a task blocked pull_fetch_failed (at admission, before it has a worktree) is
// offered only actions that can succeed — retry and cancel: repair needs a worktree, and skip
// re-admitted it into the same block — its block message says what to do, and once the machine
// can fetch again a retry runs it to the end.
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../../support/app.js';
import { fakeGithub, forgeEnvironment, forgeProject } from '../../support/fake-github.js';
import { act, commandWorkflow, createTask, getTask, waitState } from '../../support/tasks.js';

describe('a task blocked pull_fetch_failed', () => {
  it('offers retry and cancel, refuses skip and repair, says what to do, and retries once fixed', async () => {
    const fake = await fakeGithub();
    const t = await buildTestApp({ config: forgeEnvironment(fake, 'token') });
    const { repo, project } = await forgeProject(t, fake, 'acme/widgets', {
      ok: commandWorkflow('ok', 'test -f pr-12.txt'),
    });
    fake.pull('acme/widgets', { number: 12, head_ref: 'gone' });
    // The machine cannot fetch: origin points nowhere.
    repo.git('config', '--unset-all', `url.${fake.root}/.insteadOf`);
    repo.git('config', 'url./nonexistent/svc-test/.insteadOf', 'https://github.com/');
    const created = await createTask(t, { project_id: project.id, workflow: 'ok', forge_pull: 12 });
    const blocked = await waitState(t, created.id, 'blocked');
    expect(blocked).toMatchObject({ block_reason: 'pull_fetch_failed', worktree_path: null });
    expect([...blocked.available_actions].sort()).toEqual(['cancel', 'retry']);
    expect(blocked.block_detail).toContain(`git -C ${repo.path} fetch origin`);
    expect(blocked.block_detail).toContain('gh auth setup-git');
    expect(blocked.block_detail).toContain(`svc task retry ${created.id}`);

    const skip = await act(t, created.id, 'skip');
    expect(skip.statusCode).toBe(409);
    expect(skip.json().error).toMatchObject({
      code: 'invalid_state',
      details: { state: 'blocked', reason: 'no_worktree' },
    });
    expect(skip.json().error.message).toContain('blocked at admission (pull_fetch_failed)');
    const repair = await act(t, created.id, 'repair', { prompt: 'fix it' });
    expect(repair.statusCode).toBe(409);
    expect(repair.json().error.details).toMatchObject({ reason: 'no_worktree' });
    expect((await getTask(t, created.id)).state).toBe('blocked');

    repo.git('config', '--unset-all', 'url./nonexistent/svc-test/.insteadOf');
    repo.git('config', `url.${fake.root}/.insteadOf`, 'https://github.com/');
    expect((await act(t, created.id, 'retry', {})).statusCode).toBe(200);
    await waitState(t, created.id, 'done');
  }, 120_000);
});
