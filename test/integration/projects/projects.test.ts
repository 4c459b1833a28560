// SPEC §4.2 on real repositories.
import { mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../../support/app.js';
import { bareRemote, gitRepo } from '../../support/git.js';
import { tempDir } from '../../support/tmp.js';

describe('POST /v1/projects', () => {
  it('registers a repository, naming it from its folder and detecting its default branch', async () => {
    const t = await buildTestApp();
    const repo = gitRepo({ branch: 'trunk' });
    const res = await t.api('POST', '/v1/projects', { path: repo.path });
    expect(res.statusCode).toBe(201);
    const p = res.json();
    expect(p).toMatchObject({
      id: 1,
      name: basename(repo.path),
      path: repo.path,
      default_branch: 'trunk',
      default_workflow: null,
      max_parallel_tasks: null,
      branch_template: null,
    });
    expect(p.created_at).toMatch(/Z$/);
    expect(await t.json('GET', '/v1/projects')).toEqual([p]);
    expect(await t.json('GET', `/v1/projects/${p.id}`)).toEqual(p);
    expect(
      t.kernel.services.events.query({ afterId: 0, limit: 10, kinds: ['project.created'] }),
    ).toHaveLength(1);
  });

  it("prefers origin/HEAD's branch, then main, then master", async () => {
    const t = await buildTestApp();
    const repo = gitRepo({ branch: 'master' });
    repo.git('branch', 'develop');
    bareRemote(repo, 'master');
    repo.git('remote', 'set-head', 'origin', 'master');
    expect(
      (await t.json<{ default_branch: string }>('POST', '/v1/projects', { path: repo.path }))
        .default_branch,
    ).toBe('master');
  });

  it.each([
    ['a relative path', () => 'relative/repo', /absolute/],
    ['a missing directory', () => '/nonexistent/repo', /does not exist/],
    ['a plain directory', () => tempDir(), /not a git repository/],
    [
      'a subdirectory of a repository',
      () => {
        const r = gitRepo();
        mkdirSync(join(r.path, 'sub'));
        return join(r.path, 'sub');
      },
      /top level/,
    ],
    [
      'a linked worktree',
      () => {
        const r = gitRepo();
        const wt = join(tempDir(), 'wt');
        r.git('worktree', 'add', '-q', wt, '-b', 'other');
        return wt;
      },
      /linked worktree/,
    ],
  ])('refuses %s with a clear 400', async (_what, path, message) => {
    const t = await buildTestApp();
    const res = await t.api('POST', '/v1/projects', { path: path() });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('validation_failed');
    expect(res.json().error.message).toMatch(message);
    expect(await t.json('GET', '/v1/projects')).toEqual([]);
  });

  it('refuses a path already registered, a taken name, an unknown default branch and a bad template', async () => {
    const t = await buildTestApp();
    const repo = gitRepo();
    await t.json('POST', '/v1/projects', { path: repo.path, name: 'one' });
    const again = await t.api('POST', '/v1/projects', { path: repo.path, name: 'two' });
    expect(again.statusCode).toBe(400);
    expect(again.json().error.message).toMatch(/already registered/);
    const other = gitRepo();
    expect(
      (await t.api('POST', '/v1/projects', { path: other.path, name: 'one' })).json().error.message,
    ).toMatch(/already exists/);
    expect(
      (await t.api('POST', '/v1/projects', { path: other.path, default_branch: 'nope' })).json()
        .error.details,
    ).toEqual({ field: 'default_branch' });
    expect(
      (
        await t.api('POST', '/v1/projects', { path: other.path, branch_template: 'x/{{.Nope' })
      ).json().error.details,
    ).toEqual({ field: 'branch_template' });
    expect(
      (await t.api('POST', '/v1/projects', { path: other.path, max_parallel_tasks: 0 })).statusCode,
    ).toBe(400);
    expect(
      (await t.api('POST', '/v1/projects', { path: other.path, bogus: 1 })).json().error.message,
    ).toContain('bogus');
    expect(
      (await t.api('POST', '/v1/projects', { path: other.path, name: 'n'.repeat(513) })).json()
        .error.message,
    ).toContain('512');
  });
});

describe('PATCH and DELETE /v1/projects/{id}', () => {
  it('re-points the path and edits mutable fields; null clears', async () => {
    const t = await buildTestApp();
    const a = gitRepo();
    const b = gitRepo({ branch: 'main' });
    const p = await t.json<{ id: number }>('POST', '/v1/projects', { path: a.path, name: 'proj' });
    const patched = await t.json<Record<string, unknown>>('PATCH', `/v1/projects/${p.id}`, {
      path: b.path,
      branch_template: 'work/{{.Slug}}',
      max_parallel_tasks: 2,
      default_workflow: 'review',
    });
    expect(patched).toMatchObject({
      path: b.path,
      branch_template: 'work/{{.Slug}}',
      max_parallel_tasks: 2,
      default_workflow: 'review',
    });
    const cleared = await t.json<Record<string, unknown>>('PATCH', `/v1/projects/${p.id}`, {
      max_parallel_tasks: null,
      branch_template: null,
    });
    expect(cleared).toMatchObject({ max_parallel_tasks: null, branch_template: null });
    expect((await t.api('PATCH', `/v1/projects/${p.id}`, { path: '/nope' })).statusCode).toBe(400);
    expect((await t.api('PATCH', '/v1/projects/99', {})).statusCode).toBe(404);
  });

  it('deletes a project without tasks; unknown ids are 404', async () => {
    const t = await buildTestApp();
    const p = await t.json<{ id: number }>('POST', '/v1/projects', { path: gitRepo().path });
    expect((await t.api('DELETE', `/v1/projects/${p.id}`)).statusCode).toBe(204);
    expect((await t.api('GET', `/v1/projects/${p.id}`)).statusCode).toBe(404);
    expect((await t.api('DELETE', `/v1/projects/${p.id}`)).json().error.code).toBe('not_found');
    expect((await t.api('GET', '/v1/projects/abc')).statusCode).toBe(404);
  });
});
