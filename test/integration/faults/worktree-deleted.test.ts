// Issue 11 point 3: a worktree deleted under a running task (decision 151). The step that was
// running finishes; the next one is not spawned in a directory that no longer exists: the task
// blocks `worktree_missing` without spending an attempt. Every commit is still on the branch, and
// `retry` checks the branch out again at the same path and carries on from the blocked step.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildTestApp, waitFor } from '../../support/app.js';
import { act, addProject, createTask, waitState } from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';

describe('a worktree deleted under a running task', () => {
  it('blocks worktree_missing before the next step; retry restores it from the branch', async () => {
    const t = await buildTestApp();
    const marks = tempDir();
    const { project, repo } = await addProject(t, {
      two: `name: two
steps:
  - id: first
    type: command
    run: "echo a > a.txt && git add a.txt && git commit -qm a && touch ${marks}/started && while [ ! -f ${marks}/go ]; do sleep 0.05; done"
  - id: second
    type: command
    run: "cat a.txt > ${marks}/second"
`,
    });
    const task = await createTask(t, { project_id: project.id, title: 'wt', workflow: 'two' });
    await waitFor(() => existsSync(join(marks, 'started')));
    const running = await waitState(t, task.id, 'running');
    const path = running.worktree_path as string;
    rmSync(path, { recursive: true, force: true });
    writeFileSync(join(marks, 'go'), '');

    const blocked = await waitState(t, task.id, ['blocked', 'done']);
    expect(blocked.state).toBe('blocked');
    expect(blocked.block_reason).toBe('worktree_missing');
    expect(blocked.steps?.map((s) => [s.step_id, s.state])).toEqual([['first', 'succeeded']]);
    expect(existsSync(join(marks, 'second'))).toBe(false);
    // Nothing committed is lost: the branch still carries the first step's commit.
    expect(repo.git('log', '--format=%s', '-1', blocked.branch_name)).toBe('a');

    expect((await act(t, task.id, 'retry', {})).statusCode).toBe(200);
    const done = await waitState(t, task.id, 'done');
    expect(done.worktree_path).toBe(path);
    expect(readFileSync(join(marks, 'second'), 'utf8')).toBe('a\n');
    expect(repo.git('-C', path, 'symbolic-ref', '--short', 'HEAD')).toBe(done.branch_name);
    expect(done.steps?.map((s) => [s.step_id, s.state])).toEqual([
      ['first', 'succeeded'],
      ['second', 'succeeded'],
    ]);
  });
});
