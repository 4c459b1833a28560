// Issue 18 point 8 (decision 199): a fork's pull request is fetched into a branch of svc's own
// (`svc/pr-<n>-<owner>-<head>`). A fork whose head branch is called `main` creates, admits and
// archives without moving, checking out or claiming the local `main`.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../../support/app.js';
import { fakeGithub, forgeEnvironment, forgeProject } from '../../support/fake-github.js';
import { git } from '../../support/git.js';
import { act, commandWorkflow, createTask, waitState } from '../../support/tasks.js';

describe('a fork’s head branch named like a local branch', { timeout: 120_000 }, () => {
  it('goes into svc/pr-<n>-<owner>-<head> and never touches the local branch of that name', async () => {
    const fake = await fakeGithub();
    const t = await buildTestApp({ config: forgeEnvironment(fake, 'token') });
    const { repo, project } = await forgeProject(t, fake, 'acme/widgets', {
      // The forge environment's PATH holds no programs: a shell builtin only.
      ok: commandWorkflow('ok', 'test -f fork.txt'),
    });
    const pull = fake.pull('acme/widgets', {
      number: 7,
      head_ref: 'main',
      head_repo: 'Bob/widgets',
      files: { 'fork.txt': 'from a fork\n' },
    });
    const main = repo.git('rev-parse', 'main');

    const created = await createTask(t, { project_id: project.id, workflow: 'ok', forge_pull: 7 });
    expect(created).toMatchObject({
      branch_name: 'svc/pr-7-bob-main',
      forge_pull: { head_ref: 'main', head_repo: 'Bob/widgets', fork: true },
    });
    // The local main is nobody's claim: another task on it would be refused only because it exists.
    expect(t.kernel.services.engine.tasks.claimOf(project.id, 'main')).toBeUndefined();

    const done = await waitState(t, created.id, 'done', 30_000);
    expect(git(done.worktree_path as string, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe(
      'svc/pr-7-bob-main',
    );
    expect(existsSync(`${done.worktree_path}/fork.txt`)).toBe(true);
    expect(repo.git('rev-parse', 'main')).toBe(main);
    expect(repo.git('rev-parse', 'svc/pr-7-bob-main')).toBe((pull.head as { sha: string }).sha);
    expect(() => repo.git('config', '--get', 'branch.svc/pr-7-bob-main.remote')).toThrow();

    const archived = await act(t, created.id, 'archive');
    expect(archived.statusCode, archived.body).toBe(200);
    expect(repo.git('rev-parse', 'main')).toBe(main);
    expect(repo.git('symbolic-ref', '--short', 'HEAD')).toBe('main');
  });
});
