// Issue 17 point 10 / hold 8 (modes): what a copy or a umask loosened under the data and config
// directories is tightened at the next start and reported by the doctor as a warning, never a
// problem; a worktree's own files and anything behind a symlink are left alone; every entry of a
// backup archive is stored owner-only (decision 184).
import { chmodSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { list as tarList } from 'tar';
import { describe, expect, it } from 'vitest';
import type { DoctorReport } from '../../../kernel/ops/index.js';
import { buildTestApp } from '../../support/app.js';
import { tempDir } from '../../support/tmp.js';

const mode = (p: string) => statSync(p).mode & 0o777;

describe('loose modes under the data and config directories', () => {
  it('are tightened at start: transcripts/ and workflows/ at 0777, the files in them, the database, config.yaml', async () => {
    const root = tempDir();
    const first = await buildTestApp({ root, keepOpen: true });
    const { paths } = first;
    await first.close();
    const transcript = join(paths.transcriptsDir, '1', '0-1.jsonl');
    mkdirSync(join(paths.transcriptsDir, '1'), { recursive: true });
    writeFileSync(transcript, '{}\n');
    const workflow = join(paths.workflowsDir, 'mine.yaml');
    writeFileSync(workflow, 'name: mine\nsteps: []\n');
    mkdirSync(paths.triggersDir, { recursive: true });
    const trigger = join(paths.triggersDir, 'hook.yaml');
    writeFileSync(trigger, 'name: hook\n');
    // A worktree's own files belong to the repository; a symlink's target is not ours.
    const script = join(paths.worktreesDir, '7', 'run.sh');
    mkdirSync(join(paths.worktreesDir, '7'), { recursive: true });
    writeFileSync(script, '#!/bin/sh\n');
    const outside = join(tempDir(), 'shared.txt');
    writeFileSync(outside, 'x');
    chmodSync(outside, 0o644);
    symlinkSync(outside, join(paths.dataDir, 'link'));
    for (const [p, m] of [
      [paths.transcriptsDir, 0o777],
      [join(paths.transcriptsDir, '1'), 0o777],
      [transcript, 0o666],
      [paths.workflowsDir, 0o777],
      [workflow, 0o666],
      [paths.triggersDir, 0o755],
      [trigger, 0o644],
      [paths.dbFile, 0o644],
      [paths.configFile, 0o644],
      [paths.worktreesDir, 0o755],
      [script, 0o755],
    ] as const)
      chmodSync(p, m);

    const t = await buildTestApp({ root });
    expect(mode(paths.transcriptsDir)).toBe(0o700);
    expect(mode(join(paths.transcriptsDir, '1'))).toBe(0o700);
    expect(mode(transcript)).toBe(0o600);
    expect(mode(paths.workflowsDir)).toBe(0o755);
    expect(mode(workflow)).toBe(0o644);
    expect(mode(paths.triggersDir)).toBe(0o700);
    expect(mode(trigger)).toBe(0o600);
    expect(mode(paths.dbFile)).toBe(0o600);
    expect(mode(paths.configFile)).toBe(0o600);
    expect(mode(paths.worktreesDir)).toBe(0o700);
    expect(mode(script)).toBe(0o755);
    expect(mode(outside)).toBe(0o644);
    expect(readFileSync(paths.logFile, 'utf8')).toContain('tightened loose modes');
    const r = await t.json<DoctorReport>('GET', '/v1/doctor');
    expect(r.paths.config_permissions).toEqual([]);
  });

  it('are reported by the doctor as warnings, never problems', async () => {
    const t = await buildTestApp();
    mkdirSync(t.paths.transcriptsDir, { recursive: true });
    chmodSync(t.paths.transcriptsDir, 0o777);
    chmodSync(t.paths.workflowsDir, 0o777);
    const r = await t.json<DoctorReport>('GET', '/v1/doctor');
    expect(r.paths.config_permissions).toEqual(
      expect.arrayContaining([
        {
          path: t.paths.transcriptsDir,
          mode: '0777',
          expected_mode: '0700',
          remediation: `chmod 700 ${t.paths.transcriptsDir}`,
        },
        {
          path: t.paths.workflowsDir,
          mode: '0777',
          expected_mode: '0755',
          remediation: `chmod 755 ${t.paths.workflowsDir}`,
        },
      ]),
    );
    expect(r.paths.config_permissions).toHaveLength(2);
    expect(r.problems).toEqual([]);
  });
});

describe('a backup archive', () => {
  it('stores svc.db, the manifest, transcripts and workflows owner-only, whatever their modes', async () => {
    const t = await buildTestApp();
    mkdirSync(join(t.paths.transcriptsDir, '3'), { recursive: true });
    writeFileSync(join(t.paths.transcriptsDir, '3', '0-1.jsonl'), '{}\n');
    writeFileSync(join(t.paths.workflowsDir, 'w.yaml'), 'name: w\nsteps: []\n');
    const target = join(tempDir(), 'b.tar.gz');
    const old = process.umask(0o022);
    try {
      const res = await t.api(
        'POST',
        '/v1/daemon/backup',
        { path: target },
        { 'content-type': 'application/json' },
      );
      expect(res.statusCode, res.body).toBeLessThan(300);
    } finally {
      process.umask(old);
    }
    const modes = new Map<string, number>();
    await tarList({
      file: target,
      onReadEntry: (e) => modes.set(e.path.replace(/\/$/, ''), (e.mode ?? 0) & 0o777),
    });
    expect(modes.get('svc.db')).toBe(0o600);
    expect(modes.get('manifest.json')).toBe(0o600);
    expect(modes.get('transcripts/3/0-1.jsonl')).toBe(0o600);
    expect(modes.get('workflows/w.yaml')).toBe(0o600);
    for (const [path, m] of modes) expect(m & 0o077, `${path} ${m.toString(8)}`).toBe(0);
    expect(mode(target)).toBe(0o600);
  });
});
