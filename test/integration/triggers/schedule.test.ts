// Issue 8 point 3: schedule sources on croner with the anchored, injected clock: arming anchors
// (nothing due before fires), each occurrence fires as the clock reaches it, a restart fires the
// occurrences missed while down once, and re-arming re-anchors.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../kernel/clock/index.js';
import { buildTestApp, type TestApp } from '../../support/app.js';
import { addProject } from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';
import { CREATE_OK, WORKFLOWS } from '../../support/triggers.js';

const CONFIG = 'triggers:\n  enabled: true\n';

function schedule(projectId: number, enabled = true) {
  return `id: hourly\nenabled: ${enabled}\nproject_id: ${projectId}\nsource:\n  type: schedule\n  cron: "0 * * * *"\n  timezone: UTC\naction:\n${CREATE_OK}`;
}

async function put(t: TestApp, yaml: string) {
  const { writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  writeFileSync(join(t.paths.triggersDir, 'hourly.yaml'), yaml, { mode: 0o600 });
  t.kernel.services.triggers.reload('file');
  await t.kernel.services.triggers.idle();
}

async function ledger(t: TestApp) {
  return (
    await t.json<{ deliveries: Array<{ event_id: string; outcome: string }> }>(
      'GET',
      '/v1/triggers/hourly/deliveries',
    )
  ).deliveries
    .reverse()
    .map((d) => `${d.event_id}:${d.outcome}`);
}

async function advance(t: TestApp, clock: FakeClock, by: string) {
  await clock.advance(by);
  await t.kernel.services.triggers.idle();
}

describe('schedule source', () => {
  it('anchors on arming, fires each occurrence, catches up once after a restart', async () => {
    const root = tempDir();
    const clock = new FakeClock(Date.UTC(2026, 0, 1, 0, 30));
    const t = await buildTestApp({ root, clock, config: CONFIG, keepOpen: true });
    const { project } = await addProject(t, WORKFLOWS);
    await put(t, schedule(project.id));
    const row = await t.json<{ poll: Record<string, unknown> }>('GET', '/v1/triggers/hourly');
    expect(row.poll).toMatchObject({ seeded: true, last_poll_at: '2026-01-01T00:30:00.000Z' });
    expect(await ledger(t)).toEqual([]);

    await advance(t, clock, '29m');
    expect(await ledger(t)).toEqual([]);
    await advance(t, clock, '1m');
    await advance(t, clock, '1h');
    expect(await ledger(t)).toEqual([
      'tick@2026-01-01T01:00:00.000Z:fired',
      'tick@2026-01-01T02:00:00.000Z:fired',
    ]);
    const dry = await t.json<Record<string, unknown>>('POST', '/v1/triggers/hourly/test', {
      event: { id: 'tick@x', kind: 'tick' },
    });
    expect(dry).toMatchObject({ outcome: 'fired' });
    await t.close();

    // Down from 02:00 to 05:30: the 03:00, 04:00 and 05:00 occurrences fire once, as 05:00.
    await clock.advance('3h30m');
    const again = await buildTestApp({ root, clock, config: CONFIG });
    await again.kernel.services.triggers.idle();
    expect((await ledger(again)).slice(2)).toEqual(['tick@2026-01-01T05:00:00.000Z:fired']);
    await advance(again, clock, '30m');
    expect((await ledger(again)).at(-1)).toBe('tick@2026-01-01T06:00:00.000Z:fired');
  });

  it('re-arming re-anchors: what was due while disabled never fires', async () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 1, 0, 30));
    const t = await buildTestApp({ clock, config: CONFIG });
    const { project } = await addProject(t, WORKFLOWS);
    await put(t, schedule(project.id));
    await put(t, schedule(project.id, false));
    expect(
      (await t.json<{ poll: { seeded: boolean } }>('GET', '/v1/triggers/hourly')).poll.seeded,
    ).toBe(false);
    await advance(t, clock, '3h');
    await put(t, schedule(project.id));
    expect(await ledger(t)).toEqual([]);
    await advance(t, clock, '30m');
    expect(await ledger(t)).toEqual(['tick@2026-01-01T04:00:00.000Z:fired']);
  });
});
