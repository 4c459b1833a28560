/**
 * `/mcp` driven by the SDK's own Client over Streamable HTTP (issue 9 points 1, 2 and 4): the tool
 * list and its schemas, a task created and read back, refusals that carry the API's envelope
 * byte for byte, masked config, sessions, and the front door (decisions 120, 121, 124).
 */

import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import type { FakeClock } from '../../../kernel/clock/index.js';
import {
  CreateTaskSchema,
  RetrySchema,
  TaskListQuerySchema,
} from '../../../kernel/engine/index.js';
import { MASKED } from '../../../kernel/mcp/index.js';
import { buildTestApp, type TestApp, waitFor } from '../../support/app.js';
import { gitRepo } from '../../support/git.js';
import { call, connect, INITIALIZE_REQUEST, listen } from '../../support/mcp.js';
import { addProject, createTask } from '../../support/tasks.js';

const TOOLS = [
  'agents_list',
  'config_file',
  'config_show',
  'doctor_report',
  'projects_create',
  'projects_delete',
  'projects_list',
  'projects_show',
  'projects_update',
  'tasks_answer',
  'tasks_approve',
  'tasks_archive',
  'tasks_cancel',
  'tasks_create',
  'tasks_diff',
  'tasks_follow_up',
  'tasks_list',
  'tasks_merge_finished',
  'tasks_pause',
  'tasks_reject',
  'tasks_repair',
  'tasks_resume',
  'tasks_retry',
  'tasks_review',
  'tasks_show',
  'tasks_skip',
  'tasks_steps',
  'tasks_transcript',
  'tasks_update',
  'triggers_deliveries',
  'triggers_list',
  'triggers_show',
  'triggers_test',
  'workflows_definition',
  'workflows_list',
  'workflows_resolve',
  'workflows_schema',
  'workflows_validate',
];

function derived(schema: z.ZodType): Record<string, unknown> {
  const s = z.toJSONSchema(schema, { io: 'input', target: 'draft-7', unrepresentable: 'any' });
  delete (s as Record<string, unknown>).$schema;
  return s as Record<string, unknown>;
}

async function session(opts: { config?: string } = {}) {
  const t = await buildTestApp(opts);
  const url = await listen(t);
  const { client, transport } = await connect(`${url}/mcp`, t.token);
  return { t, url, client, transport };
}

/** What the route answers for the same request: status and parsed body. */
async function viaApi(t: TestApp, method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown) {
  const res = await t.api(
    method,
    path,
    body,
    body === undefined ? {} : { 'content-type': 'application/json' },
  );
  return { status: res.statusCode, body: res.body ? (JSON.parse(res.body) as unknown) : null };
}

describe('tools (issue 9 point 2)', () => {
  test('lists every tool, with input schemas derived from the routes’ own zod schemas', async () => {
    const { client } = await session();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);

    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('tasks_create')?.inputSchema).toEqual(derived(CreateTaskSchema));
    // A path id joins the body's schema as a required integer.
    const retry = derived(RetrySchema);
    expect(byName.get('tasks_retry')?.inputSchema).toEqual({
      ...retry,
      properties: {
        task_id: { type: 'integer', minimum: 1, description: 'The task id.' },
        ...(retry.properties as object),
      },
      required: ['task_id'],
    });
    expect(byName.get('tasks_list')?.inputSchema).toEqual(derived(TaskListQuerySchema));
    expect(byName.get('tasks_show')?.annotations?.readOnlyHint).toBe(true);
    expect(byName.get('tasks_cancel')?.annotations?.readOnlyHint).toBe(false);
  });

  test('not tools by design: the chat family, PATCH /v1/config, the quota push, hand-off', async () => {
    const { client } = await session();
    const names = (await client.listTools()).tools.map((t) => t.name);
    for (const n of names)
      expect(n).not.toMatch(/chat|handoff|hand_off|quota|config_(patch|update|set)/);
  });
});

describe('a task created through MCP and read back (issue 9 point 4)', () => {
  test('creates a project and a task, reads both back exactly as the API answers them', async () => {
    const { t, client } = await session();
    const repo = gitRepo();
    const project = await call(client, 'projects_create', { path: repo.path });
    expect(project.isError).toBe(false);
    const projectId = project.body.id as number;
    expect(await call(client, 'projects_show', { project_id: projectId })).toMatchObject({
      isError: false,
      body: (await viaApi(t, 'GET', `/v1/projects/${projectId}`)).body,
    });

    const created = await call(client, 'tasks_create', {
      project_id: projectId,
      title: 'Made over MCP',
      paused: true,
    });
    expect(created.isError).toBe(false);
    expect(created.body).toMatchObject({
      title: 'Made over MCP',
      state: 'paused',
      created_via: 'mcp',
      warnings: [],
    });
    expect(created.structured).toEqual(created.body);
    const id = created.body.id as number;

    const shown = await call(client, 'tasks_show', { task_id: id });
    expect(shown.body).toEqual((await viaApi(t, 'GET', `/v1/tasks/${id}`)).body);
    expect(shown.body).not.toHaveProperty('created_by_task_id');

    const listed = await call<{ tasks: Array<{ id: number }>; next_cursor: number | null }>(
      client,
      'tasks_list',
      { project_id: projectId },
    );
    expect(listed.body.tasks).toEqual(
      (await viaApi(t, 'GET', `/v1/tasks?project_id=${projectId}`)).body,
    );
    // A query-shaped tool reads its arguments as the query's text: a number and a string agree.
    expect((await call(client, 'tasks_list', { project_id: String(projectId) })).body).toEqual(
      listed.body,
    );

    expect((await call(client, 'tasks_steps', { task_id: id })).body).toEqual({
      steps: (await viaApi(t, 'GET', `/v1/tasks/${id}/steps`)).body,
    });

    const resumed = await call(client, 'tasks_update', { task_id: id, priority: 5 });
    expect(resumed.body).toMatchObject({ id, priority: 5 });
  });

  test('runs a task to done and tails its transcript', async () => {
    const { t, client } = await session();
    const { project } = await addProject(t, {
      echo: 'name: echo\nsteps:\n  - id: say\n    type: command\n    run: for i in 1 2 3; do echo line-$i; done\n',
    });
    const created = await call(client, 'tasks_create', {
      project_id: project.id,
      title: 't',
      workflow: 'echo',
    });
    expect(created.isError).toBe(false);
    const id = created.body.id as number;
    await waitFor(
      async () => (await call(client, 'tasks_show', { task_id: id })).body.state === 'done',
      20_000,
    );
    const steps = (
      await call<{ steps: Array<{ id: number }> }>(client, 'tasks_steps', { task_id: id })
    ).body.steps;
    const runId = steps[0]?.id as number;
    const tail = await call<{ text: string; next_offset: number; size: number }>(
      client,
      'tasks_transcript',
      {
        task_id: id,
        run_id: runId,
      },
    );
    expect(tail.isError).toBe(false);
    expect(tail.body.text).toContain('line-3');
    expect(tail.body.next_offset).toBe(tail.body.size);
    const api = await t.api('GET', `/v1/tasks/${id}/steps/${runId}/transcript?tail=100000`);
    expect(tail.body.text).toBe(api.body);
    const refused = await call(client, 'tasks_transcript', {
      task_id: id,
      run_id: runId,
      offset: 0,
      tail: 10,
    });
    expect(refused).toMatchObject({
      isError: true,
      body: { error: { code: 'validation_failed' } },
    });
    const archived = await call(client, 'tasks_archive', { task_id: id });
    expect(archived.body).toMatchObject({ id, state: 'archived' });
  });
});

describe('refusals carry the API envelope (issue 9 points 2 and 4)', () => {
  test('a refused call answers isError with exactly the route’s error body', async () => {
    const { t, client } = await session();
    const repo = gitRepo();
    const project = await t.json<{ id: number }>('POST', '/v1/projects', { path: repo.path });
    const cases: Array<{
      tool: string;
      args: Record<string, unknown>;
      method: 'GET' | 'POST';
      path: string;
      body?: unknown;
    }> = [
      {
        tool: 'tasks_create',
        args: { project_id: 999, title: 'x' },
        method: 'POST',
        path: '/v1/tasks',
        body: { project_id: 999, title: 'x' },
      },
      {
        tool: 'tasks_create',
        args: { project_id: project.id, title: 'x', bogus: true },
        method: 'POST',
        path: '/v1/tasks',
        body: { project_id: project.id, title: 'x', bogus: true },
      },
      { tool: 'tasks_show', args: { task_id: 4242 }, method: 'GET', path: '/v1/tasks/4242' },
      {
        tool: 'tasks_list',
        args: { archived: 'maybe' },
        method: 'GET',
        path: '/v1/tasks?archived=maybe',
      },
      {
        tool: 'tasks_follow_up',
        args: { task_id: 4242, prompt: 'a', run: 'b' },
        method: 'POST',
        path: '/v1/tasks/4242/follow_up',
        body: { prompt: 'a', run: 'b' },
      },
    ];
    for (const c of cases) {
      const answer = await call(client, c.tool, c.args);
      const api = await viaApi(t, c.method, c.path, c.body);
      expect(api.status).toBeGreaterThanOrEqual(400);
      expect({ tool: c.tool, isError: answer.isError, body: answer.body }).toEqual({
        tool: c.tool,
        isError: true,
        body: api.body,
      });
      expect(answer.structured).toEqual(api.body);
    }

    // An action the task's state does not allow: 409 invalid_state, as the route says.
    const paused = await createTask(t, { project_id: project.id, title: 'p', paused: true });
    const approve = await call(client, 'tasks_approve', { task_id: paused.id });
    expect(approve.body).toEqual((await viaApi(t, 'POST', `/v1/tasks/${paused.id}/approve`)).body);
    expect(approve.body).toMatchObject({
      error: { code: 'invalid_state', details: { state: 'paused' } },
    });
  });

  test('a missing id and an unknown tool are refused in the same envelope', async () => {
    const { client } = await session();
    expect(await call(client, 'tasks_show', {})).toMatchObject({
      isError: true,
      body: { error: { code: 'validation_failed', details: { field: 'task_id' } } },
    });
    expect(await call(client, 'chats_list', {})).toMatchObject({
      isError: true,
      body: { error: { code: 'not_found' } },
    });
  });
});

describe('read-only views', () => {
  test('config_show is GET /v1/config with the notify argv masked (SPEC §2.10)', async () => {
    const { t, client } = await session({
      config: 'notify:\n  on: [done]\n  command: [/usr/bin/notify-send, --secret, hunter2]\n',
    });
    const api = (await viaApi(t, 'GET', '/v1/config')).body as { notify: { command: string[] } };
    expect(api.notify.command).toEqual(['/usr/bin/notify-send', '--secret', 'hunter2']);
    const shown = await call(client, 'config_show');
    expect(shown.body).toEqual({ ...api, notify: { ...api.notify, command: [MASKED] } });
    expect(JSON.stringify(shown)).not.toContain('hunter2');
  });

  test('config_file answers what GET /v1/config/file answers: the file and no refused edit', async () => {
    const { t, client } = await session();
    const api = (await viaApi(t, 'GET', '/v1/config/file')).body as {
      file: string;
      rejected: unknown;
    };
    expect(api.file).toMatch(/config\.yaml$/);
    expect(api.rejected).toBeNull();
    expect((await call(client, 'config_file')).body).toEqual(api);
  });

  test('workflow and doctor tools answer what their routes answer', async () => {
    const { t, client } = await session();
    expect((await call(client, 'workflows_list')).body).toEqual(
      (await viaApi(t, 'GET', '/v1/workflows')).body,
    );
    expect((await call(client, 'workflows_definition', { name: 'adhoc' })).body).toEqual(
      (await viaApi(t, 'GET', '/v1/workflows/definition?name=adhoc')).body,
    );
    expect((await call(client, 'workflows_schema')).body).toEqual(
      (await viaApi(t, 'GET', '/v1/workflows/schema')).body,
    );
    const yaml = 'name: other\nsteps:\n  - type: command\n    run: "true"\n';
    expect((await call(client, 'workflows_validate', { yaml, name: 'mine' })).body).toEqual(
      (await viaApi(t, 'POST', '/v1/workflows/validate', { yaml, name: 'mine' })).body,
    );
    const report = await call(client, 'doctor_report', { probe: false });
    expect(report.isError).toBe(false);
    expect(Object.keys(report.body).sort()).toEqual(
      Object.keys((await viaApi(t, 'GET', '/v1/doctor?probe=false')).body as object).sort(),
    );
  });
});

describe('the front door and sessions (issue 9 points 1 and 4)', () => {
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };

  test('an unauthenticated or wrongly authenticated MCP request is refused with the API envelope', async () => {
    const { t, url } = await session();
    const none = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify(INITIALIZE_REQUEST),
    });
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ error: { code: 'unauthorized' } });
    const wrong = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { ...headers, authorization: 'Bearer not-the-token' },
      body: JSON.stringify(INITIALIZE_REQUEST),
    });
    expect(wrong.status).toBe(401);
    await expect(connect(`${url}/mcp`, 'not-the-token')).rejects.toThrow();
    // The Host guard holds here as on every route (decision 004).
    const rebound = await t.kernel.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...headers, host: 'evil.example:80', authorization: `Bearer ${t.token}` },
      payload: JSON.stringify(INITIALIZE_REQUEST),
    });
    expect(rebound.statusCode).toBe(403);
  });

  test('sessions: an id is required after initialize, and a deleted session is gone', async () => {
    const { t, url, client, transport } = await session();
    const auth = { ...headers, authorization: `Bearer ${t.token}` };
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };
    const noSession = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify(list),
    });
    expect(noSession.status).toBe(400);
    const unknown = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { ...auth, 'mcp-session-id': 'no-such-session' },
      body: JSON.stringify(list),
    });
    expect(unknown.status).toBe(404);

    expect(transport.sessionId).toBeTruthy();
    expect(t.kernel.services.mcp.sessionCount).toBe(1);
    const sid = transport.sessionId as string;
    await transport.terminateSession();
    expect(t.kernel.services.mcp.sessionCount).toBe(0);
    const after = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { ...auth, 'mcp-session-id': sid },
      body: JSON.stringify(list),
    });
    expect(after.status).toBe(404);
    await client.close();
  });

  test('JSON-RPC answers arrive as SSE, and GET opens the session’s own SSE stream', async () => {
    const { t, url } = await session();
    const auth = { ...headers, authorization: `Bearer ${t.token}` };
    const init = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify(INITIALIZE_REQUEST),
    });
    expect(init.status).toBe(200);
    expect(init.headers.get('content-type')).toContain('text/event-stream');
    const sid = init.headers.get('mcp-session-id') as string;
    expect(sid).toMatch(/^[0-9a-f-]{36}$/);
    const text = await init.text();
    expect(text).toMatch(/^event: message\ndata: /m);
    const data = JSON.parse(text.split('\ndata: ')[1]?.split('\n')[0] as string) as {
      id: number;
      result: { serverInfo: { name: string }; capabilities: { tools?: unknown } };
    };
    expect(data).toMatchObject({ id: 1, result: { serverInfo: { name: 'svc' } } });
    expect(data.result.capabilities.tools).toBeDefined();

    const abort = new AbortController();
    const stream = await fetch(`${url}/mcp`, {
      method: 'GET',
      headers: {
        authorization: `Bearer ${t.token}`,
        accept: 'text/event-stream',
        'mcp-session-id': sid,
        'mcp-protocol-version': '2025-06-18',
      },
      signal: abort.signal,
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    abort.abort();
    const ended = await fetch(`${url}/mcp`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${t.token}`, 'mcp-session-id': sid },
    });
    expect(ended.status).toBe(200);
    // Without the token the stream is refused like every route.
    const bare = await fetch(`${url}/mcp`, {
      method: 'GET',
      headers: { accept: 'text/event-stream', 'mcp-session-id': sid },
    });
    expect(bare.status).toBe(401);
  });

  test('an idle session is closed after an hour, and at most 64 live at once (decision 120)', async () => {
    const { t, url, client } = await session();
    await call(client, 'projects_list');
    await (t.clock as FakeClock).advance('61m');
    // The next session to open sweeps the idle one away.
    const second = await connect(`${url}/mcp`, t.token);
    expect(t.kernel.services.mcp.sessionCount).toBe(1);
    await expect(client.listTools()).rejects.toThrow();
    expect((await call(second.client, 'projects_list')).isError).toBe(false);
    const more = [];
    for (let i = 0; i < 64; i++) more.push(await connect(`${url}/mcp`, t.token));
    expect(t.kernel.services.mcp.sessionCount).toBe(64);
    // The least recently used went first: the second session, not the newest.
    await expect(second.client.listTools()).rejects.toThrow();
    expect((await call((more.at(-1) as { client: Client }).client, 'projects_list')).isError).toBe(
      false,
    );
  });

  test('a body that is not JSON is refused by the API’s body rules before MCP sees it', async () => {
    const { t, url } = await session();
    const res = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${t.token}` },
      body: '{"jsonrpc":"2.0"}{"again":1}',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: 'invalid_json' } });
  });
});

describe('agent tools', () => {
  test('agents_list and workflows_resolve answer what their routes answer', async () => {
    const { t, client } = await session();
    const { project } = await addProject(t);
    expect((await call(client, 'agents_list')).body).toEqual(
      (await viaApi(t, 'GET', '/v1/agents')).body,
    );
    const candidate = { project_id: project.id, title: 'Fix it', agent: 'claude' };
    const resolved = await call(client, 'workflows_resolve', candidate);
    expect(resolved).toMatchObject({
      isError: false,
      body: (await viaApi(t, 'POST', '/v1/resolve', candidate)).body,
    });
    const refused = await call(client, 'workflows_resolve', { project_id: 999 });
    expect(refused).toMatchObject({
      isError: true,
      body: (await viaApi(t, 'POST', '/v1/resolve', { project_id: 999 })).body,
    });
  });
});
