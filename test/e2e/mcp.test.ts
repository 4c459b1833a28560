// Issue 9 point 4 against the built daemon: an MCP client finds svc the way a user configures it
// (the port in daemon.json, the token in the data directory) and drives /mcp over Streamable HTTP.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipUnlessCi } from '../support/ci.js';
import { HAVE_BUILD, SVC_BIN, svc } from '../support/daemon-proc.js';
import { gitRepo } from '../support/git.js';
import { call, connect } from '../support/mcp.js';
import { tempDir } from '../support/tmp.js';

describe.skipIf(
  skipUnlessCi(!HAVE_BUILD && 'dist/ is not built (npm run build)', 'MCP on the built daemon'),
)('MCP on the built daemon', () => {
  let env: NodeJS.ProcessEnv;
  let url = '';
  let token = '';

  beforeAll(() => {
    const root = tempDir('svc-e2e-mcp-');
    const dataDir = join(root, 'data');
    env = { SVC_DATA_DIR: dataDir, SVC_CONFIG_DIR: join(root, 'config') };
    expect(svc(env, 'daemon', 'start').code).toBe(0);
    const info = JSON.parse(readFileSync(join(dataDir, 'daemon.json'), 'utf8')) as { port: number };
    url = `http://127.0.0.1:${info.port}/mcp`;
    token = readFileSync(join(dataDir, 'token'), 'utf8').trim();
  });

  // Asynchronously: the daemon closes this process's MCP connections as it stops, and a process
  // blocked in spawnSync could not answer.
  afterAll(async () => {
    await new Promise<void>((resolve) => {
      const child = spawn(process.execPath, [SVC_BIN, 'daemon', 'stop'], {
        env: { ...process.env, ...env },
        stdio: 'ignore',
      });
      child.on('exit', () => resolve());
    });
  });

  it('lists tools, creates a project and a task, reads the task back, and a refusal is the envelope', async () => {
    const { client } = await connect(url, token);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['tasks_create', 'tasks_show', 'config_show']));
    const project = await call(client, 'projects_create', { path: gitRepo().path });
    const task = await call(client, 'tasks_create', {
      project_id: project.body.id as number,
      title: 'over MCP',
      paused: true,
    });
    expect(task.body).toMatchObject({ state: 'paused', created_via: 'mcp' });
    const shown = await call(client, 'tasks_show', { task_id: task.body.id as number });
    expect(shown.body).toMatchObject({ id: task.body.id, title: 'over MCP' });
    // A refused call carries the API's envelope.
    const refused = await call(client, 'tasks_create', { project_id: 424242, title: 'nowhere' });
    expect(refused).toMatchObject({
      isError: true,
      body: { error: { code: 'validation_failed', details: { field: 'project_id' } } },
    });
    expect(refused.structured).toEqual(refused.body);
    await client.close();
  });

  it('refuses a client without the token', async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{}',
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { code: 'unauthorized' } });
  });
});
