// Decision 223: a step type's `run` and `flow` receive the step typed by the type's own schema, and
// the engine keeps that promise. A snapshot edited under a task (here: in the database, while the
// task waits at a gate) no longer matching its step type's schema does not reach the step: the
// attempt fails `invalid_snapshot`, once (a retry would fail the same way), naming the step and
// the key.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../support/app.js';
import { act, addProject, createTask, waitState } from '../../support/tasks.js';

/** Rewrites one top-level step of a task's frozen snapshot, as a hand edit of the database would. */
function editSnapshotStep(t: TestApp, taskId: number, index: number, patch: object): void {
  const db = t.kernel.services.store.db;
  const row = db.prepare('SELECT workflow_snapshot FROM tasks WHERE id = ?').get(taskId) as {
    workflow_snapshot: string;
  };
  const snapshot = JSON.parse(row.workflow_snapshot) as { steps: Record<string, unknown>[] };
  snapshot.steps[index] = { ...snapshot.steps[index], ...patch };
  db.prepare('UPDATE tasks SET workflow_snapshot = ? WHERE id = ?').run(
    JSON.stringify(snapshot),
    taskId,
  );
}

describe('a snapshot step that no longer matches its type', () => {
  it('a run step fails invalid_snapshot naming the step and the key, without running or retrying', async () => {
    const t = await buildTestApp();
    const { project } = await addProject(t, {
      gated: `name: gated
steps:
  - id: review
    type: manual
    instructions: look
  - id: ship
    type: command
    run: touch shipped
`,
    });
    const task = await createTask(t, { project_id: project.id, title: 'x', workflow: 'gated' });
    const gate = await waitState(t, task.id, 'awaiting_gate');
    editSnapshotStep(t, task.id, 1, { run: 42 });
    expect((await act(t, task.id, 'approve')).statusCode).toBe(200);
    const blocked = await waitState(t, task.id, 'blocked');
    expect(blocked.block_reason).toBe('invalid_snapshot');
    expect(blocked.block_detail).toMatch(/\bship\b.*command.*\brun\b/);
    // One attempt: the same snapshot fails the same way, so the retry budget is not spent on it.
    const ship = blocked.steps?.filter((s) => s.step_id === 'ship') ?? [];
    expect(ship.map((s) => [s.state, s.failure_reason])).toEqual([['failed', 'invalid_snapshot']]);
    expect(existsSync(join(gate.worktree_path as string, 'shipped'))).toBe(false);
    expect(existsSync(join(gate.worktree_path as string, '42'))).toBe(false);
  });

  it('a flow step (loop) blocks invalid_snapshot instead of reading a count that is not a number', async () => {
    const t = await buildTestApp();
    const { project } = await addProject(t, {
      looped: `name: looped
steps:
  - id: review
    type: manual
    instructions: look
  - id: twice
    type: loop
    count: 2
    steps:
      - id: mark
        type: command
        run: echo x >> marks
`,
    });
    const task = await createTask(t, { project_id: project.id, title: 'x', workflow: 'looped' });
    const gate = await waitState(t, task.id, 'awaiting_gate');
    editSnapshotStep(t, task.id, 1, { count: 'two' });
    expect((await act(t, task.id, 'approve')).statusCode).toBe(200);
    const blocked = await waitState(t, task.id, 'blocked');
    expect(blocked.block_reason).toBe('invalid_snapshot');
    expect(blocked.block_detail).toMatch(/\btwice\b.*loop.*\bcount\b/);
    expect(existsSync(join(gate.worktree_path as string, 'marks'))).toBe(false);
  });

  it('the kernel’s own keys on a snapshot step (an include’s marks) still run', async () => {
    const t = await buildTestApp();
    const { project } = await addProject(t, {
      inner: `name: inner
defaults:
  timeout: 5m
steps:
  - id: touch
    type: command
    run: touch included
`,
      outer: `name: outer
steps:
  - type: include
    workflow: inner
`,
    });
    const task = await createTask(t, { project_id: project.id, title: 'x', workflow: 'outer' });
    const done = await waitState(t, task.id, 'done');
    expect(done.steps?.map((s) => [s.step_id, s.state])).toEqual([['touch', 'succeeded']]);
    const db = t.kernel.services.store.db;
    const snap = JSON.parse(
      (
        db.prepare('SELECT workflow_snapshot FROM tasks WHERE id = ?').get(task.id) as {
          workflow_snapshot: string;
        }
      ).workflow_snapshot,
    ) as { steps: Record<string, unknown>[] };
    // The step ran with the marks the kernel wrote on it, which its schema alone would refuse.
    expect(snap.steps[0]).toMatchObject({
      resolved_from: ['inner'],
      include_defaults: { timeout: '5m' },
    });
  });
});
