// Issue 12 point 2: the example agent adapter runs the contract suite every adapter runs, its
// plans drive the tiny fake CLI beside it, and the daemon loads it through plugins:, probes it and
// runs an agent step with it.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../../test/support/app.js';
import { describeAgentAdapter } from '../../test/support/describe-agent-adapter.js';
import { runAgent } from '../../test/support/run-agent.js';
import { addProject, createTask, waitState } from '../../test/support/tasks.js';
import { tempDir } from '../../test/support/tmp.js';
import { parrotAdapter } from './adapter.js';

const PLUGIN = fileURLToPath(new URL('.', import.meta.url));
const CLI = fileURLToPath(new URL('./fake-cli/parrot-agent', import.meta.url));
/** Golden streams live beside the example; the suite resolves them from test/fixtures/streams. */
const GOLDEN = '../../../examples/agent-adapter/fixtures';
const usage = { cost_usd: null, session_totals: null, session_id: null };

describeAgentAdapter(parrotAdapter, {
  cli_versions: ['1.0.0'],
  golden: [
    {
      file: `${GOLDEN}/success_1.0.0.jsonl`,
      verdict: {
        kind: 'succeeded',
        result_text: 'repeated: Polly hello',
        input_tokens: 11,
        output_tokens: 11,
        ...usage,
      },
      tools: [{ name: 'write', summary: 'PARROT.md' }],
    },
    {
      file: `${GOLDEN}/refused_1.0.0.jsonl`,
      exit: { code: 1 },
      verdict: {
        kind: 'failed',
        reason: 'agent_error',
        message: 'the parrot refuses',
        input_tokens: null,
        output_tokens: null,
        ...usage,
      },
    },
  ],
  quotedUsageLimit: {
    lines: ['{"type":"result","ok":true,"text":"It said: you have reached your usage limit."}'],
  },
});

const spec = (cwd: string, over: Record<string, unknown> = {}) => ({
  prompt: 'Polly hello\nand more',
  cwd,
  permission_mode: 'full-auto' as const,
  on_input: 'wait' as const,
  cli_version: '1.0.0',
  scratch_dir: join(cwd, '.scratch'),
  platform: process.platform,
  is_root: false,
  ...over,
});

describe('the parrot adapter against its fake CLI', () => {
  it('plans a run the CLI understands, and restricted really writes nothing', async () => {
    const cwd = tempDir();
    const plan = parrotAdapter.planRun(spec(cwd));
    if (!plan.ok) throw new Error(plan.message);
    const r = await runAgent({ adapter: parrotAdapter, binary: CLI, plan: plan.plan, cwd });
    expect(r.verdict).toEqual({
      kind: 'succeeded',
      result_text: 'repeated: Polly hello',
      input_tokens: 20,
      output_tokens: 11,
      ...usage,
    });
    expect(r.events[0]).toEqual({ type: 'output', text: 'parrot heard 20 characters' });
    expect(readFileSync(join(cwd, 'PARROT.md'), 'utf8')).toBe('Polly hello\nand more\n');

    const ro = tempDir();
    const restricted = parrotAdapter.planRun(
      spec(ro, { permission_mode: 'restricted', model: 'macaw' }),
    );
    if (!restricted.ok) throw new Error(restricted.message);
    const r2 = await runAgent({
      adapter: parrotAdapter,
      binary: CLI,
      plan: restricted.plan,
      cwd: ro,
    });
    expect(r2.verdict.kind).toBe('succeeded');
    expect(r2.events[0]).toEqual({ type: 'output', text: 'macaw heard 20 characters' });
    expect(existsSync(join(ro, 'PARROT.md'))).toBe(false);
  });

  it('probes version and models through the runner the kernel supplies', async () => {
    const { spawnSync } = await import('node:child_process');
    const probe = await parrotAdapter.probe({
      path: CLI,
      run: async (c) => {
        const r = spawnSync(CLI, [...c.args], { encoding: 'utf8', timeout: c.timeout_ms });
        return {
          kind: 'exited',
          code: r.status,
          signal: r.signal,
          stdout: r.stdout,
          stderr: r.stderr,
        };
      },
    });
    expect(probe).toEqual({
      version: '1.0.0',
      logged_in: null,
      models: ['parrot', 'macaw', 'cockatoo'],
      efforts: null,
      probe_error: null,
    });
  });
});

describe('the parrot adapter in the daemon, loaded through plugins:', () => {
  const config = `plugins:\n  - ${PLUGIN}\nagents:\n  parrot:\n    path: ${CLI}\n`;
  const workflow =
    'name: parrot\nsteps:\n  - id: talk\n    type: agent\n    agent: parrot\n    model: macaw\n    prompt: "Say {{.Task.Title}}"\n';

  it('is registered, probed and offered to workflows', async () => {
    const t = await buildTestApp({ config });
    const info = await t.json<{
      plugins: Array<{ name: string; source: string; provides: string[] }>;
    }>('GET', '/v1/info');
    expect(info.plugins.find((p) => p.name === 'example:agents/parrot')).toMatchObject({
      source: 'config',
    });
    const doctor = await t.json<{ agents: Array<Record<string, unknown>> }>('GET', '/v1/doctor');
    expect(doctor.agents.find((a) => a.name === 'parrot')).toMatchObject({
      available: true,
      path: CLI,
      version: '1.0.0',
      version_verdict: 'tested',
      tested_versions: '1.0.0',
      restricted_verdict: 'supported',
    });
    const schema = await t.json<{ values: { agents: string[] } }>('GET', '/v1/workflows/schema');
    expect(schema.values.agents).toContain('parrot');
    const ok = await t.json<{ valid: boolean }>('POST', '/v1/workflows/validate', {
      yaml: workflow,
    });
    expect(ok.valid).toBe(true);
  });

  it('runs an agent step with it, in the task’s worktree', async () => {
    const t = await buildTestApp({ config });
    const { project } = await addProject(t, { parrot: workflow });
    const task = await createTask(t, {
      project_id: project.id,
      title: 'hello',
      workflow: 'parrot',
    });
    const done = await waitState(t, task.id, 'done');
    const runs = await t.json<Array<Record<string, unknown>>>('GET', `/v1/tasks/${task.id}/steps`);
    expect(runs[0]).toMatchObject({
      agent: 'parrot',
      model: 'macaw',
      state: 'succeeded',
      result_summary: 'repeated: Say hello',
      cost_usd: null,
    });
    expect(readFileSync(join(String(done.worktree_path), 'PARROT.md'), 'utf8')).toBe('Say hello\n');
  });
});
