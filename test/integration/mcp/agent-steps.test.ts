/**
 * Agent steps wired to their per-step MCP endpoint (issue 9 point 3, decisions 113 and 122): the
 * fake CLIs record the MCP config the step received (claude's --mcp-config file, codex's -c
 * overrides and token variable), the fake claude calls svc through it mid-run, the creation
 * bounds hold for what it creates, `mcp.wire_steps: false` wires nothing, and cursor, which cannot
 * carry a server, fails the step `mcp_unsupported` without running.
 */
import { mkdirSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, onTestFinished, test } from 'vitest';
import { stepToken } from '../../../kernel/mcp/index.js';
import {
  agentConfig,
  agentWorkflow,
  FAKE_BINARIES,
  records,
  stepRuns,
} from '../../support/agents.js';
import { buildTestApp, type TestApp } from '../../support/app.js';
import { listen } from '../../support/mcp.js';
import { addProject, createTask, type TaskJson, waitState } from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';

type Rec = Record<string, unknown>;

async function world(
  knobs: Record<string, string>,
  extra = '',
  workflows: Record<string, string> = {},
) {
  const log = join(tempDir(), 'rec.jsonl');
  const t = await buildTestApp({
    config: agentConfig({ FAKE_AGENT_RECORD: log, ...knobs }, extra),
  });
  // Listening first: an endpoint names the port the daemon listens on.
  const base = await listen(t);
  const { project } = await addProject(t, {
    claude: agentWorkflow('claude', { agent: 'claude', max_retries: 0 }),
    codex: agentWorkflow('codex', { agent: 'codex', max_retries: 0 }),
    cursor: agentWorkflow('cursor', { agent: 'cursor', max_retries: 0 }),
    ...workflows,
  });
  return { t, base, project, recs: () => records(log) };
}

/** The fake's start record of the task's step: the one run in the task's worktree (probes run elsewhere). */
async function stepStart(t: TestApp, recs: () => Rec[], taskId: number): Promise<Rec | undefined> {
  const where = (await t.json<TaskJson>('GET', `/v1/tasks/${taskId}`)).worktree_path;
  const starts = recs().filter((r) => r.event === 'start' && r.cwd === where);
  expect(starts.length).toBeLessThanOrEqual(1);
  return starts[0];
}

async function finish(t: TestApp, id: number): Promise<TaskJson> {
  return waitState(t, id, ['done', 'blocked'], 20_000);
}

describe('claude steps get their own endpoint by --mcp-config', () => {
  test('the recorded argv and config point at the step’s endpoint, and the agent creates a task through it', async () => {
    const { t, base, project, recs } = await world({
      FAKE_CLAUDE_SCENARIO: 'mcp-call',
      FAKE_CLAUDE_MCP_TOOL: 'tasks_create',
      FAKE_CLAUDE_MCP_ARGS: JSON.stringify({
        project_id: 1,
        title: 'made by the agent',
        paused: true,
      }),
    });
    const task = await createTask(t, {
      project_id: project.id,
      title: 'parent',
      workflow: 'claude',
    });
    expect((await finish(t, task.id)).state).toBe('done');
    const [run] = await stepRuns(t, task.id);
    const runId = run?.id as number;

    const start = await stepStart(t, recs, task.id);
    const argv = start?.argv as string[];
    expect(argv).toContain('--mcp-config');
    const path = argv[argv.indexOf('--mcp-config') + 1];
    const config = recs().find((r) => r.event === 'mcp_config') as Rec;
    expect(config.path).toBe(path);
    expect(config.config).toEqual({
      mcpServers: {
        svc: {
          type: 'http',
          url: `${base}/mcp/steps/${runId}`,
          headers: { Authorization: `Bearer ${stepToken(t.token, runId)}` },
        },
      },
    });
    // The token is on no command line: only the file's path is.
    expect(argv.join(' ')).not.toContain(stepToken(t.token, runId));

    const result = recs().find((r) => r.event === 'mcp_result') as Rec;
    expect(result).toMatchObject({ tool: 'tasks_create', status: 200 });
    expect((result.result as { isError?: boolean }).isError ?? false).toBe(false);
    const made = (result.result as { structuredContent: { id: number } }).structuredContent;
    expect(await t.json('GET', `/v1/tasks/${made.id}`)).toMatchObject({
      title: 'made by the agent',
      created_via: 'mcp',
      created_by_task_id: task.id,
    });
  });

  test('tasks an agent creates are held to mcp.max_tasks: the refusal reaches the agent as the envelope', async () => {
    const twice = `name: twice
steps:
  - id: one
    type: agent
    agent: claude
    prompt: first
  - id: two
    type: agent
    agent: claude
    prompt: second
`;
    const { t, project, recs } = await world(
      {
        FAKE_CLAUDE_SCENARIO: 'mcp-call',
        FAKE_CLAUDE_MCP_TOOL: 'tasks_create',
        FAKE_CLAUDE_MCP_ARGS: JSON.stringify({ project_id: 1, title: 'child', paused: true }),
      },
      'mcp:\n  max_tasks: 1\n',
      { twice },
    );
    const task = await createTask(t, {
      project_id: project.id,
      title: 'parent',
      workflow: 'twice',
    });
    expect((await finish(t, task.id)).state).toBe('done');
    const results = recs().filter((r) => r.event === 'mcp_result') as Array<{
      result: { isError?: boolean; structuredContent: Rec };
    }>;
    expect(results.map((r) => r.result.isError === true)).toEqual([false, true]);
    expect(results[1]?.result.structuredContent).toMatchObject({
      error: { code: 'validation_failed', details: { field: 'mcp.max_tasks', limit: 1 } },
    });
    expect((await t.json<TaskJson[]>('GET', '/v1/tasks?archived=all')).length).toBe(2);
  });

  test('a step that runs restricted holds its agent to it: what it creates is restricted (decision 125)', async () => {
    const own = agentWorkflow('own', {
      agent: 'claude',
      max_retries: 0,
      permission_mode: 'restricted',
    });
    const { t, project, recs } = await world(
      {
        FAKE_CLAUDE_SCENARIO: 'mcp-call',
        FAKE_CLAUDE_MCP_TOOL: 'tasks_create',
        FAKE_CLAUDE_MCP_ARGS: JSON.stringify({ project_id: 1, title: 'child', paused: true }),
      },
      '',
      { own },
    );
    // The task is not restricted; its step is.
    const task = await createTask(t, { project_id: project.id, title: 'parent', workflow: 'own' });
    expect(task.restricted).toBe(false);
    expect((await finish(t, task.id)).state).toBe('done');
    const result = recs().find((r) => r.event === 'mcp_result') as Rec;
    const made = (result.result as { structuredContent: { id: number } }).structuredContent;
    expect(await t.json('GET', `/v1/tasks/${made.id}`)).toMatchObject({
      created_by_task_id: task.id,
      restricted: true,
    });
  });

  test('mcp.wire_steps: false gives the step no MCP server', async () => {
    const { t, project, recs } = await world({}, 'mcp:\n  wire_steps: false\n');
    const task = await createTask(t, {
      project_id: project.id,
      title: 'plain',
      workflow: 'claude',
    });
    expect((await finish(t, task.id)).state).toBe('done');
    const start = await stepStart(t, recs, task.id);
    expect(start?.argv).toEqual(expect.arrayContaining(['-p']));
    expect(start?.argv).not.toContain('--mcp-config');
    expect(recs().some((r) => r.event === 'mcp_config')).toBe(false);
  });
});

test('codex steps get the endpoint by -c overrides and the token in SVC_MCP_BEARER_TOKEN', async () => {
  const { t, base, project, recs } = await world({ FAKE_AGENT_RECORD_ENV: 'SVC_MCP_BEARER_TOKEN' });
  const task = await createTask(t, { project_id: project.id, title: 'codex', workflow: 'codex' });
  expect((await finish(t, task.id)).state).toBe('done');
  const runId = (await stepRuns(t, task.id))[0]?.id as number;
  const start = (await stepStart(t, recs, task.id)) as Rec;
  expect(start.argv).toEqual(
    expect.arrayContaining(['-c', `mcp_servers.svc.url="${base}/mcp/steps/${runId}"`]),
  );
  expect(start.env).toEqual({ SVC_MCP_BEARER_TOKEN: stepToken(t.token, runId) });
});

test('cursor, which cannot carry an MCP server, fails the step mcp_unsupported; with wiring off it runs', async () => {
  const wired = await world({});
  const task = await createTask(wired.t, {
    project_id: wired.project.id,
    title: 'c',
    workflow: 'cursor',
  });
  const blocked = await finish(wired.t, task.id);
  expect(blocked).toMatchObject({ state: 'blocked', block_reason: 'mcp_unsupported' });
  expect((await stepRuns(wired.t, task.id))[0]).toMatchObject({
    failure_reason: 'mcp_unsupported',
  });
  expect(await stepStart(wired.t, wired.recs, task.id)).toBeUndefined();

  const plain = await world({}, 'mcp:\n  wire_steps: false\n');
  const ok = await createTask(plain.t, {
    project_id: plain.project.id,
    title: 'c',
    workflow: 'cursor',
  });
  expect((await finish(plain.t, ok.id)).state).toBe('done');
});

test('a task admitted as the daemon starts is wired to the port it listens on (listen before the engine)', async () => {
  const root = tempDir();
  const log = join(tempDir(), 'rec.jsonl');
  const config = agentConfig({ FAKE_AGENT_RECORD: log });
  // Created while no engine runs: the task waits queued for the next start.
  const first = await buildTestApp({
    root,
    config,
    keepOpen: true,
    kernel: { startEngine: false },
  });
  const { project } = await addProject(first, {
    claude: agentWorkflow('claude', { agent: 'claude', max_retries: 0 }),
  });
  const task = await createTask(first, {
    project_id: project.id,
    title: 'queued',
    workflow: 'claude',
  });
  await first.close();

  let port = 0;
  const t = await buildTestApp({
    root,
    config,
    kernel: {
      listen: async (app) => {
        await app.listen({ host: '127.0.0.1', port: 0 });
        const a = app.server.address();
        port = typeof a === 'object' && a ? a.port : 0;
      },
    },
  });
  expect((await finish(t, task.id)).state).toBe('done');
  const runId = (await stepRuns(t, task.id))[0]?.id as number;
  const config0 = records(log).find((r) => r.event === 'mcp_config') as Rec;
  expect(config0.config).toMatchObject({
    mcpServers: { svc: { url: `http://127.0.0.1:${port}/mcp/steps/${runId}` } },
  });
});

test('in a container the claude step is wired to the host alias, its config file mounted read-only', async () => {
  // The fake runtime CLI runs `run` locally (test/fixtures/fake-runtime); it is first on PATH.
  const savedPath = process.env.PATH;
  const runtimeDir = join(import.meta.dirname, '..', '..', 'fixtures', 'fake-runtime');
  process.env.PATH = `${runtimeDir}:${savedPath}`;
  process.env.FAKE_RUNTIME_IMAGES = 'img:1';
  onTestFinished(() => {
    process.env.PATH = savedPath;
    delete process.env.FAKE_RUNTIME_IMAGES;
  });
  const runtimeLog = join(tempDir(), 'runtime.jsonl');
  const bin = tempDir();
  mkdirSync(bin, { recursive: true });
  symlinkSync(FAKE_BINARIES.claude, join(bin, 'claude'));
  const { t, base, project, recs } = await world(
    {
      FAKE_RUNTIME_RECORD: runtimeLog,
      FAKE_RUNTIME_IMAGES: 'img:1',
      // The "image" finds claude on its PATH.
      PATH: `${bin}:${runtimeDir}:${savedPath}`,
      IS_SANDBOX: '1',
    },
    'container:\n  image: "img:1"\n  runtime: docker\n',
  );
  const task = await createTask(t, { project_id: project.id, title: 'boxed', workflow: 'claude' });
  const done = await finish(t, task.id);
  expect(done.state, String(done.block_detail)).toBe('done');
  const runId = (await stepRuns(t, task.id))[0]?.id as number;

  const config = recs().find((r) => r.event === 'mcp_config') as Rec;
  expect(config.config).toMatchObject({
    mcpServers: {
      svc: { url: `http://host.docker.internal:${new URL(base).port}/mcp/steps/${runId}` },
    },
  });
  // The runtime gets the alias, and the config file's directory at its own path, read-only.
  const run = records(runtimeLog).find((r) => (r.argv as string[])[0] === 'run') as Rec;
  const argv = run.argv as string[];
  expect(argv).toEqual(expect.arrayContaining(['--add-host', 'host.docker.internal:host-gateway']));
  const scratch = dirname(config.path as string);
  expect(argv).toEqual(expect.arrayContaining(['-v', `${scratch}:${scratch}:ro`]));
  expect(argv[argv.indexOf('--mcp-config') + 1]).toBe(config.path);
});
