// Issue 17 point 1, end to end: the built daemon on a 20 MB tmpfs that one of its own steps fills
// with 40 MB of output. The daemon process lives through it (the last-resort guard is never
// reached), blocks the step `disk_full` and keeps answering; killed with the disk still full it
// starts again, and the task it interrupted is blocked `disk_full` instead of run into the same
// wall; once the disk grows, `retry` finishes everything and the database is whole (decision 180).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { LAST_RESORT_MESSAGE } from '../../kernel/daemon/index.js';
import { waitFor } from '../support/app.js';
import { requireOrSkip, skipUnlessCi } from '../support/ci.js';
import { type DaemonProc, dirsIn, HAVE_BUILD, startDaemon } from '../support/daemon-proc.js';
import { gitRepo } from '../support/git.js';
import { mountSmallDisk, type SmallDisk } from '../support/small-disk.js';
import { withWorkflows } from '../support/tasks.js';
import { tempDir } from '../support/tmp.js';

interface Task {
  id: number;
  state: string;
  block_reason: string | null;
  steps?: Array<{ attempt: number; state: string; failure_reason: string | null }>;
}

const state = (d: DaemonProc, id: number) => d.json<Task>('GET', `/v1/tasks/${id}`);
const until = (d: DaemonProc, id: number, want: string, ms = 60_000) =>
  waitFor(async () => {
    const t = await state(d, id);
    return t.state === want ? t : null;
  }, ms);

describe.skipIf(
  skipUnlessCi(!HAVE_BUILD && 'dist/ is not built (npm run build)', 'the disk-full e2e test'),
)('the built daemon on a data disk it fills itself', () => {
  it('survives, refuses, is not re-run into the wall after a kill, and loses nothing', {
    timeout: 240_000,
  }, async (ctx) => {
    const mounted = mountSmallDisk(20);
    requireOrSkip(ctx, typeof mounted === 'string' ? mounted : null);
    const disk = mounted as SmallDisk;
    const dirs = dirsIn(disk.dir);
    mkdirSync(dirs.configDir, { recursive: true, mode: 0o700 });
    writeFileSync(
      join(dirs.configDir, 'config.yaml'),
      'max_parallel_tasks: 3\nupdate:\n  check: false\n',
      { mode: 0o600 },
    );
    const marks = tempDir();
    const repo = gitRepo();
    withWorkflows(repo, {
      flood: `name: flood
steps:
  - id: flood
    type: command
    run: "if [ -f ${marks}/flooded ]; then echo small; else touch ${marks}/flooded; head -c 40000000 /dev/zero | tr '\\\\0' x | fold -w 200; fi"
`,
      sleepy: `name: sleepy
steps:
  - id: nap
    type: command
    run: "if [ -f ${marks}/slept ]; then echo awake; else touch ${marks}/slept; sleep 60; fi"
`,
    });

    let d = await startDaemon(dirs);
    const project = await d.json<{ id: number }>('POST', '/v1/projects', { path: repo.path });
    // An innocent task, quietly sleeping inside its step when the disk fills.
    const sleepy = await d.json<Task>('POST', '/v1/tasks', {
      project_id: project.id,
      title: 'sleepy',
      workflow: 'sleepy',
    });
    await waitFor(async () => (await state(d, sleepy.id)).state === 'running');
    const flood = await d.json<Task>('POST', '/v1/tasks', {
      project_id: project.id,
      title: 'flood',
      workflow: 'flood',
    });
    const blocked = await until(d, flood.id, 'blocked');
    expect(blocked.block_reason).toBe('disk_full');
    expect(d.alive()).toBe(true);
    // Reads are served; a create is refused with the envelope, not a 500.
    expect((await d.call('GET', '/v1/tasks')).status).toBe(200);
    const refused = await d.call('POST', '/v1/tasks', {
      project_id: project.id,
      title: 'late',
      workflow: 'sleepy',
    });
    expect(refused.status).toBe(507);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('disk_full');
    expect((await state(d, sleepy.id)).state).toBe('running');
    expect(disk.free()).toBeLessThan(2 * 1024 * 1024);

    // Killed with the disk still full: the next start works and does not run the sleeper again.
    await d.kill9();
    expect(d.stderr()).not.toContain(LAST_RESORT_MESSAGE);
    d = await startDaemon(dirs);
    const after = await state(d, sleepy.id);
    expect(after.state).toBe('blocked');
    expect(after.block_reason).toBe('disk_full');
    expect(
      (await d.json<Task['steps']>('GET', `/v1/tasks/${sleepy.id}/steps`))?.map((s) => [
        s.attempt,
        s.state,
      ]),
    ).toEqual([[1, 'interrupted']]);
    // The doctor tells why: the mode holds, and the last daemon stopped with the disk full.
    const doctor = await d.json<{ storage: { disk_full_mode: Record<string, unknown> | null } }>(
      'GET',
      '/v1/doctor',
    );
    expect(doctor.storage.disk_full_mode).toMatchObject({ full: true, ended_full: true });

    // Room returns (the disk grows; nothing is deleted): retry finishes both.
    disk.grow(80);
    await waitFor(
      async () => (await d.call('POST', `/v1/tasks/${sleepy.id}/retry`, {})).ok,
      30_000,
      500,
    );
    expect((await until(d, sleepy.id, 'done')).state).toBe('done');
    expect((await d.call('POST', `/v1/tasks/${flood.id}/retry`, {})).status).toBe(200);
    expect((await until(d, flood.id, 'done')).state).toBe('done');
    await d.stop();
    expect(d.stderr()).not.toContain(LAST_RESORT_MESSAGE);

    const db = new Database(join(dirs.dataDir, 'svc.db'), { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      const ids = db.prepare('SELECT id FROM events ORDER BY id').pluck().all() as number[];
      expect(ids).toEqual(ids.map((_, i) => i + 1));
    } finally {
      db.close();
    }
  });
});
