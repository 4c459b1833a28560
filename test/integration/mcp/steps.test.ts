/**
 * Per-step MCP endpoints (issue 9 point 3; decisions 122, 123): an endpoint names the calling
 * task, opens only its own path and only while its step runs, tasks created through it record
 * their creator and are held to `mcp.max_depth` and `mcp.max_tasks`, and inside a container the
 * URL names the runtime's host alias. A command step that waits for a file stands in for the
 * agent, so the endpoint can be driven by the SDK Client while its run is live.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, test } from 'vitest';
import { stepToken } from '../../../kernel/mcp/index.js';
import { buildTestApp, type TestApp, waitFor } from '../../support/app.js';
import { call, connect, INITIALIZE_REQUEST, listen } from '../../support/mcp.js';
import { addProject, createTask, type StepJson, type TaskJson } from '../../support/tasks.js';

const HOLD = `name: hold
steps:
  - id: hold
    type: command
    run: while [ ! -f release ]; do sleep 0.05; done
`;

interface Held {
  task: TaskJson;
  runId: number;
  /** What the kernel hands the step: null when nothing is wired. */
  wired: { url: string; bearer_token: string } | null;
  /** `wired`, which the test expects to be there. */
  endpoint: { url: string; bearer_token: string };
  release(): Promise<void>;
}

/** Creates (or takes) a task on the hold workflow and waits until its step runs. */
async function held(t: TestApp, task: TaskJson): Promise<Held> {
  const run = await waitFor(async () => {
    const steps = await t.json<StepJson[]>('GET', `/v1/tasks/${task.id}/steps`);
    return steps.find((s) => s.state === 'running');
  }, 15_000);
  const detail = await t.json<TaskJson>('GET', `/v1/tasks/${task.id}`);
  const wired = t.kernel.services.mcp.endpointFor(task.id, run.id);
  return {
    task: detail,
    runId: run.id,
    wired,
    get endpoint() {
      if (!wired) throw new Error(`task ${task.id}'s step is not wired`);
      return wired;
    },
    release: async () => {
      writeFileSync(join(detail.worktree_path as string, 'release'), '');
      await waitFor(
        async () => (await t.json<TaskJson>('GET', `/v1/tasks/${task.id}`)).state === 'done',
        15_000,
      );
    },
  };
}

async function setup(config = '') {
  const t = await buildTestApp({ config });
  const base = await listen(t);
  const { project } = await addProject(t, { hold: HOLD });
  const hold = async () =>
    held(t, await createTask(t, { project_id: project.id, title: 'holder', workflow: 'hold' }));
  return { t, base, project, hold };
}

/** Creates a held task b through `from` (a step's endpoint client), waits for b's step, and connects to b's own endpoint. */
async function holdThrough(t: TestApp, from: Client, projectId: number) {
  const b = await call(from, 'tasks_create', {
    project_id: projectId,
    title: 'b',
    workflow: 'hold',
  });
  expect(b.isError).toBe(false);
  const heldB = await held(t, b.body as unknown as TaskJson);
  const fromB = await connect(heldB.endpoint.url, heldB.endpoint.bearer_token);
  return { heldB, fromB };
}

/** Asks `client` for a paused task in the project; the caller asserts whether it was refused. */
function createPaused(client: Client, projectId: number, title: string) {
  return call(client, 'tasks_create', { project_id: projectId, title, paused: true });
}

describe('the per-step endpoint', () => {
  test('identifies the calling task: a task it creates records its creator', async () => {
    const { t, base, project, hold } = await setup();
    const a = await hold();
    expect(a.endpoint.url).toBe(`${base}/mcp/steps/${a.runId}`);
    expect(a.endpoint.bearer_token).not.toBe(t.token);

    const { client } = await connect(a.endpoint.url, a.endpoint.bearer_token);
    const made = await call(client, 'tasks_create', {
      project_id: project.id,
      title: 'child',
      paused: true,
    });
    expect(made.isError).toBe(false);
    expect(made.body).toMatchObject({ created_via: 'mcp', created_by_task_id: a.task.id });
    const row = t.kernel.services.engine.tasks.get(made.body.id as number);
    expect(row).toMatchObject({
      created_by_task_id: a.task.id,
      mcp_origin_task_id: a.task.id,
      mcp_depth: 1,
    });
    // Read back through the step's own session: every tool is there, not only creation.
    expect(
      (await call(client, 'tasks_show', { task_id: made.body.id as number })).body,
    ).toMatchObject({
      created_by_task_id: a.task.id,
    });
    await a.release();
  });

  test('opens only its own path, only with its own token, only while the step runs', async () => {
    const { t, base, hold } = await setup();
    const a = await hold();
    const b = await hold();
    const post = (url: string, token: string, host?: string) =>
      t.kernel.app.inject({
        method: 'POST',
        url: new URL(url).pathname,
        headers: {
          host: host ?? '127.0.0.1',
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        payload: JSON.stringify(INITIALIZE_REQUEST),
      });
    // The daemon token does not open a step path; a step token opens nothing else.
    expect((await post(a.endpoint.url, t.token)).statusCode).toBe(401);
    expect((await post(`${base}/mcp`, a.endpoint.bearer_token)).statusCode).toBe(401);
    const api = await t.kernel.app.inject({
      method: 'GET',
      url: '/v1/tasks',
      headers: { host: '127.0.0.1', authorization: `Bearer ${a.endpoint.bearer_token}` },
    });
    expect(api.statusCode).toBe(401);
    // One step's token does not open another's path.
    expect((await post(b.endpoint.url, a.endpoint.bearer_token)).statusCode).toBe(401);
    expect((await post(a.endpoint.url, a.endpoint.bearer_token)).statusCode).toBe(200);

    // The container host alias is accepted on step paths only (decision 122).
    expect(
      (await post(a.endpoint.url, a.endpoint.bearer_token, 'host.docker.internal:1234')).statusCode,
    ).toBe(200);
    expect(
      (await post(a.endpoint.url, a.endpoint.bearer_token, 'host.containers.internal')).statusCode,
    ).toBe(200);
    expect((await post(`${base}/mcp`, t.token, 'host.docker.internal')).statusCode).toBe(403);
    const rebound = await t.kernel.app.inject({
      method: 'GET',
      url: '/v1/tasks',
      headers: { host: 'host.docker.internal', authorization: `Bearer ${t.token}` },
    });
    expect(rebound.statusCode).toBe(403);

    // A session of a's endpoint is a's alone.
    const { client, transport } = await connect(a.endpoint.url, a.endpoint.bearer_token);
    const sid = transport.sessionId as string;
    const onB = await t.kernel.app.inject({
      method: 'POST',
      url: new URL(b.endpoint.url).pathname,
      headers: {
        host: '127.0.0.1',
        authorization: `Bearer ${b.endpoint.bearer_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sid,
      },
      payload: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }),
    });
    expect(onB.statusCode).toBe(404);

    // The step ends: its token and its session die with it.
    await a.release();
    const after = await post(a.endpoint.url, a.endpoint.bearer_token);
    expect(after.statusCode).toBe(401);
    expect(JSON.parse(after.body)).toMatchObject({ error: { code: 'unauthorized' } });
    await expect(client.listTools()).rejects.toThrow();
    expect(stepToken(t.token, a.runId)).toBe(a.endpoint.bearer_token);
    await b.release();
  });

  test('mcp.wire_steps: false wires no step', async () => {
    const { hold } = await setup('mcp:\n  wire_steps: false\n');
    const a = await hold();
    expect(a.wired).toBeNull();
    await a.release();
  });

  test('inside a container the endpoint names the runtime’s host alias (SPEC §2.10)', async () => {
    const { t, base, hold } = await setup();
    const a = await hold();
    const port = new URL(base).port;
    // The running step is unaffected; the config in force decides what a new attempt gets.
    await t.json('PATCH', '/v1/config', { container: { image: 'svc-test-image' } });
    expect(t.kernel.services.mcp.endpointFor(a.task.id, a.runId)?.url).toBe(
      `http://host.docker.internal:${port}/mcp/steps/${a.runId}`,
    );
    await t.json('PATCH', '/v1/config', { container: { runtime: 'podman' } });
    expect(t.kernel.services.mcp.endpointFor(a.task.id, a.runId)?.url).toBe(
      `http://host.containers.internal:${port}/mcp/steps/${a.runId}`,
    );
    await t.json('PATCH', '/v1/config', { container: { image: '' } });
    expect(t.kernel.services.mcp.endpointFor(a.task.id, a.runId)?.url).toBe(
      `${base}/mcp/steps/${a.runId}`,
    );
    await a.release();
  });
});

describe('creation bounds (SPEC §2.10 mcp.max_depth, mcp.max_tasks; decision 123)', () => {
  test('a lane’s step creates in its fan-out root’s place in the chain', async () => {
    const { t, project, hold } = await setup();
    const fan = `name: fan
steps:
  - id: split
    type: fan_out
    lanes:
      - id: only
        steps:
          - id: hold
            type: command
            run: while [ ! -f release ]; do sleep 0.05; done
`;
    writeFileSync(join(project.path, '.svc', 'workflows', 'fan.yaml'), fan);
    const { git } = await import('../../support/git.js');
    git(project.path, 'add', '.');
    git(project.path, 'commit', '-q', '-m', 'fan');
    // The root itself was created through MCP, one link below a.
    const a = await hold();
    const fromA = await connect(a.endpoint.url, a.endpoint.bearer_token);
    const root = (
      await call(fromA.client, 'tasks_create', {
        project_id: project.id,
        title: 'root',
        workflow: 'fan',
      })
    ).body as unknown as TaskJson;
    const lane = await waitFor(async () => {
      const all = await t.json<TaskJson[]>('GET', `/v1/tasks?parent_id=${root.id}`);
      return all[0];
    }, 15_000);
    const l = await held(t, lane);
    const { client } = await connect(l.endpoint.url, l.endpoint.bearer_token);
    const made = await call(client, 'tasks_create', {
      project_id: project.id,
      title: 'x',
      paused: true,
    });
    expect(made.body).toMatchObject({ created_by_task_id: lane.id });
    // Two links below a, not one below the lane: lanes are not links of the chain.
    expect(t.kernel.services.engine.tasks.get(made.body.id as number)).toMatchObject({
      mcp_origin_task_id: a.task.id,
      mcp_depth: 2,
    });
    await l.release();
    await a.release();
  });

  test('mcp.max_depth: a task created through MCP cannot create past the depth, 400 naming the bound', async () => {
    const { t, project, hold } = await setup('mcp:\n  max_depth: 1\n');
    const a = await hold();
    const fromA = await connect(a.endpoint.url, a.endpoint.bearer_token);
    const { heldB, fromB } = await holdThrough(t, fromA.client, project.id);
    const c = await call(fromB.client, 'tasks_create', { project_id: project.id, title: 'c' });
    expect(c).toMatchObject({
      isError: true,
      body: { error: { code: 'validation_failed', details: { field: 'mcp.max_depth', limit: 1 } } },
    });
    expect((c.body as { error: { message: string } }).error.message).toContain('mcp.max_depth');
    // A client on /mcp is not a step: its tasks start no chain and meet no MCP bound.
    const human = await connect(`${new URL(a.endpoint.url).origin}/mcp`, t.token);
    expect((await createPaused(human.client, project.id, 'h')).isError).toBe(false);
    await heldB.release();
    await a.release();
  });

  test('mcp.max_tasks: a chain holds at most that many tasks created through MCP, at any depth', async () => {
    const { project, hold, t } = await setup('mcp:\n  max_tasks: 2\n');
    const a = await hold();
    const fromA = await connect(a.endpoint.url, a.endpoint.bearer_token);
    // b's own creation counts against a's chain: b makes the second, a cannot make a third.
    const { heldB, fromB } = await holdThrough(t, fromA.client, project.id);
    expect((await createPaused(fromB.client, project.id, 'c')).isError).toBe(false);
    const d = await createPaused(fromA.client, project.id, 'd');
    expect(d).toMatchObject({
      isError: true,
      body: { error: { code: 'validation_failed', details: { field: 'mcp.max_tasks', limit: 2 } } },
    });
    const count = (await t.json<TaskJson[]>('GET', '/v1/tasks?archived=all')).length;
    expect(count).toBe(3);
    // Another chain has its own budget.
    const other = await hold();
    const fromOther = await connect(other.endpoint.url, other.endpoint.bearer_token);
    expect((await createPaused(fromOther.client, project.id, 'e')).isError).toBe(false);
    await Promise.all([heldB.release(), a.release(), other.release()]);
  });
});
