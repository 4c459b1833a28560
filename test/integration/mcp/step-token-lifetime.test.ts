// Issue 17 hold 9: a per-step MCP token (decision 122) opens its endpoint only while its own step
// run is running — never after the run is cancelled, fails, is replaced by a retry, or is ended by
// a daemon restart. A command step that waits for a file stands in for the agent, so the run is
// live exactly as long as the test wants; each knock is a raw `initialize` over HTTP.
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stepToken } from '../../../kernel/mcp/index.js';
import { buildTestApp, type TestApp, waitFor } from '../../support/app.js';
import { INITIALIZE_REQUEST, listen } from '../../support/mcp.js';
import {
  act,
  addProject,
  createTask,
  type StepJson,
  type TaskJson,
  waitState,
} from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';

// Exits with the number the test writes into `release`.
const HOLD = `name: hold
steps:
  - id: hold
    type: command
    max_retries: 0
    run: while [ ! -f release ]; do sleep 0.05; done; exit $(cat release)
`;

/** The status an `initialize` on run `runId`'s endpoint gets with `token`. */
async function knock(base: string, runId: number, token: string): Promise<number> {
  const res = await fetch(`${base}/mcp/steps/${runId}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify(INITIALIZE_REQUEST),
  });
  await res.arrayBuffer();
  return res.status;
}

async function running(t: TestApp, taskId: number, after = 0): Promise<number> {
  const run = await waitFor(async () => {
    const steps = await t.json<StepJson[]>('GET', `/v1/tasks/${taskId}/steps`);
    return steps.find((s) => s.state === 'running' && s.id > after);
  });
  return run.id;
}

async function setup(root?: string) {
  const t = await buildTestApp({ root, keepOpen: true });
  const base = await listen(t);
  return { t, base };
}

/**
 * Written aside and renamed into place: the step's loop must never see the file before its number
 * (an empty `release` made `exit $(cat release)` exit 0, and the failed run a done one).
 */
function release(task: TaskJson, code: number): void {
  const file = join(task.worktree_path as string, 'release');
  writeFileSync(`${file}.tmp`, String(code));
  renameSync(`${file}.tmp`, file);
}

describe('a per-step MCP token', () => {
  it('opens its endpoint while the run runs, and never after cancel', async () => {
    const { t, base } = await setup();
    try {
      const { project } = await addProject(t, { hold: HOLD });
      const task = await createTask(t, { project_id: project.id, title: 'c', workflow: 'hold' });
      const runId = await running(t, task.id);
      const token = stepToken(t.token, runId);
      expect(await knock(base, runId, token)).toBe(200);
      // The daemon's own token does not open a step's path.
      expect(await knock(base, runId, t.token)).toBe(401);
      expect((await act(t, task.id, 'cancel')).statusCode).toBe(200);
      await waitFor(async () => {
        const steps = await t.json<StepJson[]>('GET', `/v1/tasks/${task.id}/steps`);
        return steps[0]?.state === 'interrupted';
      });
      expect(await knock(base, runId, token)).toBe(401);
    } finally {
      await t.close();
    }
  });

  it('closes when the run fails; a retry’s run has its own, and the old one opens neither', async () => {
    const { t, base } = await setup();
    try {
      const { project } = await addProject(t, { hold: HOLD });
      const task = await createTask(t, { project_id: project.id, title: 'f', workflow: 'hold' });
      const first = await running(t, task.id);
      const firstToken = stepToken(t.token, first);
      expect(await knock(base, first, firstToken)).toBe(200);
      const live = await t.json<TaskJson>('GET', `/v1/tasks/${task.id}`);
      release(live, 3);
      await waitState(t, task.id, 'blocked');
      expect(await knock(base, first, firstToken)).toBe(401);

      // retry: a new run with a new token (the release file gone, so it waits again).
      rmSync(join(live.worktree_path as string, 'release'));
      expect((await act(t, task.id, 'retry', {})).statusCode).toBe(200);
      const second = await running(t, task.id, first);
      const secondToken = stepToken(t.token, second);
      expect(second).not.toBe(first);
      expect(await knock(base, second, secondToken)).toBe(200);
      expect(await knock(base, first, firstToken)).toBe(401);
      expect(await knock(base, second, firstToken)).toBe(401);
      release(live, 0);
      await waitState(t, task.id, 'done');
      expect(await knock(base, second, secondToken)).toBe(401);
    } finally {
      await t.close();
    }
  });

  it('closes with a daemon restart: the interrupted run’s token opens nothing on the next daemon', async () => {
    const root = tempDir();
    const { t, base } = await setup(root);
    let runId = 0;
    let token = '';
    let taskId = 0;
    try {
      const { project } = await addProject(t, { hold: HOLD });
      const task = await createTask(t, { project_id: project.id, title: 'r', workflow: 'hold' });
      taskId = task.id;
      runId = await running(t, task.id);
      token = stepToken(t.token, runId);
      expect(await knock(base, runId, token)).toBe(200);
    } finally {
      await t.close();
    }
    const next = await setup(root);
    try {
      // Same data directory, same daemon token: the HMAC is the same, the run is not running.
      expect(next.t.token).toBe(t.token);
      expect(await knock(next.base, runId, token)).toBe(401);
      const again = await running(next.t, taskId, runId);
      expect(await knock(next.base, again, stepToken(next.t.token, again))).toBe(200);
      expect(await knock(next.base, runId, token)).toBe(401);
    } finally {
      await next.t.close();
    }
  });
});
