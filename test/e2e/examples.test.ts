// Issue 19 point 12 (decisions 206, 146): each example loads the way its docs say —
// `plugins: [<checkout>/examples/...]`, its TypeScript source folder — in the built daemon on
// Node without TypeScript, and runs a step: the http step against a local server, wait_for_http,
// and an agent step on the parrot adapter with the step's MCP endpoint wired (the default).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { waitFor } from '../support/app.js';
import { dirsIn, HAVE_BUILD, startDaemon } from '../support/daemon-proc.js';
import { gitRepo } from '../support/git.js';
import { withWorkflows } from '../support/tasks.js';
import { tempDir } from '../support/tmp.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EXAMPLES = join(ROOT, 'examples');

describe.skipIf(!HAVE_BUILD)('the examples, from their own folders', () => {
  it('load in the built daemon and each runs a step', { timeout: 180_000 }, async () => {
    const hits: string[] = [];
    const server = createServer((req, res) => {
      hits.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    onTestFinished(() => new Promise<void>((r) => server.close(() => r())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const dirs = dirsIn(tempDir('svc-examples-'));
    mkdirSync(dirs.configDir, { recursive: true, mode: 0o700 });
    writeFileSync(
      join(dirs.configDir, 'config.yaml'),
      [
        'plugins:',
        `  - ${join(EXAMPLES, 'step-types', 'http')}`,
        `  - ${join(EXAMPLES, 'step-types', 'wait_for_http')}`,
        `  - ${join(EXAMPLES, 'agent-adapter')}`,
        'agents:',
        '  parrot:',
        `    path: ${join(EXAMPLES, 'agent-adapter', 'fake-cli', 'parrot-agent')}`,
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    const d = await startDaemon(dirs, 120_000);
    onTestFinished(() => d.stop());

    const repo = gitRepo();
    withWorkflows(repo, {
      examples: `name: examples
steps:
  - id: call
    type: http
    method: POST
    url: "${url}/hook"
    body: '{"task": {{.Task.ID}}}'
  - id: ready
    type: wait_for_http
    url: "${url}/health"
    interval: 1s
  - id: parrot
    type: agent
    agent: parrot
    prompt: Repeat after me
`,
    });
    const project = await d.json<{ id: number }>('POST', '/v1/projects', { path: repo.path });
    const task = await d.json<{ id: number }>('POST', '/v1/tasks', {
      project_id: project.id,
      title: 'examples',
      workflow: 'examples',
    });
    const done = await waitFor(async () => {
      const t = await d.json<{ state: string; worktree_path: string; block_detail: string }>(
        'GET',
        `/v1/tasks/${task.id}`,
      );
      if (t.state === 'blocked') throw new Error(`blocked: ${t.block_detail}`);
      return t.state === 'done' ? t : null;
    }, 120_000);
    expect(hits).toEqual(expect.arrayContaining(['POST /hook', 'GET /health']));
    expect(readFileSync(join(done.worktree_path, 'PARROT.md'), 'utf8')).toContain(
      'Repeat after me',
    );
    const steps = await d.json<Array<{ id: number; step_id: string; state: string }>>(
      'GET',
      `/v1/tasks/${task.id}/steps`,
    );
    expect(steps.map((s) => [s.step_id, s.state])).toEqual([
      ['call', 'succeeded'],
      ['ready', 'succeeded'],
      ['parrot', 'succeeded'],
    ]);
    // The parrot run carried its step's MCP endpoint (mcp.wire_steps is on by default).
    const parrot = steps[2] as { id: number };
    const res = await d.call('GET', `/v1/tasks/${task.id}/steps/${parrot.id}/transcript`);
    expect(await res.text()).toMatch(/tools at http:\/\/127\.0\.0\.1:\d+\/mcp\//);
  });
});
