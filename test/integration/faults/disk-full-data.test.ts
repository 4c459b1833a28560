// Issue 17 point 1 / hold 1: a full *data* disk is an outcome, never a crash. The data and config
// directories live on a real 20 MB tmpfs, filled at four points: during a step's output (40 MB into
// 20 MB), during creates, during an event burst, during a backup. Each refused write is a clear
// refusal (507 disk_full, or the step failing disk_full and the task blocking with that reason),
// reads keep being served, queued work waits, and once room returns nothing is lost: the integrity
// check is ok, event ids have no gap, every acknowledged task exists and finishes (decision 180).
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, type TestContext } from 'vitest';
import { renderDoctor } from '../../../cli/commands/doctor.js';
import { RECHECK_MS } from '../../../kernel/disk/index.js';
import type { DoctorReport } from '../../../kernel/ops/index.js';
import { buildTestApp, type TestApp } from '../../support/app.js';
import { requireOrSkip } from '../../support/ci.js';
import { mountSmallDisk, type SmallDisk } from '../../support/small-disk.js';
import {
  act,
  addProject,
  commandWorkflow,
  createTask,
  getTask,
  postTask,
  waitState,
} from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';

function smallDisk(ctx: TestContext, mb: number): SmallDisk {
  const disk = mountSmallDisk(mb);
  requireOrSkip(ctx, typeof disk === 'string' ? disk : null);
  return disk as SmallDisk;
}

/** What "nothing lost" checks on the database once there is room again. */
function assertWhole(t: TestApp): void {
  const db = t.kernel.services.store.db;
  expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  const ids = (db.prepare('SELECT id FROM events ORDER BY id').pluck().all() as number[]) ?? [];
  expect(ids, 'event ids have no gap').toEqual(ids.map((_, i) => i + 1));
}

/** Grows the disk back and lets the guard see it (its recheck runs on the injected clock). */
async function roomAgain(t: TestApp, disk: SmallDisk, mb: number): Promise<void> {
  disk.grow(mb);
  await (t.clock as unknown as { advance(ms: number): Promise<void> }).advance(RECHECK_MS);
  expect(t.kernel.services.disk.full).toBe(false);
}

describe('a full data disk (tmpfs)', () => {
  it('during a step’s output: the step fails disk_full, the task blocks, the daemon serves; room returns and nothing is lost', {
    timeout: 120_000,
  }, async (ctx) => {
    const disk = smallDisk(ctx, 20);
    const marks = tempDir();
    const t = await buildTestApp({ root: disk.dir, config: 'max_parallel_tasks: 4\n' });
    // 40 MB of output into a 20 MB disk on the first run; a line on any later run.
    const flood = `if [ -f ${marks}/once ]; then echo small; else touch ${marks}/once; head -c 40000000 /dev/zero | tr '\\0' x | fold -w 200; fi`;
    const { project } = await addProject(t, {
      flood: commandWorkflow('flood', flood),
      ok: commandWorkflow('ok', 'echo fine'),
    });
    const waiting = await createTask(t, {
      project_id: project.id,
      title: 'waits',
      workflow: 'ok',
      paused: true,
    });
    const task = await createTask(t, { project_id: project.id, title: 'flood', workflow: 'flood' });
    const blocked = await waitState(t, task.id, 'blocked', 60_000);
    expect(blocked.block_reason).toBe('disk_full');
    expect(blocked.block_detail).toMatch(/ENOSPC/);
    expect(blocked.steps?.map((s) => [s.state, s.failure_reason])).toEqual([
      ['failed', 'disk_full'],
    ]);
    expect(disk.free()).toBeLessThan(4 * 1024 * 1024);
    // Reads are served; what the step printed before the wall is kept and readable.
    const run = blocked.steps?.[0];
    const head = await t.api('GET', `/v1/tasks/${task.id}/steps/${run?.id}/transcript?limit=65536`);
    expect(head.statusCode).toBe(200);
    expect(head.body).toContain('xxxx');
    expect((await t.api('GET', '/v1/tasks')).statusCode).toBe(200);
    expect((await t.api('GET', '/v1/doctor')).statusCode).toBe(200);
    // Work queued meanwhile waits for room instead of running into the same wall.
    const resumed = await act(t, waiting.id, 'resume');
    expect([200, 507]).toContain(resumed.statusCode);
    if (resumed.statusCode === 200) {
      await new Promise((r) => setTimeout(r, 300));
      expect((await getTask(t, waiting.id)).state).toBe('queued');
    }
    // Room returns (the disk grows; nothing is deleted): admission resumes by itself.
    await roomAgain(t, disk, 80);
    if (resumed.statusCode !== 200)
      expect((await act(t, waiting.id, 'resume')).statusCode).toBe(200);
    expect((await waitState(t, waiting.id, 'done')).state).toBe('done');
    expect((await act(t, task.id, 'retry', {})).statusCode).toBe(200);
    const done = await waitState(t, task.id, 'done', 30_000);
    expect(done.steps?.map((s) => [s.attempt, s.state])).toEqual([
      [1, 'failed'],
      [2, 'succeeded'],
    ]);
    assertWhole(t);
  });

  it('during creates: 507 disk_full with the envelope, never 500; reads served; creates work again with room', {
    timeout: 60_000,
  }, async (ctx) => {
    const disk = smallDisk(ctx, 20);
    const t = await buildTestApp({ root: disk.dir });
    const { project } = await addProject(t, { ok: commandWorkflow('ok', 'echo fine') });
    const parked = await createTask(t, {
      project_id: project.id,
      title: 'parked',
      workflow: 'ok',
      paused: true,
    });
    disk.fill();
    const statuses: number[] = [];
    let refusal: { error: { code: string; details?: Record<string, unknown> } } | null = null;
    const acked: number[] = [];
    for (let i = 0; i < 400 && !refusal; i++) {
      const res = await postTask(t, {
        project_id: project.id,
        title: `c${i}`,
        description: 'd'.repeat(30_000),
        workflow: 'ok',
        paused: true,
      });
      statuses.push(res.statusCode);
      if (res.statusCode === 201) acked.push((res.json() as { id: number }).id);
      if (res.statusCode === 507) refusal = res.json();
    }
    expect(statuses.filter((s) => s !== 201 && s !== 507)).toEqual([]);
    expect(refusal?.error.code).toBe('disk_full');
    expect(refusal?.error.details?.code).toMatch(/SQLITE_FULL|ENOSPC/);
    // Reads keep working, and so does every task acknowledged before the refusal.
    const list = await t.api('GET', '/v1/tasks?limit=500');
    expect(list.statusCode).toBe(200);
    expect((list.json() as Array<{ id: number }>).map((r) => r.id).sort()).toEqual(
      [parked.id, ...acked].sort(),
    );
    expect((await t.api('GET', '/v1/info')).statusCode).toBe(200);
    // The doctor says why queued work waits, in the report and in what `svc doctor` prints.
    const doctor = await t.api('GET', '/v1/doctor');
    expect(doctor.statusCode).toBe(200);
    const report = doctor.json() as DoctorReport;
    expect(report.storage.disk_full_mode).toMatchObject({ full: true });
    expect(report.storage.disk_full_mode?.code).toMatch(/SQLITE_FULL|ENOSPC/);
    expect(renderDoctor(report).join('\n')).toMatch(
      /warning: the data disk is full \((SQLITE_FULL|ENOSPC) since /,
    );
    // A backup onto the full data disk (its stage and its archive need room there): refused,
    // nothing partial left beside the filler and the daemon's own directories.
    const backup = await t.api(
      'POST',
      '/v1/daemon/backup',
      { path: join(disk.dir, 'b.tar.gz') },
      { 'content-type': 'application/json' },
    );
    expect(backup.statusCode, backup.body).toBe(507);
    expect(backup.json()).toMatchObject({ error: { code: 'disk_full' } });
    expect(readdirSync(disk.dir).sort()).toEqual(['config', 'data', 'filler']);
    // Cancel of a waiting task: done or refused, never 500.
    const cancel = await act(t, parked.id, 'cancel');
    expect([200, 507]).toContain(cancel.statusCode);
    disk.unfill();
    await roomAgain(t, disk, 20);
    const cleared = (await t.api('GET', '/v1/doctor')).json() as DoctorReport;
    expect(cleared.storage.disk_full_mode).toMatchObject({ full: false, since: null });
    expect(renderDoctor(cleared).join('\n')).not.toContain('the data disk is full');
    const after = await postTask(t, { project_id: project.id, title: 'after', workflow: 'ok' });
    expect(after.statusCode).toBe(201);
    expect((await waitState(t, (after.json() as { id: number }).id, 'done')).state).toBe('done');
    assertWhole(t);
  });

  it('during an event burst: running tasks block disk_full or wait, no request answers 500, retry finishes them all', {
    timeout: 120_000,
  }, async (ctx) => {
    const disk = smallDisk(ctx, 20);
    const t = await buildTestApp({ root: disk.dir, config: 'max_parallel_tasks: 4\n' });
    const three = `name: three
steps:
  - id: a
    type: command
    run: "echo one; sleep 0.05"
  - id: b
    type: command
    run: "echo two; sleep 0.05"
  - id: c
    type: command
    run: "echo three"
`;
    const { project } = await addProject(t, { three });
    const statuses: number[] = [];
    const acked: number[] = [];
    let filled = false;
    for (let i = 0; i < 24; i++) {
      const res = await postTask(t, {
        project_id: project.id,
        title: `b${i}`,
        description: 'd'.repeat(30_000),
        workflow: 'three',
      });
      statuses.push(res.statusCode);
      if (res.statusCode === 201) acked.push((res.json() as { id: number }).id);
      // The disk fills in the middle of the burst, with steps running and transitions flowing.
      if (i === 8) {
        disk.fill();
        filled = true;
      }
    }
    expect(filled).toBe(true);
    expect(statuses.filter((s) => s !== 201 && s !== 507)).toEqual([]);
    expect(statuses).toContain(507);
    // Every acknowledged task ends somewhere a human can act on: done, blocked disk_full, or queued.
    await new Promise((r) => setTimeout(r, 1_500));
    const rows = await Promise.all(acked.map((id) => getTask(t, id)));
    for (const r of rows) {
      expect(['done', 'blocked', 'queued', 'running'], `task ${r.id}`).toContain(r.state);
      if (r.state === 'blocked') expect(r.block_reason, r.block_detail ?? '').toBe('disk_full');
    }
    expect(rows.some((r) => r.state === 'blocked' || r.state === 'queued')).toBe(true);
    disk.unfill();
    await roomAgain(t, disk, 20);
    for (const r of await Promise.all(acked.map((id) => getTask(t, id))))
      if (r.state === 'blocked') expect((await act(t, r.id, 'retry', {})).statusCode).toBe(200);
    for (const id of acked) expect((await waitState(t, id, 'done', 30_000)).state).toBe('done');
    assertWhole(t);
  });

  it('during a backup: 507 disk_full, no partial archive or stage left; the next one succeeds', {
    timeout: 60_000,
  }, async (ctx) => {
    const dest = smallDisk(ctx, 2);
    const t = await buildTestApp();
    await addProject(t, { ok: commandWorkflow('ok', 'echo fine') });
    dest.fill(16 * 1024);
    const target = join(dest.dir, 'b.tar.gz');
    const res = await t.api(
      'POST',
      '/v1/daemon/backup',
      { path: target },
      { 'content-type': 'application/json' },
    );
    expect(res.statusCode, res.body).toBe(507);
    expect(res.json()).toMatchObject({ error: { code: 'disk_full' } });
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(dest.dir).filter((n) => n !== 'filler')).toEqual([]);
    // The data disk was never full: the daemon did not enter disk-full mode (running tasks'
    // transcripts are not refused because a backup's destination was full).
    expect(t.kernel.services.disk.refusing()).toBeNull();
    expect(t.kernel.services.disk.full).toBe(false);
    dest.unfill();
    const ok = await t.api(
      'POST',
      '/v1/daemon/backup',
      { path: target },
      { 'content-type': 'application/json' },
    );
    expect(ok.statusCode, ok.body).toBeLessThan(300);
    expect(existsSync(target)).toBe(true);
    assertWhole(t);
  });
});
