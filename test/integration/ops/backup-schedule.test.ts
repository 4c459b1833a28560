// SPEC §2.10 `backup.interval/keep/dir`, §8 (1h minimum, retry after 1h): scheduled backups on the
// fake clock, every rule of the configuration row.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeClock } from '../../../kernel/clock/index.js';
import { backupName, readBackupState } from '../../../kernel/ops/index.js';
import { buildTestApp, type TestApp } from '../../support/app.js';
import { tempDir } from '../../support/tmp.js';

const NAME = /^svc-backup-\d{8}T\d{6}Z\.tar\.gz$/;

async function scheduled(config: string, start = Date.UTC(2026, 10, 21, 10, 0, 0)) {
  const { FakeClock } = await import('../../../kernel/clock/index.js');
  const clock = new FakeClock(start);
  const t = await buildTestApp({ config, clock });
  const backups = t.kernel.services.backups;
  const settle = () => backups.whenIdle();
  const advance = async (by: string) => {
    await (t.clock as FakeClock).advance(by);
    await settle();
  };
  await settle();
  return { t, advance, clock };
}

const archives = (dir: string) =>
  readdirSync(dir)
    .filter((n) => NAME.test(n))
    .sort();

describe('scheduled backups', () => {
  it('writes one 0600 archive named by its time at start, then one per interval', async () => {
    const { t, advance } = await scheduled('backup:\n  interval: 2h\n');
    const dir = join(t.paths.dataDir, 'backups');
    expect(archives(dir)).toEqual(['svc-backup-20261121T100000Z.tar.gz']);
    expect(statSync(join(dir, 'svc-backup-20261121T100000Z.tar.gz')).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    await advance('1h59m');
    expect(archives(dir)).toHaveLength(1);
    await advance('1m');
    expect(archives(dir)).toEqual([
      'svc-backup-20261121T100000Z.tar.gz',
      'svc-backup-20261121T120000Z.tar.gz',
    ]);
    // Assembled under a temporary .svc-backup-* directory that is gone afterwards.
    expect(readdirSync(dir).filter((n) => n.startsWith('.svc-backup-'))).toEqual([]);
    expect(readBackupState(t.paths.dataDir)).toMatchObject({
      last_success_at: '2026-11-21T12:00:00.000Z',
      last_error: null,
    });
  });

  it('counts the interval from the newest scheduled archive already in the directory', async () => {
    const dir = tempDir();
    // An archive written 30 minutes before start (by an earlier daemon) defers the first run.
    writeFileSync(join(dir, backupName(Date.UTC(2026, 10, 21, 9, 30, 0))), 'earlier');
    const { advance } = await scheduled(`backup:\n  interval: 1h\n  dir: ${dir}\n`);
    expect(archives(dir)).toHaveLength(1);
    await advance('29m');
    expect(archives(dir)).toHaveLength(1);
    await advance('1m');
    expect(archives(dir)).toHaveLength(2);
  });

  it('keeps the newest `keep` scheduled archives and never touches other files', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'svc-backup-manual.tar.gz'), 'mine');
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    writeFileSync(join(dir, 'svc-backup-20200101T000000Z.tar.gz.bak'), 'mine');
    const { advance } = await scheduled(`backup:\n  interval: 1h\n  keep: 2\n  dir: ${dir}\n`);
    await advance('1h');
    await advance('1h');
    await advance('1h');
    expect(archives(dir)).toEqual([
      'svc-backup-20261121T120000Z.tar.gz',
      'svc-backup-20261121T130000Z.tar.gz',
    ]);
    for (const mine of [
      'svc-backup-manual.tar.gz',
      'notes.txt',
      'svc-backup-20200101T000000Z.tar.gz.bak',
    ])
      expect(readFileSync(join(dir, mine), 'utf8')).toBe('mine');
  });

  it('keep 0 keeps everything', async () => {
    const { t, advance } = await scheduled('backup:\n  interval: 1h\n  keep: 0\n');
    for (let i = 0; i < 8; i++) await advance('1h');
    expect(archives(join(t.paths.dataDir, 'backups'))).toHaveLength(9);
  });

  it('is off at interval 0, and picks up an interval set while running within about a minute', async () => {
    const { t, advance } = await scheduled('');
    const dir = join(t.paths.dataDir, 'backups');
    await advance('3h');
    expect(existsSync(dir)).toBe(false);
    await t.json('PATCH', '/v1/config', { backup: { interval: '1h' } });
    await advance('1m');
    expect(archives(dir)).toHaveLength(1);
  });

  it('fails every run for a dir inside the workflows directory, retrying after 1 h', async () => {
    const { FakeClock } = await import('../../../kernel/clock/index.js');
    const root = tempDir();
    const workflows = join(root, 'config', 'workflows');
    mkdirSync(workflows, { recursive: true });
    const clock = new FakeClock(Date.UTC(2026, 10, 21, 10, 0, 0));
    const t: TestApp = await buildTestApp({
      root,
      clock,
      config: `backup:\n  interval: 1h\n  dir: ${join(workflows, 'backups')}\n`,
    });
    const backups = t.kernel.services.backups;
    await backups.whenIdle();
    const first = readBackupState(t.paths.dataDir);
    expect(first).toMatchObject({
      last_attempt_at: '2026-11-21T10:00:00.000Z',
      last_success_at: null,
      last_error: expect.stringMatching(/inside the workflows directory/),
    });
    expect(backups.status()).toMatchObject({
      failing: true,
      next_due_at: '2026-11-21T11:00:00.000Z',
    });
    await clock.advance('59m');
    await backups.whenIdle();
    expect(readBackupState(t.paths.dataDir).last_attempt_at).toBe('2026-11-21T10:00:00.000Z');
    await clock.advance('1m');
    await backups.whenIdle();
    expect(readBackupState(t.paths.dataDir).last_attempt_at).toBe('2026-11-21T11:00:00.000Z');
    expect(existsSync(join(workflows, 'backups'))).toBe(false);
    const failed = t.kernel.services.events.query({
      afterId: 0,
      limit: 10,
      kinds: ['backup.failed'],
    });
    expect(failed).toHaveLength(2);
    expect(failed[0]?.payload).toMatchObject({ scheduled: true });
  });

  it('retries a failed run after 1 h, not after the interval', async () => {
    const dir = join(tempDir(), 'not-yet');
    // A file where the directory should be makes the run fail until a human fixes it.
    writeFileSync(dir, 'in the way');
    const { t, advance } = await scheduled(`backup:\n  interval: 24h\n  dir: ${dir}\n`);
    expect(readBackupState(t.paths.dataDir).last_error).toBeTruthy();
    const { rmSync } = await import('node:fs');
    rmSync(dir);
    await advance('59m');
    expect(existsSync(dir)).toBe(false);
    await advance('1m');
    expect(archives(dir)).toEqual(['svc-backup-20261121T110000Z.tar.gz']);
    expect(t.kernel.services.backups.status()).toMatchObject({ failing: false, archive_count: 1 });
  });

  it('refuses backup.interval below 1h and negative values at load', async () => {
    const t = await buildTestApp();
    for (const bad of [
      { interval: '30m' },
      { interval: '-1h' },
      { keep: -1 },
      { dir: 'relative' },
    ]) {
      const res = await t.api('PATCH', '/v1/config', { backup: bad });
      expect(res.statusCode).toBe(400);
    }
  });
});
