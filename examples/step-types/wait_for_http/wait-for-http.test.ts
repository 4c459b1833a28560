// The example step type runs the same contract suite as the built-ins.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { buildTestApp } from '../../../test/support/app.js';
import { describeStepType } from '../../../test/support/step-tester.js';
import { addProject, createTask, waitState } from '../../../test/support/tasks.js';
import { waitForHttpStep } from './wait-for-http.js';

const PLUGIN = fileURLToPath(new URL('.', import.meta.url));

describeStepType(waitForHttpStep, {
  valid: [
    { def: { type: 'wait_for_http', url: 'http://127.0.0.1:3000/health' } },
    {
      def: {
        id: 'up',
        type: 'wait_for_http',
        url: 'http://{{.Task.Fields.host}}/',
        status: 204,
        interval: '500ms',
        timeout: '2m',
      },
    },
    { def: { type: 'wait_for_http', url: 'https://example.test/' }, context: 'parallel' },
  ],
  invalid: [
    { def: { type: 'wait_for_http' }, errors: [{ path: 'url', code: 'required' }] },
    {
      def: { type: 'wait_for_http', url: 'ftp://x' },
      errors: [{ path: 'url', code: 'invalid_url' }],
    },
    {
      def: { type: 'wait_for_http', url: 'http://x/', interval: '0' },
      errors: [{ path: 'interval', code: 'invalid_duration' }],
    },
    {
      def: { type: 'wait_for_http', url: 'http://x/', status: 700 },
      errors: [{ path: 'status', code: 'out_of_range' }],
    },
    {
      def: { id: 'w', type: 'wait_for_http', url: 'http://x/' },
      context: 'merge',
      errors: [{ path: 'type', code: 'not_allowed_here' }],
    },
  ],
});

// Issue 12 point 2: loaded through plugins: and used by a workflow, it waits for a service that
// comes up late, and gives up with its own reason when the step's timeout passes.
describe('wait_for_http in a workflow', () => {
  it('waits until the URL answers, and times out with reason timeout', async () => {
    let polls = 0;
    const srv = createServer((_req, res) => {
      polls++;
      res.writeHead(polls < 3 ? 503 : 200).end();
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
    onTestFinished(() => new Promise<void>((r) => srv.close(() => r())));
    const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/health`;
    const t = await buildTestApp({ config: `plugins:\n  - ${PLUGIN}\n` });
    const { project } = await addProject(t, {
      up: `name: up\nsteps:\n  - id: wait\n    type: wait_for_http\n    url: "{{.Task.Fields.url}}"\n    interval: 100ms\n    timeout: 2s\n    max_retries: 0\n`,
    });
    const ok = await createTask(t, {
      project_id: project.id,
      title: 'up',
      workflow: 'up',
      fields: { url },
    });
    await waitState(t, ok.id, 'done');
    expect(polls).toBe(3);
    const never = await createTask(t, {
      project_id: project.id,
      title: 'down',
      workflow: 'up',
      fields: { url: 'http://127.0.0.1:9/' },
    });
    expect((await waitState(t, never.id, 'blocked')).block_reason).toBe('timeout');
  });
});
