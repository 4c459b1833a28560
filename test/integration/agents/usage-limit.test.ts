// Issue 6 point 6: usage-limit stops (SPEC §3.2, §2.4, §2.10). The attempt is recorded
// interrupted and consumes no retry; per usage_limit_auto_continue the task re-queues with
// queued_reason usage_limit and admit_not_before (the named reset, else the recheck interval) or
// blocks usage_limit. The stop is an observation in the quota block until the next successful step
// on that adapter. codex and cursor are inert to the key (decision 043).
import { describe, expect, it } from 'vitest';
import type { FakeClock } from '../../../kernel/clock/index.js';
import { agentConfig, agentWorkflow, quotaEvents, stepRuns } from '../../support/agents.js';
import { buildTestApp, type TestApp } from '../../support/app.js';
import { addProject, createTask, getTask, waitState } from '../../support/tasks.js';

type Mode = 'always' | 'reported_only' | 'never';

async function limited(
  agent: 'claude' | 'codex' | 'cursor',
  scenario: 'usage-limit' | 'usage-limit-no-reset',
  mode: Mode,
  extra = '',
) {
  const knob = `FAKE_${agent === 'cursor' ? 'CURSOR' : agent.toUpperCase()}_SCENARIO`;
  const t = await buildTestApp({
    config: agentConfig({ [knob]: scenario }, `usage_limit_auto_continue: ${mode}\n${extra}`),
  });
  const { project } = await addProject(t, {
    one: agentWorkflow('one', { agent, max_retries: 0 }),
  });
  const task = await createTask(t, { project_id: project.id, title: 'x', workflow: 'one' });
  return { t, task: await settled(t, task.id), knob };
}

/** Polls until the task left running: blocked, done, or queued on a clock. */
async function settled(t: TestApp, id: number) {
  for (let i = 0; i < 500; i++) {
    const now = await getTask(t, id);
    if (now.state === 'blocked' || now.state === 'done') return now;
    if (now.state === 'queued' && now.queued_reason !== null) return now;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`task ${id} never settled`);
}

async function quotaOf(t: TestApp, agent: string) {
  const { agents } = await t.json<{ agents: Array<{ name: string; quota: unknown }> }>(
    'GET',
    '/v1/agents',
  );
  return agents.find((a) => a.name === agent)?.quota as Record<string, unknown> | null;
}

const within = (iso: string | null, target: number, slackMs = 61_000) =>
  iso !== null && Math.abs(Date.parse(iso) - target) <= slackMs;

describe('claude usage limits', () => {
  it('always, reset named: queued until the reset, the attempt interrupted, no retry spent', async () => {
    const { t, task } = await limited('claude', 'usage-limit', 'always');
    expect(task).toMatchObject({ state: 'queued', queued_reason: 'usage_limit' });
    expect(within(task.admit_not_before, Date.now() + 3_600_000)).toBe(true);
    const [row] = await stepRuns(t, task.id);
    expect(row).toMatchObject({ state: 'interrupted', failure_reason: 'usage_limit' });
    expect(row?.result_summary).toMatch(/^You've hit your limit/);
  });

  it('always, no reset named: queued for usage_limit_recheck_interval', async () => {
    const { t, task } = await limited(
      'claude',
      'usage-limit-no-reset',
      'always',
      'usage_limit_recheck_interval: 20m\n',
    );
    expect(task).toMatchObject({ state: 'queued', queued_reason: 'usage_limit' });
    expect(task.admit_not_before).toBe(new Date(t.clock.now() + 20 * 60_000).toISOString());
  });

  it('reported_only waits for a named reset and blocks on an estimate', async () => {
    const named = await limited('claude', 'usage-limit', 'reported_only');
    expect(named.task).toMatchObject({ state: 'queued', queued_reason: 'usage_limit' });
    const estimate = await limited('claude', 'usage-limit-no-reset', 'reported_only');
    expect(estimate.task).toMatchObject({ state: 'blocked', block_reason: 'usage_limit' });
  });

  it('never blocks usage_limit whether or not the reset was named', async () => {
    for (const scenario of ['usage-limit', 'usage-limit-no-reset'] as const) {
      const { t, task } = await limited('claude', scenario, 'never');
      expect(task).toMatchObject({ state: 'blocked', block_reason: 'usage_limit' });
      expect((await stepRuns(t, task.id))[0]?.state).toBe('interrupted');
    }
  });

  it('re-admits at the reset, unattended, and the next success deletes the observation', async () => {
    const { t, task, knob } = await limited('claude', 'usage-limit', 'always');
    const spent = await quotaOf(t, 'claude');
    expect(spent).toEqual({
      spent: true,
      used_percent: null,
      window: null,
      observed_at: expect.any(String),
      resets_at: task.admit_not_before,
      resets_at_reported: true,
      source: 'observed',
      windows: [],
    });
    // The limit is over by the time the clock gets there.
    const patch = await t.api(
      'PATCH',
      '/v1/config',
      { environment: { set: { [knob]: 'success' } } },
      { 'content-type': 'application/json' },
    );
    expect(patch.statusCode, patch.body).toBe(200);
    await (t.clock as FakeClock).advance('59m');
    expect((await getTask(t, task.id)).state).toBe('queued');
    await (t.clock as FakeClock).advance('2m');
    await waitState(t, task.id, 'done');
    // the first attempt was interrupted, the second succeeded: the usage limit spent no retry
    expect((await stepRuns(t, task.id)).map((r) => [r.attempt, r.state])).toEqual([
      [1, 'interrupted'],
      [2, 'succeeded'],
    ]);
    expect(await quotaOf(t, 'claude')).toBeNull();
    expect(
      quotaEvents(t).map((e) => (e.quota as { source?: string } | null)?.source ?? null),
    ).toEqual(['observed', null]);
    expect(quotaEvents(t)[0]).toMatchObject({ agent: 'claude' });
  });

  it('keeps a reset observation as recovered: spent false, timestamps intact, nothing swept', async () => {
    const { t } = await limited('claude', 'usage-limit-no-reset', 'never');
    const before = await quotaOf(t, 'claude');
    expect(before).toMatchObject({ spent: true, resets_at_reported: false, source: 'observed' });
    await (t.clock as FakeClock).advance('20m');
    const after = await quotaOf(t, 'claude');
    expect(after).toEqual({ ...before, spent: false });
  });

  it('survives a restart (observations are stored)', async () => {
    const { t } = await limited('claude', 'usage-limit-no-reset', 'never');
    const before = await quotaOf(t, 'claude');
    const root = t.paths.dataDir.replace(/\/data$/, '');
    await t.close();
    const again = await buildTestApp({ root, config: agentConfig() });
    expect(await quotaOf(again, 'claude')).toEqual(before);
  });
});

describe('codex and cursor usage limits', () => {
  it('codex: recognised, and always waits whatever usage_limit_auto_continue says (the key is inert)', async () => {
    const named = await limited('codex', 'usage-limit', 'never');
    expect(named.task).toMatchObject({ state: 'queued', queued_reason: 'usage_limit' });
    // codex names the reset as local wall-clock minutes
    expect(within(named.task.admit_not_before, Date.now() + 3_600_000)).toBe(true);
    expect(await quotaOf(named.t, 'codex')).toMatchObject({
      spent: true,
      source: 'observed',
      resets_at_reported: true,
    });
    const estimate = await limited('codex', 'usage-limit-no-reset', 'reported_only');
    expect(estimate.task).toMatchObject({ state: 'queued', queued_reason: 'usage_limit' });
    expect((await stepRuns(estimate.t, estimate.task.id))[0]).toMatchObject({
      state: 'interrupted',
      failure_reason: 'usage_limit',
    });
  });

  it('cursor: its wording is unknown, so a limit stays an ordinary failure', async () => {
    const { t, task } = await limited(
      'cursor',
      'usage-limit',
      'always',
      'mcp:\n  wire_steps: false\n',
    );
    expect(task).toMatchObject({ state: 'blocked', block_reason: 'step_failed' });
    expect((await stepRuns(t, task.id))[0]?.failure_reason).toBe('agent_error');
    expect(await quotaOf(t, 'cursor')).toBeNull();
  });
});
