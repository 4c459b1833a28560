// SPEC §2.10 `transcript_retention_days`, §8 (pruner at start and every 24 h, idempotency keys
// 24 h); issue 10 point 4: archived tasks only, measured from archived_at, rows kept.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeClock, formatMs } from '../../../kernel/clock/index.js';
import { buildTestApp, type TestApp } from '../../support/app.js';
import { insertProject, insertStepRun, insertTask } from '../../support/rows.js';
import { tempDir } from '../../support/tmp.js';

const DAY = 24 * 60 * 60 * 1000;
const START = Date.UTC(2026, 10, 21, 12, 0, 0);

/** Tasks written before the daemon starts, so the pass at start sees them. */
async function install(config: string) {
  const root = tempDir();
  const seed = await buildTestApp({
    root,
    keepOpen: true,
    kernel: { startOps: false, startEngine: false },
  });
  const store = seed.kernel.services.store;
  const p = insertProject(store);
  const mk = (state: 'archived' | 'done', archivedDaysAgo: number | null) => {
    const id = insertTask(store, p, {
      state,
      archived_at: archivedDaysAgo === null ? null : formatMs(START - archivedDaysAgo * DAY),
    });
    const run = insertStepRun(store, seed.paths.transcriptsDir, id, { lines: [`{"task":${id}}`] });
    insertStepRun(store, seed.paths.transcriptsDir, id, { attempt: 2, lines: ['{"again":true}'] });
    insertStepRun(store, seed.paths.transcriptsDir, id, {
      step_id: 'gate',
      step_index: 1,
      transcript_path: null,
    });
    return { id, transcript: run.transcript as string };
  };
  const tasks = {
    old: mk('archived', 91),
    recent: mk('archived', 89),
    done: mk('done', null),
  };
  const keys = seed.kernel.services.store.db.prepare(
    'INSERT INTO idempotency_keys (route, key, digest, task_id, created_at) VALUES (?, ?, ?, NULL, ?)',
  );
  keys.run('POST /v1/tasks', 'old', 'd', formatMs(START - DAY - 1000));
  keys.run('POST /v1/tasks', 'fresh', 'd', formatMs(START - DAY + 60_000));
  await seed.close();
  const clock = new FakeClock(START);
  const t = await buildTestApp({ root, clock, config });
  await t.kernel.services.retention.whenIdle();
  return { t, clock, tasks };
}

const transcriptOf = (t: TestApp, id: number) =>
  t.kernel.services.store.db
    .prepare('SELECT transcript_path FROM step_runs WHERE task_id = ? ORDER BY id')
    .pluck()
    .all(id);

describe('transcript retention', () => {
  it('at start, prunes transcripts of tasks archived longer ago than the retention, keeping every row', async () => {
    const { t, tasks } = await install('transcript_retention_days: 90\n');
    expect(existsSync(join(t.paths.transcriptsDir, String(tasks.old.id)))).toBe(false);
    expect(transcriptOf(t, tasks.old.id)).toEqual([null, null, null]);
    const steps = await t.json<Array<{ has_transcript: boolean; state: string }>>(
      'GET',
      `/v1/tasks/${tasks.old.id}/steps`,
    );
    expect(steps).toHaveLength(3);
    expect(steps.every((s) => !s.has_transcript)).toBe(true);
    const runId = t.kernel.services.store.db
      .prepare('SELECT id FROM step_runs WHERE task_id = ? ORDER BY id LIMIT 1')
      .pluck()
      .get(tasks.old.id);
    expect(
      (await t.api('GET', `/v1/tasks/${tasks.old.id}/steps/${runId}/transcript`)).statusCode,
    ).toBe(404);
    // Recent archives and unarchived tasks keep theirs.
    expect(existsSync(tasks.recent.transcript)).toBe(true);
    expect(existsSync(tasks.done.transcript)).toBe(true);
  });

  it('prunes again every 24 h as archives age past the retention', async () => {
    const { t, clock, tasks } = await install('transcript_retention_days: 90\n');
    await clock.advance('23h');
    await t.kernel.services.retention.whenIdle();
    expect(existsSync(tasks.recent.transcript)).toBe(true);
    await clock.advance('1h');
    await t.kernel.services.retention.whenIdle();
    // The second pass (day 1) is past the 89-day-old archive's 90th day.
    expect(existsSync(tasks.recent.transcript)).toBe(false);
    expect(transcriptOf(t, tasks.recent.id)).toEqual([null, null, null]);
    expect(existsSync(tasks.done.transcript)).toBe(true);
  });

  it('keeps everything at 0, and still drops idempotency keys older than 24 h', async () => {
    const { t, tasks } = await install('transcript_retention_days: 0\n');
    expect(existsSync(tasks.old.transcript)).toBe(true);
    const keys = t.kernel.services.store.db
      .prepare('SELECT key FROM idempotency_keys ORDER BY key')
      .pluck()
      .all();
    expect(keys).toEqual(['fresh']);
  });
});
