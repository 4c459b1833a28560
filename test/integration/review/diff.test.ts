// Issue 16 point 1: GET /v1/tasks/{id}/diff on real repositories — the worktree's committed,
// staged, unstaged and untracked work against the merge base, the stat and one-file forms, the
// branch fallback after archive, and the refusals.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../../support/app.js';
import { git } from '../../support/git.js';
import {
  BASE_FILES,
  diffOf,
  gatedTask,
  gateWorkflow,
  headers,
  type StatJson,
} from '../../support/review.js';
import { act, addProject, createTask, getTask, waitState } from '../../support/tasks.js';

describe('the diff of a task at a gate', () => {
  it('shows committed, staged, unstaged and untracked work, not ignored files nor later base commits', async () => {
    const t = await buildTestApp();
    const { repo, task } = await gatedTask(t);
    // The base moves on after the cut: not the task's work.
    repo.commit('base moves on', { 'base-only.txt': 'later\n' });
    const worktree = task.worktree_path as string;
    const statusBefore = git(worktree, 'status', '--porcelain');

    const d = await diffOf(t, task.id);
    expect(d.status).toBe(200);
    expect(d.type).toBe('text/plain; charset=utf-8');
    expect(d.source).toBe('worktree');
    expect(d.truncated).toBe('false');
    expect(headers(d.body)).toEqual([
      'diff --git a/README.md b/README.md',
      'diff --git a/blob.bin b/blob.bin',
      'diff --git a/committed.txt b/committed.txt',
      'diff --git a/crlf.txt b/crlf.txt',
      'diff --git a/deep/dir/inner.txt b/deep/dir/inner.txt',
      'diff --git a/keep.txt b/renamed.txt',
      'diff --git a/staged.txt b/staged.txt',
      'diff --git a/untracked.txt b/untracked.txt',
    ]);
    expect(d.body).toContain('+more\n');
    expect(d.body).toContain('new file mode 100644\nindex 0000000..');
    expect(d.body).toContain('+brand-new\n');
    expect(d.body).toContain('Binary files /dev/null and b/blob.bin differ');
    expect(d.body).toContain('similarity index 100%\nrename from keep.txt\nrename to renamed.txt');
    // CRLF lines come back byte for byte.
    expect(d.raw.includes(Buffer.from('-y\r\n+z\r\n'))).toBe(true);
    expect(d.body).not.toContain('noise.log');
    expect(d.body).not.toContain('base-only');
    // The user's index is only read: what is untracked stays untracked.
    expect(git(worktree, 'status', '--porcelain')).toBe(statusBefore);
    expect(statusBefore).toContain('?? untracked.txt');
  });

  it('answers a stat with each file’s status and counts', async () => {
    const t = await buildTestApp();
    const { repo, task } = await gatedTask(t);
    const s = (await diffOf(t, task.id, '?stat=true')).json() as unknown as StatJson;
    const main = git(repo.path, 'rev-parse', 'main');
    expect(s).toMatchObject({
      source: 'worktree',
      base_branch: 'main',
      merge_base: main,
      head: git(task.worktree_path as string, 'rev-parse', 'HEAD'),
      truncated: false,
    });
    const byPath = Object.fromEntries(s.files.map((f) => [f.path, f]));
    expect(byPath['README.md']).toEqual({
      path: 'README.md',
      status: 'modified',
      additions: 1,
      deletions: 0,
      binary: false,
    });
    expect(byPath['renamed.txt']).toEqual({
      path: 'renamed.txt',
      old_path: 'keep.txt',
      status: 'renamed',
      additions: 0,
      deletions: 0,
      binary: false,
    });
    expect(byPath['blob.bin']).toMatchObject({ status: 'added', binary: true, additions: 0 });
    expect(byPath['untracked.txt']).toMatchObject({ status: 'added', additions: 1 });
    expect(byPath['crlf.txt']).toMatchObject({ status: 'modified', additions: 1, deletions: 1 });
    expect(byPath['noise.log']).toBeUndefined();
    expect(s.files).toHaveLength(8);
    expect(s.additions).toBe(s.files.reduce((n, f) => n + f.additions, 0));
    expect(s.deletions).toBe(1);
  });

  it('answers one file with path=, a renamed file as its rename, a file outside the diff as nothing', async () => {
    const t = await buildTestApp();
    const { task } = await gatedTask(t);
    const one = await diffOf(t, task.id, '?path=untracked.txt');
    expect(headers(one.body)).toEqual(['diff --git a/untracked.txt b/untracked.txt']);
    const renamed = await diffOf(t, task.id, `?path=${encodeURIComponent('renamed.txt')}`);
    expect(headers(renamed.body)).toEqual(['diff --git a/keep.txt b/renamed.txt']);
    expect(renamed.body).toContain('rename from keep.txt');
    const deep = await diffOf(t, task.id, '?path=deep/dir/inner.txt');
    expect(deep.body).toContain('+nested');
    const none = await diffOf(t, task.id, '?path=never-touched.txt');
    expect(none.status).toBe(200);
    expect(none.body).toBe('');
  });

  it('is served from the branch once the task is archived, and refused once the branch is gone too', async () => {
    const t = await buildTestApp();
    const { repo, task } = await gatedTask(t);
    expect((await act(t, task.id, 'approve')).statusCode).toBe(200);
    await waitState(t, task.id, 'done');
    const archived = await act(t, task.id, 'archive', { force: true });
    expect(archived.statusCode).toBe(200);
    expect(existsSync(task.worktree_path as string)).toBe(false);

    const d = await diffOf(t, task.id);
    expect(d.status).toBe(200);
    expect(d.source).toBe('branch');
    // Only what was committed survives the worktree.
    expect(headers(d.body)).toEqual(['diff --git a/committed.txt b/committed.txt']);
    const s = (await diffOf(t, task.id, '?stat=true')).json() as unknown as StatJson;
    expect(s.source).toBe('branch');
    expect(s.head).toBe(git(repo.path, 'rev-parse', task.branch_name));

    git(repo.path, 'branch', '-D', task.branch_name);
    const refused = await diffOf(t, task.id);
    expect(refused.status).toBe(409);
    expect(refused.json()).toMatchObject({
      error: { code: 'invalid_state', details: { reason: 'branch_gone', state: 'archived' } },
    });
  });

  it('refuses an unknown task, a task without a worktree yet, and bad queries', async () => {
    const t = await buildTestApp();
    const { repo, project } = await addProject(t, {
      work: gateWorkflow('work', 'echo hi > a.txt'),
    });
    repo.commit('base files', BASE_FILES);
    expect((await diffOf(t, 999)).status).toBe(404);
    expect((await diffOf(t, 999)).json()).toMatchObject({ error: { code: 'not_found' } });

    const paused = await createTask(t, {
      project_id: project.id,
      title: 'Held',
      workflow: 'work',
      paused: true,
    });
    const held = await diffOf(t, paused.id);
    expect(held.status).toBe(409);
    expect(held.json()).toMatchObject({
      error: { code: 'invalid_state', details: { reason: 'no_worktree', state: 'paused' } },
    });

    // A branch of the same name that the user made after the task was created is not its work.
    const blocked = await createTask(t, {
      project_id: project.id,
      title: 'Taken',
      workflow: 'work',
      branch_name: 'taken',
      paused: true,
    });
    git(repo.path, 'branch', 'taken');
    expect((await act(t, blocked.id, 'resume')).statusCode).toBe(200);
    await waitState(t, blocked.id, 'blocked');
    expect((await getTask(t, blocked.id)).block_reason).toBe('branch_exists');
    expect((await diffOf(t, blocked.id)).json()).toMatchObject({
      error: { code: 'invalid_state', details: { reason: 'no_worktree' } },
    });

    for (const [query, field] of [
      ['?stat=yes', 'stat'],
      ['?run=0', 'run'],
      ['?run=abc', 'run'],
      ['?path=/etc/passwd', 'path'],
      ['?path=../outside', 'path'],
      ['?path=a%00b', 'path'],
      ['?colour=always', 'colour'],
    ] as const) {
      const r = await diffOf(t, paused.id, query);
      expect(r.status, query).toBe(400);
      expect(r.json(), query).toMatchObject({
        error: { code: 'validation_failed', details: { field } },
      });
    }
  });

  it('refuses when the base branch is gone', async () => {
    const t = await buildTestApp();
    const { repo, task } = await gatedTask(t);
    git(repo.path, 'checkout', '-q', '-b', 'elsewhere');
    git(repo.path, 'branch', '-D', 'main');
    const r = await diffOf(t, task.id);
    expect(r.status).toBe(409);
    expect(r.json()).toMatchObject({
      error: { code: 'invalid_state', details: { reason: 'base_branch_missing' } },
    });
  });
});
