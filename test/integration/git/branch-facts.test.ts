// Issue 11: admission asks git one question instead of five (branchFacts), and no longer prunes
// before every add; both must answer exactly what the calls they replace answered.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  branchExists,
  branchFacts,
  gitRaw,
  looseBranchExists,
  upstreamOf,
} from '../../../kernel/git/index.js';
import { buildTestApp } from '../../support/app.js';
import { bareRemote, gitRepo } from '../../support/git.js';
import { act, addProject, commandWorkflow, createTask, waitState } from '../../support/tasks.js';

describe('branchFacts', () => {
  it('answers existence and upstream as branchExists and upstreamOf do, name by name', async () => {
    const repo = gitRepo();
    bareRemote(repo);
    repo.git('branch', 'feat/x');
    repo.git('branch', 'local-tracking');
    repo.git('config', 'branch.local-tracking.remote', '.');
    repo.git('config', 'branch.local-tracking.merge', 'refs/heads/main');
    const names = ['main', 'feat', 'feat/x', 'nope', 'local-tracking', 'fea'];
    const facts = await branchFacts(repo.path, names);
    for (const n of names) {
      expect(facts.get(n)?.exists, n).toBe(await branchExists(repo.path, n));
      expect(facts.get(n)?.upstream ?? null, n).toEqual(
        facts.get(n)?.exists ? await upstreamOf(repo.path, n) : null,
      );
    }
    expect(facts.get('main')?.upstream).toEqual({ remote: 'origin', ref: 'refs/heads/main' });
    expect(facts.get('feat')?.exists).toBe(false);
  });
});

describe('branchExists without git (decision 156)', () => {
  const showRef = async (repo: string, name: string) =>
    (await gitRaw(repo, ['show-ref', '--verify', '--quiet', `refs/heads/${name}`])).code === 0;

  it('answers yes from a loose ref only when git would, and asks git otherwise', async () => {
    const repo = gitRepo();
    repo.git('branch', 'feat/x');
    repo.git('branch', 'packed');
    repo.git('pack-refs', '--all', '--prune');
    repo.git('branch', 'loose');
    repo.git('symbolic-ref', 'refs/heads/alias', 'refs/heads/loose');
    const head = repo.git('rev-parse', 'HEAD').trim();
    writeFileSync(join(repo.path, '.git/refs/heads/bogus'), `${'1'.repeat(40)}\n`);
    mkdirSync(join(repo.path, '.git/refs/heads/odd'), { recursive: true });
    writeFileSync(join(repo.path, '.git/refs/heads/odd/x.lock'), `${head}\n`);
    const names = ['loose', 'main', 'packed', 'feat/x', 'feat', 'alias', 'bogus', 'nope'];
    for (const n of [...names, 'odd/x.lock', '../../ORIG_HEAD', 'loose/', '/loose', 'a//b']) {
      expect(await branchExists(repo.path, n), n).toBe(await showRef(repo.path, n));
    }
    expect(looseBranchExists(repo.path, 'loose')).toBe(true);
    expect(looseBranchExists(repo.path, 'packed')).toBe(false);
    expect(looseBranchExists(repo.path, 'alias')).toBe(false);
    expect(looseBranchExists(repo.path, 'bogus')).toBe(false);
    expect(looseBranchExists(repo.path, 'odd/x.lock')).toBe(false);
    rmSync(join(repo.path, '.git/refs/heads/bogus'));
    rmSync(join(repo.path, '.git/refs/heads/odd'), { recursive: true });
    repo.git('gc', '--quiet');
    expect(looseBranchExists(repo.path, 'loose')).toBe(false);
    for (const n of names)
      expect(await branchExists(repo.path, n), n).toBe(await showRef(repo.path, n));
  });
});

describe('admission without a prune', () => {
  it('a worktree path still registered to a worktree deleted by hand does not block the task', async () => {
    const t = await buildTestApp();
    const { project, repo } = await addProject(t, { ok: commandWorkflow('ok', 'true') });
    const task = await createTask(t, {
      project_id: project.id,
      title: 'stale',
      workflow: 'ok',
      paused: true,
    });
    // The path the task will use is registered to another branch's worktree, then deleted.
    const path = join(t.paths.worktreesDir, String(task.id));
    repo.git('worktree', 'add', '-q', '-b', 'someone-else', path, 'main');
    rmSync(path, { recursive: true, force: true });
    await act(t, task.id, 'resume');
    const done = await waitState(t, task.id, 'done');
    expect(done.worktree_path).toBe(path);
    expect(repo.git('-C', path, 'symbolic-ref', '--short', 'HEAD')).toBe(done.branch_name);
  });
});
