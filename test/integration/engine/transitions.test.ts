// SPEC §3.2, walked: from each reachable state, every human action either moves the task where
// the table says or is refused 409 invalid_state naming the state found (rule 1).
import { describe, expect, it } from 'vitest';
import { HUMAN_ACTIONS } from '../../../kernel/engine/transitions.js';
import { buildTestApp, type TestApp, waitFor } from '../../support/app.js';
import {
  act,
  addProject,
  createTask,
  getTask,
  type TaskJson,
  waitState,
} from '../../support/tasks.js';

const WORKFLOWS = {
  sleep: 'name: sleep\nsteps:\n  - id: s\n    type: command\n    run: sleep 300\n',
  gate: 'name: gate\nsteps:\n  - id: g\n    type: manual\n    instructions: look\n  - id: after\n    type: command\n    run: "true"\n',
  fail: 'name: fail\nsteps:\n  - id: f\n    type: command\n    max_retries: 0\n    run: exit 1\n  - id: after\n    type: command\n    run: "true"\n',
  ok: 'name: ok\nsteps:\n  - id: o\n    type: command\n    run: "true"\n',
};

const BODIES: Record<string, unknown> = {
  answer: { answers: {} },
  repair: { prompt: 'fix it' },
  follow_up: { run: 'true' },
  retry: {},
  archive: {},
};

type Arrange = (t: TestApp, projectId: number, heldProject: number) => Promise<TaskJson>;

const ARRANGE: Record<string, Arrange> = {
  queued: async (t, _p, held) => {
    const task = await createTask(t, { project_id: held, title: 'q', workflow: 'ok' });
    return waitState(t, task.id, 'queued');
  },
  running: async (t, p) =>
    waitState(
      t,
      (await createTask(t, { project_id: p, title: 'r', workflow: 'sleep' })).id,
      'running',
    ),
  awaiting_gate: async (t, p) =>
    waitState(
      t,
      (await createTask(t, { project_id: p, title: 'g', workflow: 'gate' })).id,
      'awaiting_gate',
    ),
  blocked: async (t, p) =>
    waitState(
      t,
      (await createTask(t, { project_id: p, title: 'b', workflow: 'fail' })).id,
      'blocked',
    ),
  paused: async (t, p) =>
    waitState(
      t,
      (await createTask(t, { project_id: p, title: 'p', workflow: 'ok', paused: true })).id,
      'paused',
    ),
  done: async (t, p) =>
    waitState(t, (await createTask(t, { project_id: p, title: 'd', workflow: 'ok' })).id, 'done'),
  // Cancelled while running, so it has a worktree a follow-up can use.
  aborted: async (t, p) => {
    const task = await createTask(t, { project_id: p, title: 'a', workflow: 'sleep' });
    await waitFor(async () => (await getTask(t, task.id)).steps?.length === 1);
    await act(t, task.id, 'cancel');
    return waitState(t, task.id, 'aborted');
  },
  archived: async (t, p) => {
    const task = await waitState(
      t,
      (await createTask(t, { project_id: p, title: 'x', workflow: 'ok' })).id,
      'done',
    );
    await act(t, task.id, 'archive', {});
    return waitState(t, task.id, 'archived');
  },
};

// Where an allowed action leaves the task, as the response shows it (SPEC §3.2 "To").
const EXPECT: Record<string, Record<string, string | ((t: TaskJson) => void)>> = {
  queued: { cancel: 'aborted', pause: 'paused' },
  running: {
    cancel: 'aborted',
    pause: (r) => expect(r).toMatchObject({ state: 'running', pause_requested: true }),
  },
  awaiting_gate: { approve: 'queued', reject: 'blocked', skip: 'queued', cancel: 'aborted' },
  blocked: { retry: 'queued', skip: 'queued', cancel: 'aborted', repair: 'queued' },
  paused: { resume: 'queued', cancel: 'aborted' },
  done: { archive: 'archived', follow_up: 'queued' },
  aborted: { archive: 'archived', follow_up: 'queued' },
  archived: {},
};

async function setup() {
  const t = await buildTestApp({ config: 'max_parallel_tasks: 6\n' });
  const { project } = await addProject(t, WORKFLOWS);
  // A project whose single slot a sleeper holds, so its other tasks wait in queued.
  const { project: held } = await addProject(t, WORKFLOWS, { max_parallel_tasks: 1 });
  const sleeper = await createTask(t, { project_id: held.id, title: 'holder', workflow: 'sleep' });
  await waitState(t, sleeper.id, 'running');
  return { t, p: project.id, held: held.id };
}

describe.each(Object.keys(ARRANGE))('from %s', (state) => {
  it('refuses every action the table does not allow, naming the state', async () => {
    const { t, p, held } = await setup();
    const task = await ARRANGE[state]?.(t, p, held);
    if (!task) throw new Error('arrange failed');
    expect(task.state).toBe(state);
    const allowed = Object.keys(EXPECT[state] ?? {});
    expect([...task.available_actions].sort()).toEqual([...allowed].sort());
    for (const action of HUMAN_ACTIONS.filter((a) => !allowed.includes(a))) {
      const res = await act(t, task.id, action, BODIES[action]);
      expect(res.statusCode, `${action} from ${state}: ${res.body}`).toBe(
        action === 'answer' && state !== 'awaiting_input' ? 409 : 409,
      );
      expect(res.json().error).toMatchObject({ code: 'invalid_state', details: { state } });
    }
    expect((await getTask(t, task.id)).state).toBe(state);
  });

  for (const [action, want] of Object.entries(EXPECT[state] ?? {})) {
    it(`${action} → ${typeof want === 'string' ? want : 'as specified'}`, async () => {
      const { t, p, held } = await setup();
      const task = await ARRANGE[state]?.(t, p, held);
      if (!task) throw new Error('arrange failed');
      const res = await act(t, task.id, action, BODIES[action]);
      expect(res.statusCode, res.body).toBe(200);
      if (typeof want === 'string') expect(res.json().state).toBe(want);
      else want(res.json());
    });
  }
});
