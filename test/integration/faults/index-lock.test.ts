// Issue 11 point 3: a git `index.lock` left behind in a task's worktree (decision 152). A step
// killed mid-`git add` leaves one, and every later git write in that worktree fails on it. When the
// daemon killed the previous attempt (timeout, cancel, the transcript latches, or a crash that
// recovery closed as interrupted), the lock is its leftover: the next attempt starts without it.
// A lock the daemon cannot account for is left alone: the step fails on it with git's own words,
// the task blocks, and once a human removes it `retry` carries on.
import { existsSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeClock } from '../../../kernel/clock/index.js';
import { buildTestApp, waitFor } from '../../support/app.js';
import { act, addProject, createTask, waitState } from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';

const COMMIT = 'echo b > b.txt && git add b.txt && git commit -qm b';

describe('a git index.lock left behind in a worktree', () => {
  it('left by a step the daemon killed: the retry starts without it and commits', async () => {
    const t = await buildTestApp();
    const clock = t.clock as FakeClock;
    const marks = tempDir();
    const { project, repo } = await addProject(t, {
      locky: `name: locky
steps:
  - id: work
    type: command
    timeout: 20m
    max_retries: 1
    run: |
      if [ ! -f ${marks}/first ]; then
        touch ${marks}/first "$(git rev-parse --git-path index.lock)"
        touch ${marks}/locked
        sleep 300
      fi
      ${COMMIT}
`,
    });
    const task = await createTask(t, { project_id: project.id, title: 'lock', workflow: 'locky' });
    await waitFor(() => existsSync(join(marks, 'locked')));
    await clock.advance('20m');
    const done = await waitState(t, task.id, ['done', 'blocked']);
    expect(done.steps?.map((s) => [s.state, s.failure_reason])).toEqual([
      ['failed', 'timeout'],
      ['succeeded', null],
    ]);
    expect(done.state).toBe('done');
    expect(repo.git('log', '--format=%s', '-1', done.branch_name)).toBe('b');
  });

  it('that nobody killed: left alone, the step fails on it, retry works once it is removed', async () => {
    const t = await buildTestApp();
    const { project, repo } = await addProject(t, {
      two: `name: two
steps:
  - id: crash
    type: command
    run: touch "$(git rev-parse --git-path index.lock)"
  - id: commit
    type: command
    max_retries: 0
    run: "${COMMIT}"
`,
    });
    const task = await createTask(t, { project_id: project.id, title: 'lock', workflow: 'two' });
    const blocked = await waitState(t, task.id, ['blocked', 'done']);
    expect(blocked.state).toBe('blocked');
    expect(blocked.block_reason).toBe('step_failed');
    expect(blocked.steps?.map((s) => [s.step_id, s.state, s.failure_reason])).toEqual([
      ['crash', 'succeeded', null],
      ['commit', 'failed', 'nonzero_exit'],
    ]);
    const wt = blocked.worktree_path as string;
    const lock = repo.git(
      '-C',
      wt,
      'rev-parse',
      '--path-format=absolute',
      '--git-path',
      'index.lock',
    );
    expect(existsSync(lock)).toBe(true);
    unlinkSync(lock);
    expect((await act(t, task.id, 'retry', {})).statusCode).toBe(200);
    const done = await waitState(t, task.id, 'done');
    expect(repo.git('log', '--format=%s', '-1', done.branch_name)).toBe('b');
  });
});
