// Issue 6 point 4 for the other two dialects: agent steps on the fake codex and the fake
// cursor-agent through the daemon — success with tokens and no cost, failures keeping the verdict's
// reason, permission modes on argv, an effort cursor has no setting for, a missing result.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentConfig, agentWorkflow, records, stepRuns } from '../../support/agents.js';
import { buildTestApp } from '../../support/app.js';
import { addProject, createTask, waitState } from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';

async function run(
  agent: 'codex' | 'cursor',
  knobs: Record<string, string>,
  step: Record<string, unknown> = {},
  task: Record<string, unknown> = {},
) {
  const log = join(tempDir(), 'rec.jsonl');
  const prefix = agent === 'codex' ? 'FAKE_CODEX' : 'FAKE_CURSOR';
  const t = await buildTestApp({ config: agentConfig({ [`${prefix}_RECORD`]: log, ...knobs }) });
  const { project } = await addProject(t, {
    one: agentWorkflow('one', { agent, max_retries: 0, ...step }),
  });
  const created = await createTask(t, {
    project_id: project.id,
    title: 'hello',
    workflow: 'one',
    ...task,
  });
  const runs = () =>
    records(log)
      .filter(
        (r) =>
          r.event === 'start' &&
          ((r.argv as string[])[0] === 'exec' || (r.argv as string[]).includes('-p')),
      )
      .map((r) => r.argv as string[]);
  return { t, id: created.id, runs };
}

describe('codex steps', () => {
  it('succeed with tokens and no cost, editing the worktree unattended', async () => {
    const { t, id, runs } = await run(
      'codex',
      { FAKE_CODEX_SCENARIO: 'edit' },
      { model: 'gpt-fake-1', effort: 'high' },
    );
    const done = await waitState(t, id, 'done');
    expect((await stepRuns(t, id))[0]).toMatchObject({
      state: 'succeeded',
      agent: 'codex',
      model: 'gpt-fake-1',
      effort: 'high',
      result_summary: 'done: Do hello',
      input_tokens: 100,
      output_tokens: 42,
      cost_usd: null,
    });
    expect(readFileSync(join(done.worktree_path as string, 'fake-edit.txt'), 'utf8')).toContain(
      'codex',
    );
    const [argv] = runs();
    expect(argv).toEqual(
      expect.arrayContaining([
        'exec',
        '--json',
        '--dangerously-bypass-approvals-and-sandbox',
        '--model',
        'gpt-fake-1',
        'model_reasoning_effort="high"',
      ]),
    );
    expect(argv?.join(' ')).not.toContain('Do hello');
  });

  it('run restricted in the workspace-write sandbox on a restricted task', async () => {
    const { t, id, runs } = await run('codex', {}, {}, { restricted: true });
    await waitState(t, id, 'done');
    expect(runs()[0]).toEqual(expect.arrayContaining(['--sandbox', 'workspace-write']));
    expect(runs()[0]).not.toContain('--dangerously-bypass-approvals-and-sandbox');
  });

  it('fail agent_error on turn.failed and agent_unauthenticated on a 401', async () => {
    const failed = await run('codex', { FAKE_CODEX_SCENARIO: 'fail' });
    expect((await waitState(failed.t, failed.id, 'blocked')).block_reason).toBe('step_failed');
    expect((await stepRuns(failed.t, failed.id))[0]).toMatchObject({
      failure_reason: 'agent_error',
      exit_code: 1,
    });
    const auth = await run('codex', { FAKE_CODEX_SCENARIO: 'unauthenticated' });
    expect((await waitState(auth.t, auth.id, 'blocked')).block_reason).toBe(
      'agent_unauthenticated',
    );
  });
});

describe('cursor steps', () => {
  it('succeed with tokens and no cost; the effort is dropped, the model always passed', async () => {
    const { t, id, runs } = await run(
      'cursor',
      { FAKE_CURSOR_SCENARIO: 'edit' },
      { effort: 'high' },
    );
    const done = await waitState(t, id, 'done');
    expect((await stepRuns(t, id))[0]).toMatchObject({
      state: 'succeeded',
      agent: 'cursor',
      effort: null,
      // cursor's result is the whole assistant text of the turn
      result_summary: 'Working on: Do hello\ndone: Do hello',
      input_tokens: 100,
      output_tokens: 42,
      cost_usd: null,
    });
    expect(readFileSync(join(done.worktree_path as string, 'fake-edit.txt'), 'utf8')).not.toBe('');
    const [argv] = runs();
    expect(argv).toEqual(expect.arrayContaining(['-p', '--trust', '--force', '--model', 'auto']));
    expect(argv?.join(' ')).not.toContain('high');
  });

  it('run restricted in its sandbox on Linux', async () => {
    const { t, id, runs } = await run('cursor', {}, { permission_mode: 'restricted' });
    await waitState(t, id, 'done');
    expect(runs()[0]).toEqual(expect.arrayContaining(['--sandbox', 'enabled']));
    expect(runs()[0]).not.toContain('--force');
  });

  it('fail agent_error on an error result, and name the stderr when no result came', async () => {
    const failed = await run('cursor', { FAKE_CURSOR_SCENARIO: 'fail' });
    await waitState(failed.t, failed.id, 'blocked');
    expect((await stepRuns(failed.t, failed.id))[0]?.failure_reason).toBe('agent_error');
    const badModel = await run('cursor', {}, { model: 'fake-nonexistent' });
    await waitState(badModel.t, badModel.id, 'blocked');
    const [row] = await stepRuns(badModel.t, badModel.id);
    expect(row?.failure_reason).toBe('nonzero_exit');
    expect(row?.result_summary).toMatch(
      /stream ended without a result event.*Model name is not valid/s,
    );
  });
});
