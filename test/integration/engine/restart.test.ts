// Issue 17 hold 9: what a restart must keep. Recovery's PID-reuse guard (decision 009): a
// leftover pid that now names an unrelated process is never killed, while one that still names
// the process the previous daemon started is. A task at a gate keeps its gate across a restart; a
// task whose agent waited for an answer is asked again by a fresh attempt, and the answer then
// finishes it.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { processStartTicks } from '../../../kernel/proc/index.js';
import { agentConfig, agentWorkflow, stepRuns } from '../../support/agents.js';
import { buildTestApp, waitFor } from '../../support/app.js';
import { insertProject, insertStepRun, insertTask } from '../../support/rows.js';
import { act, addProject, createTask, getTask, waitState } from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';

function alive(pid: number): boolean {
  try {
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
}

/** A process in a group of its own, killed when the test ends if it is still there. */
function bystander(): number {
  const child = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
  child.unref();
  const pid = child.pid as number;
  onTestFinished(() => {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {}
  });
  return pid;
}

const SNAPSHOT = JSON.stringify({
  name: 'test',
  steps: [{ id: 'one', type: 'command', run: 'true' }],
});

describe('recovery after a crash', () => {
  it('never kills a leftover pid that now names an unrelated process; kills one that is still ours', async () => {
    const root = tempDir();
    const before = await buildTestApp({ root, keepOpen: true, kernel: { startEngine: false } });
    const store = before.kernel.services.store;
    const project = insertProject(store);
    // The pid was reused: the process it names now started at another moment than the one the
    // crashed daemon journaled.
    const unrelated = bystander();
    const reused = insertTask(store, project, { state: 'running', workflow_snapshot: SNAPSHOT });
    insertStepRun(store, before.paths.transcriptsDir, reused, {
      state: 'running',
      pid: unrelated,
      proc_started_at: String(Number(processStartTicks(unrelated)) + 12_345),
    });
    // Still ours: same pid, same start time.
    const orphan = bystander();
    const ours = insertTask(store, project, { state: 'running', workflow_snapshot: SNAPSHOT });
    insertStepRun(store, before.paths.transcriptsDir, ours, {
      state: 'running',
      pid: orphan,
      proc_started_at: processStartTicks(orphan),
    });
    await before.close();

    const after = await buildTestApp({ root });
    await waitFor(() => !alive(orphan));
    expect(alive(unrelated)).toBe(true);
    for (const id of [reused, ours]) {
      const steps = await stepRuns(after, id);
      expect(steps[0]).toMatchObject({ state: 'interrupted', failure_reason: 'interrupted' });
    }
    expect(readFileSync(after.paths.logFile, 'utf8')).toMatch(/"killed_orphans":1\b/);
  });
});

describe('a task waiting for a human, across a restart', () => {
  it('at a gate: still at its gate with the gate row open; approve finishes it', async () => {
    const root = tempDir();
    const gate = `name: gated
steps:
  - id: work
    type: command
    run: "echo work"
  - id: review
    type: manual
    instructions: look
  - id: after
    type: command
    run: "echo after"
`;
    const first = await buildTestApp({ root, keepOpen: true });
    const { project } = await addProject(first, { gated: gate });
    const task = await createTask(first, {
      project_id: project.id,
      title: 'gated',
      workflow: 'gated',
    });
    await waitState(first, task.id, 'awaiting_gate');
    await first.close();

    const second = await buildTestApp({ root });
    const waiting = await getTask(second, task.id);
    expect(waiting.state).toBe('awaiting_gate');
    expect(waiting.available_actions).toEqual(expect.arrayContaining(['approve', 'reject']));
    expect((await stepRuns(second, task.id)).map((s) => [s.step_id, s.state])).toEqual([
      ['work', 'succeeded'],
      ['review', 'running'],
    ]);
    expect((await act(second, task.id, 'approve')).statusCode).toBe(200);
    const done = await waitState(second, task.id, 'done');
    expect(done.steps?.map((s) => [s.step_id, s.state])).toEqual([
      ['work', 'succeeded'],
      ['review', 'approved'],
      ['after', 'succeeded'],
    ]);
  });

  it('awaiting input: the question is asked again by a fresh attempt, and the answer finishes it', async () => {
    const root = tempDir();
    const config = agentConfig({ FAKE_CLAUDE_SCENARIO: 'ask-question' });
    const first = await buildTestApp({ root, config, keepOpen: true });
    const { project } = await addProject(first, {
      ask: agentWorkflow('ask', { agent: 'claude', max_retries: 0 }),
    });
    const task = await createTask(first, {
      project_id: project.id,
      title: 'pick',
      workflow: 'ask',
    });
    await waitState(first, task.id, 'awaiting_input');
    const [asked] = await stepRuns(first, task.id);
    await first.close();
    // The daemon stopped: the waiting agent is gone with it.
    expect(alive(asked?.pid as number)).toBe(false);

    const second = await buildTestApp({ root, config });
    const again = await waitState(second, task.id, 'awaiting_input');
    expect(again.pending_input).toMatchObject({ kind: 'question' });
    const res = await act(second, task.id, 'answer', { answers: { 'Which colour?': 'Blue' } });
    expect(res.statusCode, res.body).toBe(200);
    const done = await waitState(second, task.id, 'done');
    expect(done.steps?.map((s) => [s.attempt, s.state, s.failure_reason])).toEqual([
      [1, 'interrupted', 'interrupted'],
      [2, 'succeeded', null],
    ]);
  });
});
