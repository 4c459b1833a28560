// Issue 16 point 1, decision 171: `run=` diffs one attempt — between the HEADs the step run
// recorded, plus the uncommitted work when it is the task's latest attempt.
import { describe, expect, it } from 'vitest';
import { stepRuns } from '../../support/agents.js';
import { buildTestApp } from '../../support/app.js';
import { git } from '../../support/git.js';
import { BASE_FILES, diffOf, headers, type StatJson } from '../../support/review.js';
import { addProject, createTask, waitState } from '../../support/tasks.js';

const TWO_STEPS = [
  'name: two',
  'steps:',
  '  - id: first',
  '    type: command',
  '    run: echo one > one.txt && git add one.txt && git commit -qm one',
  '  - id: second',
  '    type: command',
  '    run: echo two > two.txt && git add two.txt && git commit -qm two && echo loose > loose.txt',
  '  - id: check',
  '    type: manual',
  '    instructions: look',
  '',
].join('\n');

async function twoStepTask() {
  const t = await buildTestApp();
  const { repo, project } = await addProject(t, { two: TWO_STEPS });
  repo.commit('base files', BASE_FILES);
  const task = await createTask(t, { project_id: project.id, title: 'Two', workflow: 'two' });
  const gated = await waitState(t, task.id, 'awaiting_gate');
  const runs = await stepRuns(t, task.id);
  const byStep = Object.fromEntries(runs.map((r) => [r.step_id, r]));
  return { t, repo, project, task: gated, runs: byStep };
}

describe('a step run’s own diff', () => {
  it('records the HEAD before and after each attempt; a gate records none', async () => {
    const { task, runs } = await twoStepTask();
    const worktree = task.worktree_path as string;
    const [head, one] = [git(worktree, 'rev-parse', 'HEAD'), git(worktree, 'rev-parse', 'HEAD~1')];
    const base = git(worktree, 'rev-parse', 'HEAD~2');
    expect([runs.first?.head_before, runs.first?.head_after]).toEqual([base, one]);
    expect([runs.second?.head_before, runs.second?.head_after]).toEqual([one, head]);
    expect([runs.check?.head_before, runs.check?.head_after]).toEqual([null, null]);
  });

  it('shows only what one attempt changed; the latest attempt also shows uncommitted work', async () => {
    const { t, task, runs } = await twoStepTask();
    const first = await diffOf(t, task.id, `?run=${runs.first?.id}`);
    expect(first.status).toBe(200);
    expect(first.source).toBe('branch');
    expect(headers(first.body)).toEqual(['diff --git a/one.txt b/one.txt']);

    const second = await diffOf(t, task.id, `?run=${runs.second?.id}`);
    expect(second.source).toBe('worktree');
    expect(headers(second.body)).toEqual([
      'diff --git a/loose.txt b/loose.txt',
      'diff --git a/two.txt b/two.txt',
    ]);
    const stat = (await diffOf(t, task.id, `?run=${runs.second?.id}&stat=true`)).json();
    expect(stat as unknown as StatJson).toMatchObject({
      source: 'worktree',
      run: runs.second?.id,
      merge_base: runs.second?.head_before,
      files: [
        { path: 'loose.txt', status: 'added' },
        { path: 'two.txt', status: 'added' },
      ],
    });
    // The whole task's diff holds both steps' work.
    expect(headers((await diffOf(t, task.id)).body)).toHaveLength(3);
  });

  it('refuses a gate’s run, a run of another task, and a row from before HEADs were recorded', async () => {
    const { t, task, runs } = await twoStepTask();
    const gate = await diffOf(t, task.id, `?run=${runs.check?.id}`);
    expect(gate.status).toBe(409);
    expect(gate.json()).toMatchObject({
      error: { code: 'invalid_state', details: { reason: 'no_heads' } },
    });
    const other = await createTask(t, {
      project_id: task.project_id,
      title: 'Other',
      workflow: 'two',
    });
    await waitState(t, other.id, 'awaiting_gate');
    const foreign = await diffOf(t, other.id, `?run=${runs.first?.id}`);
    expect(foreign.status).toBe(404);
    expect(foreign.json()).toMatchObject({ error: { code: 'not_found' } });
    expect((await diffOf(t, task.id, '?run=99999')).status).toBe(404);

    // A row as the migration found it: both columns empty.
    t.kernel.services.store.db
      .prepare('UPDATE step_runs SET head_before = NULL, head_after = NULL WHERE id = ?')
      .run(runs.first?.id);
    const old = await diffOf(t, task.id, `?run=${runs.first?.id}`);
    expect(old.status).toBe(409);
    expect(old.json()).toMatchObject({ error: { details: { reason: 'no_heads' } } });
  });
});
