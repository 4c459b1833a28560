// Issue 17 point 8 / hold 6: a worktree deleted while its task waited for a human — at a gate, for
// an answer, paused — is never silently re-created. The next action (approve, skip, answer,
// resume) blocks the task `worktree_missing` and is refused naming why, as a running task blocks
// (decision 151); `retry` is the consent that re-creates it from the branch (decision 183).
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentConfig, agentWorkflow, stepRuns } from '../../support/agents.js';
import { buildTestApp, type TestApp, waitFor } from '../../support/app.js';
import { act, addProject, createTask, waitState } from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';

const GATED = `name: gated
steps:
  - id: work
    type: command
    run: "echo draft > draft.txt"
  - id: review
    type: manual
    instructions: look at draft.txt
  - id: after
    type: command
    run: "echo after"
`;

async function atGate(t: TestApp) {
  const { project, repo } = await addProject(t, { gated: GATED });
  const task = await createTask(t, { project_id: project.id, title: 'gated', workflow: 'gated' });
  const waiting = await waitState(t, task.id, 'awaiting_gate');
  const path = waiting.worktree_path as string;
  expect(existsSync(join(path, 'draft.txt'))).toBe(true);
  return { task: waiting, path, repo };
}

async function refusedAsLost(t: TestApp, id: number, action: string, body?: unknown) {
  const res = await act(t, id, action, body);
  expect(res.statusCode, res.body).toBe(409);
  expect(res.json().error).toMatchObject({
    code: 'invalid_state',
    details: { state: 'blocked', reason: 'worktree_missing' },
  });
  const blocked = await waitState(t, id, 'blocked');
  expect(blocked.block_reason).toBe('worktree_missing');
  return blocked;
}

describe('a worktree lost while its task waited for a human', () => {
  it('at a gate: approve blocks worktree_missing and nothing is re-created; retry restores it and asks again', async () => {
    const t = await buildTestApp();
    const { task, path } = await atGate(t);
    rmSync(path, { recursive: true, force: true });
    const blocked = await refusedAsLost(t, task.id, 'approve');
    expect(blocked.block_detail).toContain(path);
    expect(blocked.block_detail).toContain(blocked.branch_name);
    expect(blocked.block_detail).toMatch(/uncommitted changes/);
    // The gate's row is closed with the reason; no step after it ran; no worktree came back.
    expect(blocked.steps?.map((s) => [s.step_id, s.state, s.failure_reason])).toEqual([
      ['work', 'succeeded', null],
      ['review', 'interrupted', 'worktree_missing'],
    ]);
    await new Promise((r) => setTimeout(r, 200));
    expect(existsSync(path)).toBe(false);
    // retry is the human's consent: the branch is checked out again and the gate asks again.
    expect((await act(t, task.id, 'retry', {})).statusCode).toBe(200);
    const again = await waitState(t, task.id, 'awaiting_gate');
    expect(existsSync(path)).toBe(true);
    expect(existsSync(join(path, 'draft.txt'))).toBe(false);
    expect((await act(t, task.id, 'approve')).statusCode).toBe(200);
    expect((await waitState(t, again.id, 'done')).state).toBe('done');
  });

  it('at a gate: skip is refused the same way', async () => {
    const t = await buildTestApp();
    const { task, path } = await atGate(t);
    rmSync(path, { recursive: true, force: true });
    await refusedAsLost(t, task.id, 'skip');
    expect(existsSync(path)).toBe(false);
  });

  it('paused: resume blocks worktree_missing instead of re-creating it at admission', async () => {
    const t = await buildTestApp();
    const marks = tempDir();
    const { project } = await addProject(t, {
      slow: `name: slow
steps:
  - id: first
    type: command
    run: "touch ${marks}/started; while [ ! -f ${marks}/go ]; do sleep 0.05; done; echo draft > draft.txt"
  - id: second
    type: command
    run: "echo second"
`,
    });
    const task = await createTask(t, { project_id: project.id, title: 'slow', workflow: 'slow' });
    await waitFor(() => existsSync(join(marks, 'started')));
    expect((await act(t, task.id, 'pause')).statusCode).toBe(200);
    writeFileSync(join(marks, 'go'), '');
    const paused = await waitState(t, task.id, 'paused');
    const path = paused.worktree_path as string;
    expect(existsSync(join(path, 'draft.txt'))).toBe(true);
    rmSync(path, { recursive: true, force: true });
    const blocked = await refusedAsLost(t, task.id, 'resume');
    expect(blocked.steps?.map((s) => [s.step_id, s.state])).toEqual([['first', 'succeeded']]);
    await new Promise((r) => setTimeout(r, 200));
    expect(existsSync(path)).toBe(false);
  });

  it('waiting for an answer: answer blocks worktree_missing and stops the waiting agent', async () => {
    const t = await buildTestApp({
      config: agentConfig({ FAKE_CLAUDE_SCENARIO: 'ask-question' }),
    });
    const marks = tempDir();
    const { project } = await addProject(t, {
      ask: agentWorkflow('ask', { agent: 'claude', max_retries: 0 }),
    });
    const task = await createTask(t, { project_id: project.id, title: marks, workflow: 'ask' });
    const waiting = await waitState(t, task.id, 'awaiting_input');
    const path = waiting.worktree_path as string;
    const [row] = await stepRuns(t, task.id);
    const pid = row?.pid as number;
    rmSync(path, { recursive: true, force: true });
    await refusedAsLost(t, task.id, 'answer', { answers: { 'Which colour?': 'Red' } });
    // The agent that waited is stopped and its attempt says why.
    const closed = await waitFor(async () => {
      const [r] = await stepRuns(t, task.id);
      return r?.state === 'interrupted' ? r : null;
    });
    expect(closed.failure_reason).toBe('worktree_missing');
    expect(existsSync(`/proc/${pid}/cmdline`)).toBe(false);
    expect(existsSync(path)).toBe(false);
  });
});
