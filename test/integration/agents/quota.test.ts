// Issue 6 point 6: quota readings (SPEC §2.4, §4.1). claude's are pushed to
// POST /v1/agents/{name}/quota (204, 404, 400), codex's are read from its app-server at most every
// 5 minutes on ordinary requests (refresh=true forces), readings live in memory only, a reading
// wins over an observation, and every change is an agent.quota_changed event.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeClock } from '../../../kernel/clock/index.js';
import { agentConfig, agentWorkflow, quotaEvents, records } from '../../support/agents.js';
import { buildTestApp, type TestApp } from '../../support/app.js';
import { addProject, createTask, waitState } from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';

async function quotaOf(t: TestApp, agent: string, query = '') {
  const { agents } = await t.json<{ agents: Array<{ name: string; quota: unknown }> }>(
    'GET',
    `/v1/agents${query}`,
  );
  return agents.find((a) => a.name === agent)?.quota as Record<string, unknown> | null;
}

function push(t: TestApp, agent: string, body: unknown) {
  return t.api('POST', `/v1/agents/${agent}/quota`, body, { 'content-type': 'application/json' });
}

const iso = (ms: number) => new Date(ms).toISOString();

describe('POST /v1/agents/{name}/quota', () => {
  it('takes a push (204) and serves the tightest window as the block', async () => {
    const t = await buildTestApp({ config: agentConfig() });
    const soon = iso(t.clock.now() + 3_600_000);
    const later = iso(t.clock.now() + 7 * 86_400_000);
    const res = await push(t, 'claude', {
      source: 'claude_status_line',
      windows: [
        { name: 'five_hour', used_percent: 42, window: '5h', resets_at: soon },
        { name: 'seven_day', used_percent: 97.5, window: '7d', resets_at: later },
      ],
    });
    expect(res.statusCode, res.body).toBe(204);
    expect(res.body).toBe('');
    expect(await quotaOf(t, 'claude')).toEqual({
      spent: false,
      used_percent: 97.5,
      window: '7d',
      observed_at: iso(t.clock.now()),
      resets_at: later,
      resets_at_reported: true,
      source: 'claude_status_line',
      windows: [
        {
          name: 'five_hour',
          used_percent: 42,
          window: '5h',
          resets_at: soon,
          resets_at_reported: true,
        },
        {
          name: 'seven_day',
          used_percent: 97.5,
          window: '7d',
          resets_at: later,
          resets_at_reported: true,
        },
      ],
    });
    expect(quotaEvents(t)).toHaveLength(1);
    expect(quotaEvents(t)[0]).toMatchObject({ agent: 'claude', quota: { used_percent: 97.5 } });
  });

  it('is spent at 100%, breaks ties by the earliest reset, and writes a window without reset as the zero time', async () => {
    const t = await buildTestApp({ config: agentConfig() });
    const a = iso(t.clock.now() + 2 * 3_600_000);
    const b = iso(t.clock.now() + 3_600_000);
    await push(t, 'claude', {
      source: 'claude_status_line',
      windows: [
        { name: 'x', used_percent: 100, window: null },
        { name: 'y', used_percent: 100, window: '7d', resets_at: a },
        { name: 'z', used_percent: 100, window: '5h', resets_at: b },
      ],
    });
    const q = await quotaOf(t, 'claude');
    expect(q).toMatchObject({ spent: true, used_percent: 100, window: '5h', resets_at: b });
    expect((q?.windows as Array<Record<string, unknown>> | undefined)?.[0]).toEqual({
      name: 'x',
      used_percent: 100,
      window: null,
      resets_at: '0001-01-01T00:00:00Z',
      resets_at_reported: false,
    });
  });

  it("accepts claude's raw status-line document, so a status-line script can forward its stdin", async () => {
    const t = await buildTestApp({ config: agentConfig() });
    const reset = Math.floor(t.clock.now() / 1000) + 600;
    const res = await push(t, 'claude', {
      rate_limits: { five_hour: { used_percentage: 12, resets_at: reset } },
    });
    expect(res.statusCode, res.body).toBe(204);
    expect(await quotaOf(t, 'claude')).toMatchObject({
      used_percent: 12,
      window: '5h',
      resets_at: iso(reset * 1000),
      source: 'claude_status_line',
    });
  });

  it('answers 404 for an unknown adapter and 400 for a body naming no window', async () => {
    const t = await buildTestApp({ config: agentConfig() });
    const unknown = await push(t, 'gemini', {
      source: 'x',
      windows: [{ name: 'a', used_percent: 1 }],
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('not_found');
    for (const [agent, body] of [
      ['claude', { source: 'claude_status_line', windows: [] }],
      ['claude', { source: 'claude_status_line' }],
      ['claude', { source: 'elsewhere', windows: [{ name: 'a', used_percent: 1 }] }],
      ['codex', { source: 'script', windows: [] }],
      [
        'codex',
        { source: 'script', windows: [{ name: 'a', used_percent: 1, resets_at: '0001-01-01' }] },
      ],
    ] as const) {
      const res = await push(t, agent, body);
      expect(res.statusCode, `${agent} ${JSON.stringify(body)}`).toBe(400);
      expect(res.json().error.code).toBe('validation_failed');
    }
    expect(await quotaOf(t, 'claude')).toBeNull();
    expect(quotaEvents(t)).toEqual([]);
  });

  it('announces a change, not a repeat', async () => {
    const t = await buildTestApp({ config: agentConfig() });
    const body = {
      source: 'claude_status_line',
      windows: [{ name: 'five_hour', used_percent: 5, window: '5h' }],
    };
    await push(t, 'claude', body);
    await push(t, 'claude', body);
    expect(quotaEvents(t)).toHaveLength(1);
    await (t.clock as FakeClock).advance('1m');
    await push(t, 'claude', { ...body, windows: [{ ...body.windows[0], used_percent: 6 }] });
    expect(quotaEvents(t)).toHaveLength(2);
  });

  it('a reading wins over an observation, which stays underneath', async () => {
    const t = await buildTestApp({
      config: agentConfig(
        { FAKE_CLAUDE_SCENARIO: 'usage-limit-no-reset' },
        'usage_limit_auto_continue: never\n',
      ),
    });
    const { project } = await addProject(t, { one: agentWorkflow('one', { agent: 'claude' }) });
    const task = await createTask(t, { project_id: project.id, title: 'x', workflow: 'one' });
    await waitState(t, task.id, 'blocked');
    expect(await quotaOf(t, 'claude')).toMatchObject({ source: 'observed' });
    await push(t, 'claude', {
      source: 'claude_status_line',
      windows: [{ name: 'five_hour', used_percent: 100, window: '5h' }],
    });
    expect(await quotaOf(t, 'claude')).toMatchObject({
      source: 'claude_status_line',
      used_percent: 100,
      spent: true,
    });
    // readings live in memory only: after a restart the stored observation is what remains
    const root = t.paths.dataDir.replace(/\/data$/, '');
    await t.close();
    const again = await buildTestApp({ root, config: agentConfig() });
    expect(await quotaOf(again, 'claude')).toMatchObject({ source: 'observed', spent: true });
  });
});

describe('the codex app-server reading', () => {
  it('is read on an ordinary request at most every 5 minutes; refresh=true reads at once', async () => {
    const log = join(tempDir(), 'rec.jsonl');
    const t = await buildTestApp({
      config: agentConfig({ FAKE_CODEX_QUOTA: 'reading', FAKE_CODEX_RECORD: log }),
    });
    // app-server runs: one per full probe (the model list) plus one per quota read
    const reads = () =>
      records(log).filter((r) => r.event === 'start' && (r.argv as string[])[0] === 'app-server')
        .length;
    const q = await quotaOf(t, 'codex');
    expect(q).toMatchObject({
      spent: false,
      used_percent: 42,
      window: '5h',
      resets_at_reported: true,
      source: 'codex_app_server',
    });
    expect((q?.windows as Array<{ name: string }> | undefined)?.map((w) => w.name)).toEqual([
      'primary',
      'secondary',
    ]);
    expect(reads()).toBe(2);
    await (t.clock as FakeClock).advance('4m');
    await quotaOf(t, 'codex');
    expect(reads()).toBe(2);
    await (t.clock as FakeClock).advance('1m');
    await quotaOf(t, 'codex');
    expect(reads()).toBe(3);
    // a forced refresh re-probes and re-reads
    await quotaOf(t, 'codex', '?refresh=true');
    expect(reads()).toBe(5);
    // /v1/info serves the same block without reading again
    const info = await t.json<{ agents: Array<{ name: string; quota: unknown }> }>(
      'GET',
      '/v1/info',
    );
    expect(info.agents.find((a) => a.name === 'codex')?.quota).toMatchObject({
      source: 'codex_app_server',
      used_percent: 42,
    });
    expect(reads()).toBe(5);
  });

  it('keeps the last reading when a read fails, and drops it when the source says there is none', async () => {
    const t = await buildTestApp({ config: agentConfig({ FAKE_CODEX_QUOTA: 'reading' }) });
    expect(await quotaOf(t, 'codex')).toMatchObject({ used_percent: 42 });
    const set = (v: string) =>
      t.api(
        'PATCH',
        '/v1/config',
        { environment: { set: { FAKE_CODEX_QUOTA: v } } },
        { 'content-type': 'application/json' },
      );
    await set('error');
    expect(await quotaOf(t, 'codex', '?refresh=true')).toMatchObject({ used_percent: 42 });
    await set('none');
    expect(await quotaOf(t, 'codex', '?refresh=true')).toBeNull();
    // a failed or empty read never fails the probe
    const { agents } = await t.json<{ agents: Array<{ name: string; probe_error: unknown }> }>(
      'GET',
      '/v1/agents',
    );
    expect(agents.find((a) => a.name === 'codex')?.probe_error).toBeNull();
  });
});
