// Issue 12 point 2: the example `http` step type — the contract suite every step type runs, then
// loaded through the config's plugins: key and used by workflows against a local server: 2xx
// passes, anything else blocks the task with the step's own reason.

import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { buildTestApp } from '../../../test/support/app.js';
import { describeStepType } from '../../../test/support/step-tester.js';
import { addProject, createTask, getTask, waitState } from '../../../test/support/tasks.js';
import { httpStep } from './http.js';

const PLUGIN = fileURLToPath(new URL('.', import.meta.url));
const WORKFLOW = readFileSync(new URL('./notify-and-check.yaml', import.meta.url), 'utf8');

describeStepType(httpStep, {
  valid: [
    { def: { type: 'http', url: 'https://example.test/hook' } },
    {
      def: {
        id: 'hook',
        type: 'http',
        method: 'POST',
        url: '{{.Task.Fields.hook}}',
        headers: { 'Content-Type': 'application/json' },
        body: '{"task": {{.Task.ID}}}',
        max_retries: 2,
        retry_backoff: '10s',
      },
    },
    { def: { type: 'http', url: 'http://127.0.0.1:8080/up' }, context: 'parallel' },
    { def: { type: 'http', url: 'http://127.0.0.1:8080/up' }, context: 'loop' },
  ],
  invalid: [
    { def: { type: 'http' }, errors: [{ path: 'url', code: 'required' }] },
    { def: { type: 'http', url: 'ftp://x' }, errors: [{ path: 'url', code: 'invalid_url' }] },
    {
      def: { type: 'http', url: 'http://x/', method: 'FETCH' },
      errors: [{ path: 'method', code: 'invalid_value' }],
    },
    {
      def: { type: 'http', url: 'http://x/', body: 'hi' },
      errors: [{ path: 'body', code: 'body_not_allowed' }],
    },
    {
      def: { id: 'h', type: 'http', url: 'http://x/' },
      context: 'merge',
      errors: [{ path: 'type', code: 'not_allowed_here' }],
    },
  ],
});

/** A local server: `/ok` 200, `/created` 201, `/boom` 500, `/hook` records POSTs. */
async function server() {
  const hooks: Array<{ body: string; type: string | undefined }> = [];
  const srv = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      if (req.url === '/hook') {
        hooks.push({ body, type: req.headers['content-type'] });
        res.writeHead(204).end();
      } else if (req.url === '/ok') res.writeHead(200).end('fine');
      else if (req.url === '/created') res.writeHead(201).end();
      else res.writeHead(500).end('boom: the deploy is down\nmore');
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  onTestFinished(() => new Promise<void>((r) => srv.close(() => r())));
  const base = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  return { base, hooks };
}

describe('the http step, loaded through plugins:', () => {
  it('runs in a workflow: 2xx passes, a 500 blocks the task http_status', async () => {
    const { base, hooks } = await server();
    const t = await buildTestApp({ config: `plugins:\n  - ${PLUGIN}\n` });
    const { project } = await addProject(t, {
      calls: [
        'name: calls',
        'steps:',
        '  - id: hook',
        '    type: http',
        '    method: POST',
        `    url: "${base}/hook"`,
        '    headers: {Content-Type: application/json}',
        '    body: \'{"task": {{.Task.ID}}, "title": "{{.Task.Title}}"}\'',
        '  - id: up',
        '    type: http',
        '    url: "{{.Task.Fields.target}}"',
        '    max_retries: 0',
        '',
      ].join('\n'),
    });
    const good = await createTask(t, {
      project_id: project.id,
      title: 'Good',
      workflow: 'calls',
      fields: { target: `${base}/ok` },
    });
    await waitState(t, good.id, 'done');
    expect(hooks).toEqual([
      { body: `{"task": ${good.id}, "title": "Good"}`, type: 'application/json' },
    ]);
    const runs = await t.json<Array<{ result_summary: string }>>(
      'GET',
      `/v1/tasks/${good.id}/steps`,
    );
    expect(runs.map((r) => r.result_summary)).toEqual([
      `POST ${base}/hook → 204`,
      `GET ${base}/ok → 200`,
    ]);

    const bad = await createTask(t, {
      project_id: project.id,
      title: 'Bad',
      workflow: 'calls',
      fields: { target: `${base}/boom` },
    });
    const blocked = await waitState(t, bad.id, 'blocked');
    expect(blocked.block_reason).toBe('http_status');
    const failed = (
      await t.json<Array<{ failure_reason: string | null; state: string }>>(
        'GET',
        `/v1/tasks/${bad.id}/steps`,
      )
    ).at(-1);
    expect(failed).toMatchObject({ state: 'failed', failure_reason: 'http_status' });
    expect(blocked.block_detail).toContain(
      `GET ${base}/boom answered 500: boom: the deploy is down`,
    );
    // An unreachable host is its own reason.
    const gone = await createTask(t, {
      project_id: project.id,
      title: 'Gone',
      workflow: 'calls',
      fields: { target: 'http://127.0.0.1:9/' },
    });
    expect((await waitState(t, gone.id, 'blocked')).block_reason).toBe('http_error');
  });

  it('runs the sample workflow that ships beside it', async () => {
    const { base, hooks } = await server();
    const t = await buildTestApp({ config: `plugins:\n  - ${PLUGIN}\n` });
    const { project } = await addProject(t, { 'notify-and-check': WORKFLOW });
    const task = await createTask(t, {
      project_id: project.id,
      title: 'Sample',
      workflow: 'notify-and-check',
      fields: { hook: `${base}/hook`, preview: `${base}/created` },
    });
    await waitState(t, task.id, 'awaiting_gate');
    expect(JSON.parse(hooks[0]?.body ?? '{}')).toEqual({ task: task.id, event: 'started' });
    expect((await getTask(t, task.id)).current_step).toBe(3);
  });

  it('is refused at load without the plugin, naming the unknown type', async () => {
    const t = await buildTestApp();
    const r = await t.json<{ valid: boolean; errors: Array<{ path: string; code: string }> }>(
      'POST',
      '/v1/workflows/validate',
      { yaml: WORKFLOW },
    );
    expect(r.valid).toBe(false);
    expect(r.errors.map((e) => e.path)).toContain('steps[0].type');
  });
});
