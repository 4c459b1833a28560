// Issue 6 point 8: POST /v1/resolve (SPEC §4.3). Per agent step `{value, source}` for agent, model
// and effort (step → task → workflow defaults → adapter), non-agent steps at their index with null
// fields, nested agent steps listed under their container, and with project_id the branch
// `{value, source, placeholder}`.
import { describe, expect, it } from 'vitest';
import { agentConfig, FAKE_BINARIES } from '../../support/agents.js';
import { buildTestApp, type TestApp } from '../../support/app.js';
import { addProject } from '../../support/tasks.js';

const WORKFLOWS = {
  mixed: `name: mixed
defaults:
  agent: codex
  model: gpt-fake-1
steps:
  - id: a
    type: agent
    prompt: x
  - id: b
    type: agent
    agent: claude
    model: ""
    prompt: x
  - id: c
    type: command
    run: "true"
  - id: d
    type: parallel
    steps:
      - id: d1
        type: agent
        agent: cursor
        effort: high
        prompt: x
      - id: d2
        type: command
        run: "true"
  - id: inc
    type: include
    workflow: shared
`,
  shared: `name: shared
defaults:
  effort: medium
  agent: claude
steps:
  - id: s
    type: agent
    prompt: y
`,
};

function resolve(t: TestApp, body: Record<string, unknown>) {
  return t.api('POST', '/v1/resolve', body, { 'content-type': 'application/json' });
}

describe('POST /v1/resolve', () => {
  it('resolves agent, model and effort per agent step with their sources', async () => {
    const t = await buildTestApp({ config: agentConfig() });
    const { project } = await addProject(t, WORKFLOWS);
    const res = await resolve(t, { project_id: project.id, workflow: 'mixed', effort: 'low' });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.workflow).toBe('mixed');
    expect(body.steps).toEqual([
      {
        index: 0,
        id: 'a',
        type: 'agent',
        agent: { value: 'codex', source: 'workflow' },
        model: { value: 'gpt-fake-1', source: 'workflow' },
        effort: { value: 'low', source: 'task' },
      },
      {
        index: 1,
        id: 'b',
        type: 'agent',
        agent: { value: 'claude', source: 'step' },
        // an empty model is a value: the CLI decides
        model: { value: '', source: 'step' },
        effort: { value: 'low', source: 'task' },
      },
      { index: 2, id: 'c', type: 'command', agent: null, model: null, effort: null },
      {
        index: 3,
        id: 'd',
        type: 'parallel',
        agent: null,
        model: null,
        effort: null,
        sub_steps: [
          {
            where: 'steps[3].steps[0]',
            id: 'd1',
            agent: { value: 'cursor', source: 'step' },
            model: { value: 'gpt-fake-1', source: 'workflow' },
            // cursor takes no effort: whatever is written, the CLI decides
            effort: { value: '', source: 'adapter' },
          },
        ],
      },
      {
        // the included step: the task override beats the defaults the include carried in
        index: 4,
        id: 's',
        type: 'agent',
        agent: { value: 'claude', source: 'workflow' },
        model: { value: 'gpt-fake-1', source: 'workflow' },
        effort: { value: 'low', source: 'task' },
      },
    ]);
    expect(body.branch).toEqual({
      value: 'svc/<id>',
      source: 'default',
      placeholder: true,
    });
  });

  it('falls back to the adapter: the daemon default agent and an empty model and effort', async () => {
    const t = await buildTestApp({ config: agentConfig() });
    const res = await resolve(t, {});
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      workflow: 'adhoc',
      steps: [
        {
          index: 0,
          id: 'run',
          type: 'agent',
          agent: { value: 'claude', source: 'adapter' },
          model: { value: '', source: 'adapter' },
          effort: { value: '', source: 'adapter' },
        },
      ],
    });
    const task = await resolve(t, { agent: 'codex', model: 'gpt-fake-1' });
    expect(task.json().steps[0]).toMatchObject({
      agent: { value: 'codex', source: 'task' },
      model: { value: 'gpt-fake-1', source: 'task' },
    });
  });

  it('previews the branch from each source, with <id> where the task id would go', async () => {
    const t = await buildTestApp({
      config: agentConfig({}, 'branch_template: "work/{{.Slug}}"\n', FAKE_BINARIES),
    });
    const { project } = await addProject(t, WORKFLOWS);
    const config = await resolve(t, { project_id: project.id, title: 'Fix the bug' });
    expect(config.json().branch).toEqual({
      value: 'work/fix-the-bug',
      source: 'config',
      placeholder: false,
    });
    const literal = await resolve(t, {
      project_id: project.id,
      title: 'x',
      branch_name: 'feature/mine',
    });
    expect(literal.json().branch).toEqual({
      value: 'feature/mine',
      source: 'task',
      placeholder: false,
    });
    await t.json('PATCH', `/v1/projects/${project.id}`, { branch_template: 'p/{{.ID}}-{{.Slug}}' });
    const own = await resolve(t, { project_id: project.id, title: 'Fix it' });
    expect(own.json().branch).toEqual({
      value: 'p/<id>-fix-it',
      source: 'project',
      placeholder: true,
    });
    const broken = await resolve(t, {
      project_id: project.id,
      title: '',
      branch_name: 'bad..name',
    });
    expect(broken.json().branch).toMatchObject({ value: '', source: 'task', placeholder: false });
    expect(broken.json().branch.error).toMatch(/bad\.\.name/);
  });

  it('refuses what a create would refuse about the request itself', async () => {
    const t = await buildTestApp({ config: agentConfig() });
    const { project } = await addProject(t, WORKFLOWS);
    for (const body of [
      { workflow: 'nope', project_id: project.id },
      { project_id: 999 },
      { unknown_key: 1 },
      { max_task_cost_usd: -1 },
    ]) {
      const res = await resolve(t, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.code).toBe('validation_failed');
    }
  });
});
