// Issue 11: admission asks git one question instead of five (branchFacts), and no longer prunes
// before every add; both must answer exactly what the calls they replace answered.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { branchExists, branchFacts, upstreamOf } from '../../../kernel/git/index.js';
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
