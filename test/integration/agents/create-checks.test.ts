// Issue 6 points 4 and 8: the agent checks of POST /v1/tasks (SPEC §4.4 create rules 2 and 5),
// also run by repair and follow-up: an unregistered agent and a known-invalid model or effort are
// 400, values no catalogue knows are warnings[] on the 201, a restricted step on an adapter whose
// restricted verdict is unsupported is 400 naming the step and the agent.
import { describe, expect, it } from 'vitest';
import { agentConfig, agentWorkflow } from '../../support/agents.js';
import { buildTestApp, type TestApp } from '../../support/app.js';
import { act, addProject, waitState } from '../../support/tasks.js';

function create(t: TestApp, body: Record<string, unknown>) {
  return t.api('POST', '/v1/tasks', body, { 'content-type': 'application/json' });
}

const WORKFLOWS = {
  plain: agentWorkflow('plain'),
  claude: agentWorkflow('claude', { agent: 'claude' }),
  codex: agentWorkflow('codex', { agent: 'codex' }),
  cursor: agentWorkflow('cursor', { agent: 'cursor' }),
  opus_on_codex: agentWorkflow('opus_on_codex', { agent: 'codex', model: 'opus' }),
  nested: `name: nested
defaults:
  agent: claude
steps:
  - id: group
    type: parallel
    steps:
      - id: inner
        type: agent
        agent: codex
        model: sonnet
        prompt: x
      - id: cmd
        type: command
        run: "true"
`,
  lanes: `name: lanes
steps:
  - id: fan
    type: fan_out
    lanes:
      - id: one
        agent: codex
        steps:
          - id: ask
            type: agent
            on_input: require
            prompt: x
`,
  restricted_step: agentWorkflow('restricted_step', {
    agent: 'cursor',
    permission_mode: 'restricted',
  }),
};

async function setup(hostPlatform?: { os: string }) {
  const t = await buildTestApp({
    config: agentConfig({}, 'mcp:\n  wire_steps: false\n'),
    ...(hostPlatform && { hostPlatform }),
  });
  const { project } = await addProject(t, WORKFLOWS);
  return { t, p: project.id };
}

describe('agent checks at task creation', () => {
  it('refuses an agent override no adapter provides, naming the field', async () => {
    const { t, p } = await setup();
    const res = await create(t, { project_id: p, title: 'x', workflow: 'claude', agent: 'gemini' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({
      code: 'validation_failed',
      details: { field: 'agent' },
    });
    expect(res.json().error.message).toContain('claude, codex, cursor');
    expect((await t.json<unknown[]>('GET', '/v1/tasks')).length).toBe(0);
  });

  it('refuses a model another adapter owns (task override or step value), wherever the step sits', async () => {
    const { t, p } = await setup();
    const viaTask = await create(t, {
      project_id: p,
      title: 'x',
      workflow: 'codex',
      model: 'sonnet',
    });
    expect(viaTask.statusCode).toBe(400);
    expect(viaTask.json().error).toMatchObject({ details: { field: 'model' } });
    expect(viaTask.json().error.message).toMatch(/step work: model "sonnet" is a claude model/);
    const viaStep = await create(t, { project_id: p, title: 'x', workflow: 'opus_on_codex' });
    expect(viaStep.statusCode).toBe(400);
    expect(viaStep.json().error).toMatchObject({ details: { field: 'workflow' } });
    const nested = await create(t, { project_id: p, title: 'x', workflow: 'nested' });
    expect(nested.statusCode).toBe(400);
    expect(nested.json().error.message).toMatch(/^step inner: model "sonnet"/);
  });

  it('refuses an effort the probed CLI does not list when another adapter owns it', async () => {
    const { t, p } = await setup();
    // before probing, codex's effort floor is curated: an unknown effort is only a warning
    const before = await create(t, { project_id: p, title: 'x', workflow: 'codex', effort: 'max' });
    expect(before.statusCode, before.body).toBe(201);
    expect(before.json().warnings).toEqual([
      expect.stringMatching(/step work: effort "max" is not in codex's catalogue/),
    ]);
    await t.json('GET', '/v1/agents');
    const after = await create(t, { project_id: p, title: 'y', workflow: 'codex', effort: 'max' });
    expect(after.statusCode).toBe(400);
    expect(after.json().error.message).toMatch(/effort "max" is a claude effort/);
    // a model the probed codex listed is known-invalid for claude now
    const model = await create(t, {
      project_id: p,
      title: 'z',
      workflow: 'claude',
      model: 'gpt-fake-1',
    });
    expect(model.statusCode).toBe(400);
  });

  it('returns values no catalogue knows as warnings on the 201, and notes an effort cursor ignores', async () => {
    const { t, p } = await setup();
    const res = await create(t, {
      project_id: p,
      title: 'x',
      workflow: 'claude',
      model: 'claude-opus-9-preview',
      effort: 'turbo',
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().warnings).toEqual([
      'step work: model "claude-opus-9-preview" is not in claude\'s catalogue; the CLI decides whether it exists',
      'step work: effort "turbo" is not in claude\'s catalogue; the CLI decides whether it exists',
    ]);
    const cursor = await create(t, {
      project_id: p,
      title: 'y',
      workflow: 'cursor',
      effort: 'high',
    });
    expect(cursor.statusCode).toBe(201);
    expect(cursor.json().warnings).toEqual([
      'step work: cursor has no effort setting; effort "high" is ignored',
    ]);
  });

  it('applies a lane’s agent to its subtree', async () => {
    const { t, p } = await setup();
    const res = await create(t, { project_id: p, title: 'x', workflow: 'lanes' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toMatch(/step ask requires input .* codex cannot ask/);
  });
});

describe('restricted (SPEC §4.4 rule 5)', () => {
  it('refuses a restricted task whose step would run cursor on Windows, naming the step and the agent', async () => {
    const { t, p } = await setup({ os: 'windows' });
    const res = await create(t, {
      project_id: p,
      title: 'x',
      workflow: 'cursor',
      restricted: true,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({
      code: 'validation_failed',
      details: { field: 'restricted' },
    });
    expect(res.json().error.message).toMatch(/^step work would run cursor restricted/);
    // unrestricted, the same task is fine; a restricted claude task is fine
    expect((await create(t, { project_id: p, title: 'y', workflow: 'cursor' })).statusCode).toBe(
      201,
    );
    expect(
      (await create(t, { project_id: p, title: 'z', workflow: 'claude', restricted: true }))
        .statusCode,
    ).toBe(201);
    // a step that restricts itself is judged the same way
    const own = await create(t, { project_id: p, title: 'w', workflow: 'restricted_step' });
    expect(own.statusCode).toBe(400);
    // and a task override that moves a step onto cursor (the step names no agent of its own)
    const moved = await create(t, {
      project_id: p,
      title: 'v',
      workflow: 'plain',
      agent: 'cursor',
      restricted: true,
    });
    expect(moved.statusCode).toBe(400);
  });

  it('lets the same restricted cursor task through on Linux', async () => {
    const { t, p } = await setup({ os: 'linux' });
    const res = await create(t, {
      project_id: p,
      title: 'x',
      workflow: 'cursor',
      restricted: true,
    });
    expect(res.statusCode, res.body).toBe(201);
    const { agents } = await t.json<{
      agents: Array<{ name: string; restricted_verdict: string }>;
    }>('GET', '/v1/agents');
    expect(agents.map((a) => [a.name, a.restricted_verdict])).toEqual([
      ['claude', 'supported'],
      ['codex', 'supported'],
      ['cursor', 'supported'],
    ]);
  });
});

describe('repair and follow-up validate their agent values like create', () => {
  it('refuses an unknown agent or a known-invalid model, and returns warnings', async () => {
    const t = await buildTestApp({ config: agentConfig({ FAKE_CLAUDE_SCENARIO: 'fail' }) });
    const { project } = await addProject(t, {
      one: agentWorkflow('one', { agent: 'claude', max_retries: 0 }),
    });
    const res = await create(t, { project_id: project.id, title: 'x', workflow: 'one' });
    const id = res.json().id as number;
    await waitState(t, id, 'blocked');
    const bad = await act(t, id, 'repair', { prompt: 'fix', agent: 'gemini' });
    expect(bad.statusCode).toBe(400);
    const wrong = await act(t, id, 'repair', { prompt: 'fix', agent: 'codex', model: 'opus' });
    expect(wrong.statusCode).toBe(400);
    expect((await t.json<{ state: string }>('GET', `/v1/tasks/${id}`)).state).toBe('blocked');
    const ok = await act(t, id, 'repair', { prompt: 'fix', model: 'claude-next' });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().warnings).toEqual([
      'step __repair: model "claude-next" is not in claude\'s catalogue; the CLI decides whether it exists',
    ]);
    await waitState(t, id, 'blocked');
    await act(t, id, 'cancel');
    await waitState(t, id, 'aborted');
    const fu = await act(t, id, 'follow_up', { prompt: 'more', agent: 'nope' });
    expect(fu.statusCode).toBe(400);
    const fuOk = await act(t, id, 'follow_up', { prompt: 'more', effort: 'warp' });
    expect(fuOk.statusCode, fuOk.body).toBe(200);
    expect(fuOk.json().warnings).toEqual([
      'step follow-up-1: effort "warp" is not in claude\'s catalogue; the CLI decides whether it exists',
    ]);
  });
});
