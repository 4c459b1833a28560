// Issue 19 point 11 (decision 205): a base branch that exists only as `origin/<name>` (a
// colleague's pushed branch, fetched but never checked out) is accepted with a warning, fetched
// at admission and cut from; a base that exists nowhere stays a 400 naming the field; a base
// deleted between creation and admission blocks `base_branch_missing` with how to recover.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../../support/app.js';
import { bareRemote, git, type Repo } from '../../support/git.js';
import {
  act,
  addProject,
  commandWorkflow,
  createTask,
  postTask,
  waitState,
} from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';

/** A colleague's clone of `origin` pushes `feature` with one commit; `repo` fetches it. */
function colleaguePushes(repo: Repo, bare: string, branch = 'feature'): string {
  const other = join(tempDir(), 'colleague');
  git(tempDir(), 'clone', '-q', bare, other);
  git(other, 'checkout', '-q', '-b', branch);
  git(other, 'commit', '-q', '--allow-empty', '-m', `work on ${branch}`);
  git(other, 'push', '-q', 'origin', branch);
  repo.git('fetch', '-q', 'origin');
  return git(other, 'rev-parse', 'HEAD');
}

describe('a base branch only on the remote', () => {
  it('is accepted with a warning, fetched at admission and cut from', async () => {
    const t = await buildTestApp();
    const { project, repo } = await addProject(t, { ok: commandWorkflow('ok', 'true') });
    const bare = bareRemote(repo);
    const tip = colleaguePushes(repo, bare);
    expect(repo.git('branch', '--list', 'feature')).toBe('');

    const task = await createTask(t, {
      project_id: project.id,
      title: 'on feature',
      workflow: 'ok',
      base_branch: 'feature',
    });
    expect(task.warnings).toEqual([
      expect.stringMatching(
        /base_branch feature is not a local branch .* exists as origin\/feature/,
      ),
    ]);
    const done = await waitState(t, task.id, 'done');
    // The local branch now tracks the remote one, and the task's branch was cut from its tip.
    expect(repo.git('rev-parse', 'feature')).toBe(tip);
    expect(repo.git('rev-parse', '--abbrev-ref', 'feature@{upstream}')).toBe('origin/feature');
    expect(repo.git('merge-base', '--is-ancestor', tip, String(done.branch_name))).toBe('');
  });

  it('refuses a base that exists nowhere, naming the field', async () => {
    const t = await buildTestApp();
    const { project } = await addProject(t, { ok: commandWorkflow('ok', 'true') });
    const res = await postTask(t, {
      project_id: project.id,
      title: 'x',
      workflow: 'ok',
      base_branch: 'origin/nope',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({
      code: 'validation_failed',
      details: { field: 'base_branch' },
      message: expect.stringContaining('give its name without the remote (nope)'),
    });
  });

  it('blocks base_branch_missing, saying how to recover, when the remote branch went away', async () => {
    const t = await buildTestApp();
    const { project, repo } = await addProject(t, { ok: commandWorkflow('ok', 'true') });
    const bare = bareRemote(repo);
    colleaguePushes(repo, bare);
    const task = await createTask(t, {
      project_id: project.id,
      title: 'late',
      workflow: 'ok',
      base_branch: 'feature',
      paused: true,
    });
    git(bare, 'branch', '-D', 'feature');
    await act(t, task.id, 'resume');
    const blocked = await waitState(t, task.id, 'blocked');
    expect(blocked.block_reason).toBe('base_branch_missing');
    expect(blocked.block_detail).toContain('feature is gone from origin');
    expect(blocked.block_detail).toContain(`svc task retry ${task.id}`);
  });
});
