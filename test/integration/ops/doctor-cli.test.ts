// `svc doctor` (issue 10 point 1): a human report whose exit status is 7 when problems[] is
// non-empty, through the daemon when it answers and from the files when it does not — which is
// how the problems a daemon cannot report about itself (a corrupted database, a schema newer than
// the binary, the daemon itself) are seen.
import { spawn } from 'node:child_process';
import { closeSync, openSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it, onTestFinished } from 'vitest';
import { EXIT } from '../../../cli/exit-codes.js';
import { main } from '../../../cli/index.js';
import { runDaemon } from '../../../kernel/listener.js';
import type { DoctorReport } from '../../../kernel/ops/index.js';
import { NEWEST_MIGRATION, openDatabase, SchemaTooNewError } from '../../../kernel/store/index.js';
import { agentConfig } from '../../support/agents.js';
import { buildTestApp, type TestApp } from '../../support/app.js';
import { gitRepo } from '../../support/git.js';

async function svc(t: { paths: TestApp['paths'] }, ...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(
    args,
    { ...process.env, SVC_DATA_DIR: t.paths.dataDir, SVC_CONFIG_DIR: t.paths.configDir },
    { out: (s) => out.push(s), err: (s) => err.push(s) },
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
}

async function stoppedInstall(): Promise<TestApp> {
  const t = await buildTestApp({ keepOpen: true });
  for (let i = 0; i < 400; i++)
    t.kernel.services.events.append('config.changed', {}, { source: 'api', pad: 'x'.repeat(200) });
  await t.close();
  return t;
}

async function offlineReport(t: TestApp): Promise<{ code: number; report: DoctorReport }> {
  const r = await svc(t, 'doctor', '--json', '--cached');
  return { code: r.code, report: JSON.parse(r.out) as DoctorReport };
}

describe('svc doctor with the daemon down', () => {
  it('reports from the files, with the daemon that is not running as its one problem', async () => {
    const t = await stoppedInstall();
    const { code, report } = await offlineReport(t);
    expect(code).toBe(EXIT.problems);
    expect(report.daemon).toMatchObject({ status: 'stopped', pid: null });
    expect(report.database).toMatchObject({ known: true, integrity_check: 'ok' });
    expect(report.database.table_rows.events).toBe(400);
    expect(report.tasks.known).toBe(true);
    expect(report.storage.orphans_known).toBe(true);
    expect(report.problems.map((p) => p.code)).toEqual(['daemon_unresponsive']);

    const human = await svc(t, 'doctor', '--cached');
    expect(human.code).toBe(EXIT.problems);
    expect(human.out).toContain('daemon     stopped');
    expect(human.out).toMatch(/\[daemon_unresponsive\] the daemon is not running/);
  });

  it('names a daemon whose process lives but does not answer', async () => {
    const t = await stoppedInstall();
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    onTestFinished(() => {
      child.kill('SIGKILL');
    });
    writeFileSync(
      t.paths.daemonJson,
      JSON.stringify({
        pid: child.pid,
        port: 9,
        host: '127.0.0.1',
        url: 'http://127.0.0.1:9',
        started_at: '2026-01-01T00:00:00Z',
        version: '0.1.0',
      }),
    );
    const { report } = await offlineReport(t);
    expect(report.daemon).toMatchObject({ status: 'unresponsive', pid: child.pid, port: 9 });
    expect(report.problems).toEqual([
      expect.objectContaining({
        code: 'daemon_unresponsive',
        message: expect.stringMatching(/alive but does not answer/),
      }),
    ]);
  });

  it('problem: a corrupted database', async () => {
    const t = await stoppedInstall();
    // Scribble over the middle of the file: page 1 (the header) stays readable, b-tree pages do not.
    const size = statSync(t.paths.dbFile).size;
    expect(size).toBeGreaterThan(8 * 4096);
    const fd = openSync(t.paths.dbFile, 'r+');
    const junk = Buffer.alloc(4096 * 3, 0xa5);
    writeSync(fd, junk, 0, junk.length, 4096 * 2);
    closeSync(fd);
    const { code, report } = await offlineReport(t);
    expect(code).toBe(EXIT.problems);
    expect(report.database.integrity_check).not.toBe('ok');
    expect(report.problems.map((p) => p.code)).toEqual(
      expect.arrayContaining(['integrity_check_failed']),
    );
  });

  it('problem: a file that is not a database at all', async () => {
    const t = await stoppedInstall();
    writeFileSync(t.paths.dbFile, 'this is not sqlite\n'.repeat(300));
    const { report } = await offlineReport(t);
    expect(report.database.integrity_check).toMatch(/^failed: /);
    expect(report.problems.map((p) => p.code)).toContain('integrity_check_failed');
  });

  it('problem: a schema newer than this binary (which the daemon refuses to open)', async () => {
    const t = await stoppedInstall();
    const db = new Database(t.paths.dbFile);
    db.pragma(`user_version = ${NEWEST_MIGRATION.version + 3}`);
    db.close();
    expect(() => openDatabase(t.paths.dbFile)).toThrow(SchemaTooNewError);
    const { report } = await offlineReport(t);
    expect(report.database).toMatchObject({
      schema_version: NEWEST_MIGRATION.version + 3,
      newest_migration: NEWEST_MIGRATION.version,
    });
    expect(report.problems.map((p) => p.code).sort()).toEqual([
      'daemon_unresponsive',
      'schema_too_new',
    ]);
  });

  it('reports an install that never ran without inventing database problems', async () => {
    const t = await stoppedInstall();
    const fresh = {
      paths: {
        ...t.paths,
        dataDir: join(t.paths.dataDir, 'never'),
        dbFile: join(t.paths.dataDir, 'never', 'svc.db'),
      },
    };
    const r = await svc(fresh, 'doctor', '--json', '--cached');
    const report = JSON.parse(r.out) as DoctorReport;
    expect(report.database).toMatchObject({ known: false, integrity_check: 'not_checked' });
    expect(report.tasks.known).toBe(false);
    expect(report.problems.map((p) => p.code)).toEqual(['daemon_unresponsive']);
  });
});

describe('svc doctor with the daemon up', () => {
  it('prints the daemon’s report and exits 0 without problems, 7 with one; --fix repairs it', async () => {
    const t = await stoppedInstall();
    const d = await runDaemon(t.paths);
    onTestFinished(() => d.stop());
    const ok = await svc(t, 'doctor', '--cached');
    expect(ok.err).toBe('');
    expect(ok.code).toBe(EXIT.ok);
    expect(ok.out).toContain('daemon     running');
    expect(ok.out).toContain('No problems.');

    const repo = gitRepo();
    const stray = join(t.paths.worktreesDir, '12');
    repo.git('worktree', 'add', '-q', '-b', 'svc/12-stray', stray, 'main');
    const bad = await svc(t, 'doctor', '--cached');
    expect(bad.code).toBe(EXIT.problems);
    expect(bad.out).toMatch(/\[orphaned_worktrees\] 1 worktree .* 12/);

    const fixed = await svc(t, 'doctor', '--fix');
    expect(fixed.out).toContain(`remove_worktree ${stray}: done`);
    expect(fixed.code).toBe(EXIT.ok);
  });
});

describe('svc doctor with the daemon down: agent verdicts', () => {
  it('judges a CLI build the way the agents service does (incompatible, not merely untested)', async () => {
    const t = await buildTestApp({
      keepOpen: true,
      config: agentConfig({ FAKE_CLAUDE_VERSION: '2.0.9' }),
    });
    await t.close();
    const r = await svc(t, 'doctor', '--json');
    const report = JSON.parse(r.out) as DoctorReport;
    expect(report.agents.find((a) => a.name === 'claude')).toMatchObject({
      available: true,
      version: '2.0.9',
      version_verdict: 'incompatible',
    });
  });
});
