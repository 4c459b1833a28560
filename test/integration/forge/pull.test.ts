// Issue 8 point 4: forge_pull end to end (SPEC §4.4 rules 8–9): prefill, the head branch above a
// literal branch_name, no git at creation, the head checked out with its upstream at admission,
// a fork (no upstream), the three block reasons, the claim check, not_ours on archive, no
// branch_override, and the reconciler (decision 087).
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../kernel/clock/index.js';
import { buildTestApp } from '../../support/app.js';
import { fakeGithub, forgeEnvironment, forgeProject } from '../../support/fake-github.js';
import { git } from '../../support/git.js';
import { act, commandWorkflow, createTask, getTask, waitState } from '../../support/tasks.js';

const WF = {
  ok: commandWorkflow('ok', 'test -f pr-7.txt || test -f fork.txt'),
  fields: `${commandWorkflow('fields', 'true')}fields:\n  - name: pull\n`,
};

async function world(extra = '', clock?: FakeClock) {
  const fake = await fakeGithub();
  const t = await buildTestApp({ config: forgeEnvironment(fake, 'token') + extra, clock });
  const { repo, project } = await forgeProject(t, fake, 'acme/widgets', WF);
  return { fake, t, repo, project };
}

describe('forge_pull (rules 8–9)', () => {
  it('works on the pull request head, checked out with its upstream, and archives not_ours', async () => {
    const { fake, t, repo, project } = await world();
    fake.pull('acme/widgets', {
      number: 7,
      title: 'Add widget',
      body: 'Adds it.',
      head_ref: 'feature/widget',
    });
    const created = await createTask(t, {
      project_id: project.id,
      workflow: 'fields',
      forge_pull: 7,
      branch_name: 'ignored-literal',
    });
    expect(created).toMatchObject({
      title: '#7 Add widget',
      description: 'Adds it.\n\nPull request #7: https://github.com/acme/widgets/pull/7',
      fields: { pull: '7' },
      branch_name: 'feature/widget',
      base_branch: 'main',
      forge_pull: {
        number: 7,
        repo: 'acme/widgets',
        head_ref: 'feature/widget',
        head_repo: 'acme/widgets',
        source: 'human',
        branch: true,
        fork: false,
      },
    });
    // Creation ran no git: the branch appears only at admission.
    const done = await waitState(t, created.id, 'done');
    expect(git(done.worktree_path as string, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe(
      'feature/widget',
    );
    expect(existsSync(`${done.worktree_path}/pr-7.txt`)).toBe(true);
    expect(repo.git('config', '--get', 'branch.feature/widget.remote')).toBe('origin');
    expect(repo.git('config', '--get', 'branch.feature/widget.merge')).toBe(
      'refs/heads/feature/widget',
    );

    const archived = await act(t, created.id, 'archive');
    expect(archived.json().branch).toEqual({ name: 'feature/widget', result: 'not_ours' });
    expect(repo.git('branch', '--list', 'feature/widget')).toContain('feature/widget');

    const retry = await act(t, created.id, 'retry', { branch_override: 'x' });
    expect(retry.statusCode).toBe(409);
  });

  it('fetches a fork head through refs/pull/N/head and gives it no upstream', async () => {
    const { fake, t, repo, project } = await world();
    fake.pull('acme/widgets', {
      number: 8,
      head_ref: 'contrib-fix',
      head_repo: 'contrib/widgets',
      files: { 'fork.txt': 'from a fork\n' },
    });
    const created = await createTask(t, { project_id: project.id, workflow: 'ok', forge_pull: 8 });
    expect(created.forge_pull).toMatchObject({ fork: true, head_repo: 'contrib/widgets' });
    const done = await waitState(t, created.id, 'done');
    expect(existsSync(`${done.worktree_path}/fork.txt`)).toBe(true);
    expect(() => repo.git('config', '--get', 'branch.contrib-fix.remote')).toThrow();
  });

  it('blocks pull_branch_checked_out, pull_branch_diverged and pull_fetch_failed', async () => {
    const { fake, t, repo, project } = await world();
    fake.pull('acme/widgets', { number: 10, head_ref: 'busy' });
    fake.pull('acme/widgets', { number: 11, head_ref: 'split' });
    fake.pull('acme/widgets', { number: 12, head_ref: 'gone' });

    repo.git('branch', 'busy', 'main');
    const elsewhere = `${repo.path}-wt`;
    repo.git('worktree', 'add', '-q', elsewhere, 'busy');
    const busy = await createTask(t, { project_id: project.id, workflow: 'ok', forge_pull: 10 });
    expect(await waitState(t, busy.id, 'blocked')).toMatchObject({
      block_reason: 'pull_branch_checked_out',
    });

    repo.git('branch', 'split', 'main');
    repo.git('worktree', 'add', '-q', `${repo.path}-split`, 'split');
    git(`${repo.path}-split`, 'commit', '-q', '--allow-empty', '-m', 'local only');
    repo.git('worktree', 'remove', `${repo.path}-split`);
    const split = await createTask(t, { project_id: project.id, workflow: 'ok', forge_pull: 11 });
    expect(await waitState(t, split.id, 'blocked')).toMatchObject({
      block_reason: 'pull_branch_diverged',
    });

    // Creation runs no git: with the remote gone it still succeeds, and admission blocks.
    repo.git('config', '--unset-all', `url.${fake.root}/.insteadOf`);
    repo.git('config', 'url./nonexistent/svc-test/.insteadOf', 'https://github.com/');
    const gone = await createTask(t, { project_id: project.id, workflow: 'ok', forge_pull: 12 });
    expect(await waitState(t, gone.id, 'blocked')).toMatchObject({
      block_reason: 'pull_fetch_failed',
    });
  });

  it('fast-forwards a local head that is behind, and refuses a second live task on one head', async () => {
    const { fake, t, repo, project } = await world();
    fake.pull('acme/widgets', { number: 7, head_ref: 'ff' });
    repo.git('branch', 'ff', 'main');
    const first = await createTask(t, {
      project_id: project.id,
      workflow: 'ok',
      forge_pull: 7,
      paused: true,
    });
    const second = await t.api('POST', '/v1/tasks', {
      project_id: project.id,
      workflow: 'ok',
      forge_pull: 7,
    });
    expect(second.statusCode).toBe(400);
    expect(second.json().error.details.field).toBe('branch_name');
    await act(t, first.id, 'resume');
    const done = await waitState(t, first.id, 'done');
    expect(existsSync(`${done.worktree_path}/pr-7.txt`)).toBe(true);
  });

  it('records a trigger-made task as source trigger', async () => {
    const { fake, t, project } = await world();
    fake.pull('acme/widgets', { number: 7, head_ref: 'f' });
    const res = await t.api(
      'POST',
      '/v1/tasks',
      { project_id: project.id, workflow: 'ok', forge_pull: 7, paused: true },
      { 'content-type': 'application/json', 'x-svc-trigger': 'prs' },
    );
    expect(res.json().forge_pull.source).toBe('trigger');
  });
});

describe('the forge reconciler', () => {
  it('records each pull request task’s live state every forge.poll_interval, announcing changes', async () => {
    const clock = new FakeClock(Date.now());
    const { fake, t, project } = await world('forge:\n  poll_interval: 1m\n', clock);
    fake.pull('acme/widgets', { number: 7, head_ref: 'live' });
    const task = await createTask(t, {
      project_id: project.id,
      workflow: 'ok',
      forge_pull: 7,
      paused: true,
    });
    const reconciler = t.kernel.services.forgeReconciler;
    await clock.advance('1m');
    await reconciler.idle();
    const first = (await getTask(t, task.id)).forge_pull as { live: Record<string, unknown> };
    expect(first.live).toMatchObject({
      state: 'open',
      head_sha: expect.stringMatching(/^[0-9a-f]{40}$/),
    });

    const sha = fake.pushToPull('acme/widgets', 7, { 'more.txt': 'x\n' });
    await clock.advance('1m');
    await reconciler.idle();
    const second = (await getTask(t, task.id)).forge_pull as { live: Record<string, unknown> };
    expect(second.live).toMatchObject({ state: 'open', head_sha: sha });
    const events = t.kernel.services.events.query({
      afterId: 0,
      limit: 100,
      kinds: ['task.forge_updated'],
    });
    expect(events.map((e) => e.payload.head_sha)).toEqual([first.live.head_sha, sha]);

    // Unchanged: no event. Interval 0: no pass at all.
    await clock.advance('1m');
    await reconciler.idle();
    expect(
      t.kernel.services.events.query({ afterId: 0, limit: 100, kinds: ['task.forge_updated'] }),
    ).toHaveLength(2);
    await t.json('PATCH', '/v1/config', { forge: { poll_interval: '0' } });
    const before = fake.requests.length;
    await clock.advance('10m');
    await reconciler.idle();
    expect(fake.requests.length).toBe(before);
    expect((await getTask(t, task.id)).state).toBe('paused');
  });
});
