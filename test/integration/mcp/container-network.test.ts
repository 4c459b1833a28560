/**
 * SPEC §2.10 container rules, the MCP one: `network: false` with `mcp.wire_steps: true` and any
 * agent step in the workflow (top level, parallel, fan_out, loop or include) is 400
 * validation_failed naming the workflow at task creation (the containers room's check, decision
 * 019; here every place an agent step can hide). The fake runtime on PATH answers `version`;
 * tasks are created paused, so nothing runs.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildTestApp } from '../../support/app.js';
import { addProject } from '../../support/tasks.js';

const FAKE = fileURLToPath(new URL('../../fixtures/fake-runtime', import.meta.url));
const savedPath = process.env.PATH;
beforeAll(() => {
  process.env.PATH = `${FAKE}:${process.env.PATH}`;
});
afterAll(() => {
  process.env.PATH = savedPath;
});

const AGENT = 'type: agent\n    prompt: hi';

const WORKFLOWS: Record<string, string> = {
  top: `name: top\nsteps:\n  - id: a\n    ${AGENT}\n`,
  commands: 'name: commands\nsteps:\n  - id: c\n    type: command\n    run: "true"\n',
  par: `name: par
steps:
  - id: p
    type: parallel
    steps:
      - id: c
        type: command
        run: "true"
      - id: a
        type: agent
        prompt: hi
`,
  looped: `name: looped
steps:
  - id: l
    type: loop
    count: 2
    steps:
      - id: a
        type: agent
        prompt: hi
`,
  inc: `name: inc
steps:
  - id: i
    type: include
    workflow: top
`,
  fan: `name: fan
steps:
  - id: f
    type: fan_out
    lanes:
      - id: one
        steps:
          - id: a
            type: agent
            prompt: hi
`,
  fannamed: `name: fannamed
steps:
  - id: f
    type: fan_out
    lanes:
      - id: one
        workflow: top
`,
  ownnet: `name: ownnet
defaults:
  container:
    network: true
steps:
  - id: a
    ${AGENT}
`,
  ownoff: `name: ownoff
defaults:
  container:
    image: own-image
    network: false
steps:
  - id: a
    ${AGENT}
`,
};

async function make(config: string) {
  const t = await buildTestApp({ config });
  const { project } = await addProject(t, WORKFLOWS);
  const create = (workflow: string) =>
    t.api(
      'POST',
      '/v1/tasks',
      { project_id: project.id, title: workflow, workflow, paused: true },
      { 'content-type': 'application/json' },
    );
  return { t, create };
}

describe('network: false with mcp.wire_steps (SPEC §2.10)', () => {
  test('refuses a workflow with an agent step anywhere, naming the workflow', async () => {
    const { create } = await make('container:\n  image: some-image\n  network: false\n');
    for (const wf of ['top', 'par', 'looped', 'inc', 'fan', 'fannamed']) {
      const res = await create(wf);
      expect({ wf, status: res.statusCode }).toEqual({ wf, status: 400 });
      const body = res.json() as {
        error: { code: string; message: string; details: { field: string } };
      };
      expect(body.error).toMatchObject({
        code: 'validation_failed',
        details: { field: 'workflow' },
      });
      expect(body.error.message).toContain(`workflow ${wf} `);
      expect(body.error.message).toContain('mcp.wire_steps');
    }
    // No agent step, or the workflow's own container turns the network back on: accepted.
    expect((await create('commands')).statusCode).toBe(201);
    expect((await create('ownnet')).statusCode).toBe(201);
  });

  test('accepts it with mcp.wire_steps off, the network on, or no image', async () => {
    for (const config of [
      'container:\n  image: some-image\n  network: false\nmcp:\n  wire_steps: false\n',
      'container:\n  image: some-image\n',
      'container:\n  network: false\n',
    ]) {
      const { create } = await make(config);
      expect({ config, status: (await create('top')).statusCode }).toEqual({ config, status: 201 });
    }
  });

  test('a workflow’s own defaults.container decides over the daemon’s', async () => {
    const { create } = await make('');
    const res = await create('ownoff');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: { details: { field: 'workflow' } } });
    expect(res.json().error.message).toContain('workflow ownoff ');
  });
});
