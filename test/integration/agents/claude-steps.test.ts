// Issue 6 point 4: agent steps through the daemon with the fake claude — success only on exit 0 +
// a non-error result + a passing check; tokens, cost and agent/model/effort on the row; `.Steps`
// carrying results into later templates; failures keeping the verdict's reason; timeouts, the
// transcript cap, a missing CLI, restricted runs, and `debug: true` annotations.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeClock } from '../../../kernel/clock/index.js';
import {
  agentConfig,
  agentWorkflow,
  FAKE_BINARIES,
  records,
  stepRuns,
  transcript,
} from '../../support/agents.js';
import { buildTestApp, waitFor } from '../../support/app.js';
import { addProject, createTask, getTask, waitState } from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';

async function run(
  knobs: Record<string, string>,
  step: Record<string, unknown> = {},
  opts: { extra?: string; task?: Record<string, unknown>; paths?: Record<string, string> } = {},
) {
  const t = await buildTestApp({ config: agentConfig(knobs, opts.extra ?? '', opts.paths) });
  const { project, repo } = await addProject(t, {
    one: agentWorkflow('one', { agent: 'claude', max_retries: 0, ...step }),
  });
  const task = await createTask(t, {
    project_id: project.id,
    title: 'hello',
    workflow: 'one',
    ...opts.task,
  });
  return { t, task, project, repo };
}

describe('agent steps on claude', () => {
  it('succeed with the result, tokens, cost and agent on the row, and the CLI stream in the transcript', async () => {
    const { t, task } = await run({ FAKE_CLAUDE_SCENARIO: 'edit' });
    const done = await waitState(t, task.id, ['done', 'blocked']);
    expect(done.state).toBe('done');
    const [row] = await stepRuns(t, task.id);
    expect(row).toMatchObject({
      step_id: 'work',
      state: 'succeeded',
      agent: 'claude',
      model: null,
      effort: null,
      exit_code: 0,
      result_summary: 'done: Do hello',
      input_tokens: 100,
      output_tokens: 42,
      cost_usd: 0.0123,
    });
    expect(readFileSync(join(done.worktree_path as string, 'fake-edit.txt'), 'utf8')).toBe(
      'edited by fake claude\n',
    );
    const lines = await transcript(t, task.id, row?.id as number);
    // the CLI's own lines, verbatim, between svc annotations
    expect(lines.map((l) => l.type)).toEqual(
      expect.arrayContaining(['svc.step_started', 'system', 'assistant', 'user', 'result']),
    );
    expect(lines.find((l) => l.type === 'result')).toMatchObject({ total_cost_usd: 0.0123 });
    expect(lines.some((l) => l.type === 'svc.agent_debug')).toBe(false);
    expect(lines.find((l) => l.type === 'svc.command_started')).toMatchObject({
      command: 'claude (full-auto)',
    });
  });

  it('carry the result into later steps through .Steps', async () => {
    const t = await buildTestApp({ config: agentConfig() });
    const { project } = await addProject(t, {
      two: `name: two
steps:
  - id: plan
    type: agent
    agent: claude
    prompt: Plan {{.Task.Title}}
  - id: build
    type: agent
    agent: claude
    prompt: "Build from: {{.Steps.plan.Result}} ({{.Steps.plan.Status}})"
`,
    });
    const task = await createTask(t, { project_id: project.id, title: 'x', workflow: 'two' });
    await waitState(t, task.id, 'done');
    const rows = await stepRuns(t, task.id);
    expect(rows.map((r) => r.result_summary)).toEqual([
      'done: Plan x',
      'done: Build from: done: Plan x (succeeded)',
    ]);
  });

  it('pass the resolved model and effort, a fresh session each step, and no prompt on argv', async () => {
    const log = join(tempDir(), 'rec.jsonl');
    const t = await buildTestApp({ config: agentConfig({ FAKE_CLAUDE_RECORD: log }) });
    const { project } = await addProject(t, {
      tuned: `name: tuned
defaults:
  agent: claude
  model: sonnet
  effort: high
steps:
  - id: a
    type: agent
    prompt: first secret-prompt-text
  - id: b
    type: agent
    model: opus
    prompt: second
`,
    });
    const task = await createTask(t, {
      project_id: project.id,
      title: 'x',
      workflow: 'tuned',
      effort: 'low',
    });
    await waitState(t, task.id, 'done');
    const rows = await stepRuns(t, task.id);
    expect(rows.map((r) => [r.agent, r.model, r.effort])).toEqual([
      ['claude', 'sonnet', 'low'],
      ['claude', 'opus', 'low'],
    ]);
    const starts = records(log).filter(
      (r) => r.event === 'start' && (r.argv as string[]).includes('-p'),
    );
    const runs = starts.filter((r) => (r.argv as string[]).includes('--permission-prompt-tool'));
    expect(runs).toHaveLength(2);
    const [a, b] = runs.map((r) => r.argv as string[]);
    expect(a).toEqual(expect.arrayContaining(['--model', 'sonnet', '--effort', 'low']));
    expect(b).toEqual(expect.arrayContaining(['--model', 'opus', '--effort', 'low']));
    for (const argv of [a, b]) {
      expect(argv).not.toContain('--resume');
      expect(argv.join(' ')).not.toContain('secret-prompt-text');
      expect(argv).toContain('--dangerously-skip-permissions');
    }
    expect(JSON.stringify(records(log).filter((r) => r.event === 'stdin'))).toContain(
      'secret-prompt-text',
    );
  });

  it('run restricted on a restricted task: no permission bypass, the allowed tools only', async () => {
    const log = join(tempDir(), 'rec.jsonl');
    const { t, task } = await run({ FAKE_CLAUDE_RECORD: log }, {}, { task: { restricted: true } });
    await waitState(t, task.id, 'done');
    const argv = records(log).find(
      (r) => r.event === 'start' && (r.argv as string[]).includes('--permission-prompt-tool'),
    )?.argv as string[];
    expect(argv).not.toContain('--dangerously-skip-permissions');
    expect(argv).toEqual(
      expect.arrayContaining(['--permission-mode', 'default', '--allowedTools']),
    );
  });

  it('record agent, model, effort, permission mode, cwd and argv in the transcript with debug: true', async () => {
    const { t, task } = await run({}, { model: 'sonnet' }, { extra: 'debug: true\n' });
    const done = await waitState(t, task.id, 'done');
    const [row] = await stepRuns(t, task.id);
    const lines = await transcript(t, task.id, row?.id as number);
    const debug = lines.find((l) => l.type === 'svc.agent_debug');
    expect(debug).toMatchObject({
      agent: { value: 'claude', source: 'step' },
      model: { value: 'sonnet', source: 'step' },
      effort: { value: '', source: 'adapter' },
      permission_mode: 'full-auto',
      on_input: 'wait',
      cwd: done.worktree_path,
      cli_version: '2.1.330',
    });
    expect((debug?.argv as string[] | undefined)?.[0]).toBe(FAKE_BINARIES.claude);
    expect(debug?.argv).toEqual(expect.arrayContaining(['-p', '--model', 'sonnet']));
    expect(lines.find((l) => l.type === 'svc.command_started')?.command).toContain('-p');
  });

  it('fail agent_error on an error result, whatever the exit code, and block step_failed', async () => {
    const { t, task } = await run({ FAKE_CLAUDE_SCENARIO: 'fail' });
    const blocked = await waitState(t, task.id, 'blocked');
    expect(blocked.block_reason).toBe('step_failed');
    expect(blocked.block_detail).toContain('agent_error at step work');
    const [row] = await stepRuns(t, task.id);
    expect(row).toMatchObject({
      state: 'failed',
      failure_reason: 'agent_error',
      exit_code: 1,
      result_summary: 'API Error: 500 fake failure',
    });
  });

  it('spend the retry budget on failures, then block', async () => {
    const { t, task } = await run({ FAKE_CLAUDE_SCENARIO: 'fail' }, { max_retries: 1 });
    await waitState(t, task.id, 'blocked');
    expect((await stepRuns(t, task.id)).map((r) => [r.attempt, r.failure_reason])).toEqual([
      [1, 'agent_error'],
      [2, 'agent_error'],
    ]);
  });

  it('fail agent_unauthenticated on an auth failure without sitting out the retries', async () => {
    const { t, task } = await run({ FAKE_CLAUDE_SCENARIO: 'unauthenticated' });
    const blocked = await waitState(t, task.id, 'blocked');
    expect(blocked.block_reason).toBe('agent_unauthenticated');
    expect((await stepRuns(t, task.id))[0]?.failure_reason).toBe('agent_unauthenticated');
  });

  it('fail nonzero_exit when a successful result is followed by a failing exit', async () => {
    const { t, task } = await run({
      FAKE_CLAUDE_SCENARIO: 'exit-nonzero',
      FAKE_CLAUDE_EXIT_CODE: '4',
    });
    await waitState(t, task.id, 'blocked');
    expect((await stepRuns(t, task.id))[0]).toMatchObject({
      failure_reason: 'nonzero_exit',
      exit_code: 4,
    });
  });

  it('fail when the stream ends without a result (a crash), naming it', async () => {
    const { t, task } = await run({ FAKE_CLAUDE_SCENARIO: 'crash' });
    await waitState(t, task.id, 'blocked');
    const [row] = await stepRuns(t, task.id);
    expect(row?.failure_reason).toBe('nonzero_exit');
    expect(row?.result_summary).toMatch(/^stream ended without a result event/);
  });

  it('fail agent_unavailable without spawning when the CLI is missing', async () => {
    const { t, task } = await run({}, {}, { paths: { claude: '/nonexistent/bin/claude' } });
    const blocked = await waitState(t, task.id, 'blocked');
    expect(blocked.block_reason).toBe('agent_unavailable');
    const [row] = await stepRuns(t, task.id);
    expect(row).toMatchObject({ failure_reason: 'agent_unavailable', exit_code: null });
    expect(row?.result_summary).toContain('/nonexistent/bin/claude');
  });

  it('then run the check: success needs it to pass', async () => {
    const ok = await run({ FAKE_CLAUDE_SCENARIO: 'edit' }, { check: 'test -f fake-edit.txt' });
    await waitState(ok.t, ok.task.id, 'done');
    expect((await stepRuns(ok.t, ok.task.id))[0]).toMatchObject({
      state: 'succeeded',
      check_exit_code: 0,
    });
    const bad = await run({}, { check: 'exit 7' });
    const blocked = await waitState(bad.t, bad.task.id, 'blocked');
    expect(blocked.block_reason).toBe('step_failed');
    expect((await stepRuns(bad.t, bad.task.id))[0]).toMatchObject({
      failure_reason: 'check_failed',
      exit_code: 0,
      check_exit_code: 7,
      cost_usd: 0.0123,
    });
  });

  it('time out after the step timeout on the daemon clock, killing the CLI', async () => {
    const { t, task } = await run({ FAKE_CLAUDE_SCENARIO: 'hang' }, { timeout: '5m' });
    await waitFor(async () => (await stepRuns(t, task.id))[0]?.pid);
    await (t.clock as FakeClock).advance('5m');
    const blocked = await waitState(t, task.id, 'blocked');
    expect(blocked.block_reason).toBe('timeout');
    expect((await stepRuns(t, task.id))[0]?.failure_reason).toBe('timeout');
  });

  it('time out after defaults.agent_timeout when the workflow sets none', async () => {
    const { t, task } = await run(
      { FAKE_CLAUDE_SCENARIO: 'hang' },
      {},
      { extra: 'defaults:\n  agent_timeout: 2m\n' },
    );
    await waitFor(async () => (await stepRuns(t, task.id))[0]?.pid);
    await (t.clock as FakeClock).advance('119s');
    expect((await getTask(t, task.id)).state).toBe('running');
    await (t.clock as FakeClock).advance('1s');
    expect((await waitState(t, task.id, 'blocked')).block_reason).toBe('timeout');
  });

  it('fail transcript_limit when the stream passes transcript_max_bytes', async () => {
    const { t, task } = await run(
      { FAKE_CLAUDE_SCENARIO: 'huge', FAKE_CLAUDE_BYTES: '400000' },
      {},
      { extra: 'transcript_max_bytes: 100KB\n' },
    );
    const blocked = await waitState(t, task.id, 'blocked');
    expect(blocked.block_reason).toBe('transcript_limit');
  });

  it('publish the stream as live agent events on the task stream', async () => {
    const { t, task } = await run({ FAKE_CLAUDE_SCENARIO: 'slow', FAKE_CLAUDE_DELAY_MS: '400' });
    const seen: Array<{ kind: string; data: Record<string, unknown> }> = [];
    const off = t.kernel.services.events.subscribeLive((c) => {
      if (c.task_id === task.id) seen.push({ kind: c.kind, data: c.data });
    });
    await waitState(t, task.id, 'done');
    off();
    const kinds = new Set(seen.map((s) => s.kind));
    expect(kinds).toEqual(
      new Set(['agent.output', 'agent.tool_use', 'agent.tool_result', 'agent.usage']),
    );
    expect(seen.filter((s) => s.kind === 'agent.output').map((s) => s.data.text)).toContain(
      'still working (2/4)',
    );
    expect(seen.find((s) => s.kind === 'agent.tool_use')?.data).toMatchObject({
      tools: [{ name: 'Bash', summary: 'echo fake' }],
    });
  });
});
