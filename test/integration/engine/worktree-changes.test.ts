// Issue 19 point 9 (decision 204): uncommitted work is never invisible. A task whose worktree holds
// changes its branch does not have carries `worktree_changes` in its detail and its list row;
// `commit: true` on a step, or in the workflow's
// defaults, commits what the step left with a message naming the task and the step; a commit
// that fails blocks the task `commit_failed`.
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../../support/app.js';
import { git } from '../../support/git.js';
import { addProject, createTask, getTask, waitState } from '../../support/tasks.js';

const LEAVE = 'printf "a\\nb\\n" >> README.md; printf "x\\ny\\nz\\n" > notes.txt';
const steps = (commit: string) =>
  `steps:\n  - id: edit\n    type: command\n    run: ${JSON.stringify(LEAVE)}\n${commit}  - id: look\n    type: manual\n    instructions: look\n`;

describe('worktree_changes', () => {
  it('is measured when a step ends and when read, shown in detail and list', async () => {
    const t = await buildTestApp();
    const { project } = await addProject(t, { leave: `name: leave\n${steps('')}` });
    const task = await createTask(t, { project_id: project.id, title: 'x', workflow: 'leave' });
    await waitState(t, task.id, 'awaiting_gate');
    const detail = await getTask(t, task.id);
    expect(detail.worktree_changes).toEqual({ files: 2, additions: 5, deletions: 0, untracked: 1 });
    // The list row carries it too, recorded before the gate was announced.
    const rows = await t.json<Array<{ id: number; worktree_changes: unknown }>>('GET', '/v1/tasks');
    expect(rows.find((r) => r.id === task.id)?.worktree_changes).toEqual(detail.worktree_changes);

    // Committed by hand: the next read says the worktree is clean.
    git(String(detail.worktree_path), 'add', '-A');
    git(String(detail.worktree_path), 'commit', '-q', '-m', 'by hand');
    expect((await getTask(t, task.id)).worktree_changes).toBeNull();
  });

  it('commit: true on a step commits what it left, naming the task and the step', async () => {
    const t = await buildTestApp();
    const { project, repo } = await addProject(t, {
      leave: `name: leave\n${steps('    commit: true\n')}`,
    });
    const task = await createTask(t, {
      project_id: project.id,
      title: 'Fix it',
      workflow: 'leave',
    });
    const at = await waitState(t, task.id, 'awaiting_gate');
    expect(at.worktree_changes).toBeNull();
    const message = repo.git('log', '-1', '--format=%B', String(at.branch_name));
    expect(message).toContain(`svc task ${task.id}, step edit: Fix it`);
    expect(repo.git('show', '--stat', '--format=', String(at.branch_name))).toContain('notes.txt');
    // The run's HEAD after is read once the commit is made (while `git status` measures what is
    // left, decision 258): the commit itself, so the run's own diff holds what the step left.
    const runs = await t.json<Array<{ step_id: string; head_before: string; head_after: string }>>(
      'GET',
      `/v1/tasks/${task.id}/steps`,
    );
    const edit = runs.find((r) => r.step_id === 'edit');
    expect(edit?.head_after).toBe(repo.git('rev-parse', String(at.branch_name)));
    expect(edit?.head_before).toBe(repo.git('rev-parse', `${String(at.branch_name)}~1`));
  });

  it('defaults: commit: true applies to every step that takes it; a refused commit blocks commit_failed', async () => {
    const t = await buildTestApp();
    const { project, repo } = await addProject(t, {
      leave: `name: leave\ndefaults:\n  commit: true\n${steps('')}`,
    });
    const ok = await createTask(t, { project_id: project.id, title: 'a', workflow: 'leave' });
    const gate = await waitState(t, ok.id, 'awaiting_gate');
    expect(repo.git('log', '-1', '--format=%s', String(gate.branch_name))).toBe(
      `svc task ${ok.id}, step edit: a`,
    );
    const hook = join(repo.path, '.git', 'hooks', 'pre-commit');
    writeFileSync(hook, '#!/bin/sh\necho "no commits today" >&2\nexit 1\n');
    chmodSync(hook, 0o755);
    const refused = await createTask(t, { project_id: project.id, title: 'b', workflow: 'leave' });
    const blocked = await waitState(t, refused.id, 'blocked');
    expect(blocked.block_reason).toBe('commit_failed');
    expect(blocked.block_detail).toContain('no commits today');
    expect(blocked.worktree_changes).toMatchObject({ files: 2, untracked: 1 });
  });
});
