// SPEC §2.9 "Other top-level fields" and §4.1 GET /v1/info; issue 10 point 7: agents with their
// verdicts (and quota), caps, slots in use, orphan count, database bytes, container runtime,
// version, uptime and plugins.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../kernel/clock/index.js';
import { buildTestApp } from '../../support/app.js';
import { insertProject, insertTask } from '../../support/rows.js';

const FAKE_CLAUDE = fileURLToPath(new URL('../../fixtures/fake-agents/claude', import.meta.url));

interface Info {
  version: string;
  uptime_seconds: number;
  caps: Record<string, number>;
  slots: { tasks: { in_use: number; max: number }; chats: { in_use: number; max: number } };
  orphans: number;
  database: Record<string, unknown>;
  container: { enabled: boolean; image: string; runtime: string };
  agents: Array<Record<string, unknown>>;
  plugins: unknown[];
  update: { enabled: boolean; latest_version: string; update_available: boolean };
}

describe('GET /v1/info', () => {
  it('holds every operational section, computed per request', async () => {
    const clock = new FakeClock();
    const t = await buildTestApp({
      clock,
      config: `max_parallel_tasks: 2\ncontainer:\n  image: example/dev:1\n  runtime: podman\nagents:\n  claude:\n    path: ${FAKE_CLAUDE}\n`,
    });
    await clock.advance('90s');
    const store = t.kernel.services.store;
    const p = insertProject(store);
    insertTask(store, p, { state: 'running' });
    insertTask(store, p, { state: 'awaiting_input' });
    insertTask(store, p, { state: 'awaiting_gate' });
    mkdirSync(join(t.paths.worktreesDir, '77'), { recursive: true });
    const info = await t.json<Info>('GET', '/v1/info');
    expect(info.version).toBe(t.kernel.services.daemon.version);
    expect(info.uptime_seconds).toBe(90);
    expect(info.caps.max_parallel_tasks).toBe(2);
    expect(info.slots).toEqual({ tasks: { in_use: 2, max: 2 }, chats: { in_use: 0, max: 3 } });
    expect(info.orphans).toBe(1);
    expect(Object.keys(info.database).sort()).toEqual([
      'path',
      'shm_bytes',
      'size_bytes',
      'total_bytes',
      'wal_bytes',
    ]);
    expect(info.database.path).toBe(t.paths.dbFile);
    expect(info.container).toEqual({ enabled: true, image: 'example/dev:1', runtime: 'podman' });
    expect(info.plugins.length).toBeGreaterThan(0);
    expect(info.update).toMatchObject({
      enabled: true,
      latest_version: '',
      update_available: false,
    });
    // Agents: availability without spawning anything; verdicts; quota (null until the agents
    // service lands).
    const claude = info.agents.find((a) => a.name === 'claude');
    expect(claude).toMatchObject({
      available: true,
      path: FAKE_CLAUDE,
      version_verdict: '',
      restricted_verdict: 'supported',
      quota: null,
    });
    // After the doctor probed, info serves the cached version and verdict.
    await t.json('GET', '/v1/doctor');
    const again = await t.json<Info>('GET', '/v1/info');
    expect(again.agents.find((a) => a.name === 'claude')).toMatchObject({
      version: '2.1.330',
      version_verdict: 'tested',
    });
  });
});
