// SPEC §2.9 doctor report, §4.1 GET /v1/doctor and POST /v1/doctor/fix; issue 10 point 1:
// every group and field, and each problem of the closed set raised by a real cause.
import { appendFileSync, chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { FakeClock } from '../../../kernel/clock/index.js';
import type { DoctorReport, FixAction } from '../../../kernel/ops/index.js';
import { buildTestApp, type TestApp } from '../../support/app.js';
import { git, gitRepo } from '../../support/git.js';
import { insertProject, insertStepRun, insertTask } from '../../support/rows.js';

const FAKE_CLAUDE = fileURLToPath(new URL('../../fixtures/fake-agents/claude', import.meta.url));

const codes = (r: DoctorReport) => r.problems.map((p) => p.code);

/** A real linked worktree of a fresh repository at {worktrees}/<name>, claimed by no task. */
function strayWorktree(
  t: TestApp,
  name: string,
): { repo: ReturnType<typeof gitRepo>; path: string } {
  const repo = gitRepo();
  mkdirSync(t.paths.worktreesDir, { recursive: true });
  const path = join(t.paths.worktreesDir, name);
  repo.git('worktree', 'add', '-q', '-b', `svc/${name}-stray`, path, 'main');
  return { repo, path };
}

describe('GET /v1/doctor', () => {
  it('reports every group and field of SPEC §2.9, with no problems on a healthy daemon', async () => {
    const t = await buildTestApp();
    for (let i = 1; i <= 30; i++) appendFileSync(t.paths.logFile, `{"msg":"line ${i}"}\n`);
    const r = await t.json<DoctorReport>('GET', '/v1/doctor');
    expect(r.generated_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(r.paths).toEqual({
      config_dir: t.paths.configDir,
      data_dir: t.paths.dataDir,
      config_file: t.paths.configFile,
      config_file_exists: true,
      config_parses: true,
      config_permissions: [],
    });
    expect(r.daemon).toMatchObject({
      status: 'running',
      pid: process.pid,
      version: expect.any(String),
    });
    expect(Object.keys(r.daemon)).toEqual(
      expect.arrayContaining(['status', 'pid', 'port', 'started_at', 'uptime_seconds', 'version']),
    );
    expect(r.log).toMatchObject({ path: t.paths.logFile, exists: true });
    expect(r.log.size_bytes).toBeGreaterThan(0);
    expect(r.log.tail).toHaveLength(20);
    expect(r.log.tail.at(-1)).toBe('{"msg":"line 30"}');
    expect(r.database).toMatchObject({
      path: t.paths.dbFile,
      known: true,
      integrity_check: 'ok',
      oldest_event_at: null,
      workflow_snapshot_bytes: 0,
    });
    expect(r.database.schema_version).toBe(r.database.newest_migration);
    expect(r.database.total_bytes).toBe(
      r.database.size_bytes + r.database.wal_bytes + r.database.shm_bytes,
    );
    // Enumerated from the schema itself, idempotency_keys included (SPEC §9.2: new keys may appear).
    expect(Object.keys(r.database.table_rows)).toEqual(
      expect.arrayContaining([
        'events',
        'idempotency_keys',
        'projects',
        'schema_migrations',
        'step_runs',
        'tasks',
      ]),
    );
    expect(r.agents.map((a) => a.name)).toEqual(['claude', 'codex', 'cursor']);
    for (const a of r.agents)
      expect(Object.keys(a)).toEqual(
        expect.arrayContaining([
          'name',
          'available',
          'path',
          'version',
          'logged_in',
          'supports_input',
          'version_verdict',
          'tested_versions',
          'restricted_verdict',
        ]),
      );
    expect(r.storage).toMatchObject({
      worktrees_dir: t.paths.worktreesDir,
      worktree_count: 0,
      worktree_bytes: 0,
      orphans_known: true,
      orphans: [],
    });
    expect(r.storage.disk_total_bytes).toBeGreaterThan(0);
    expect(r.storage.disk_free_bytes).toBeGreaterThan(0);
    expect(r.tasks).toMatchObject({ known: true, total: 0, unreconciled: [] });
    expect(r.tasks.counts).toMatchObject({ queued: 0, running: 0, archived: 0 });
    expect(r.backup).toMatchObject({
      enabled: false,
      failing: false,
      dir: join(t.paths.dataDir, 'backups'),
    });
    expect(r.container).toMatchObject({ enabled: false, consulted: false, available: null });
    expect(r.problems).toEqual([]);
  });

  it('counts events, snapshots and rows, and names the oldest event', async () => {
    const t = await buildTestApp();
    const store = t.kernel.services.store;
    t.kernel.services.events.append('config.changed', {}, { source: 'api' });
    const p = insertProject(store);
    insertTask(store, p, { state: 'done' });
    const r = await t.json<DoctorReport>('GET', '/v1/doctor');
    expect(r.database.oldest_event_at).toMatch(/^\d{4}-.*Z$/);
    expect(r.database.table_rows).toMatchObject({ events: 1, projects: 1, tasks: 1, step_runs: 0 });
    expect(r.database.workflow_snapshot_bytes).toBeGreaterThan(10);
    expect(r.tasks).toMatchObject({ total: 1, counts: { done: 1 } });
  });

  it('probes agent CLIs: version, login, verdicts (fresh by default, the cache with probe=false)', async () => {
    const t = await buildTestApp({ config: `agents:\n  claude:\n    path: ${FAKE_CLAUDE}\n` });
    const r = await t.json<DoctorReport>('GET', '/v1/doctor');
    const claude = r.agents.find((a) => a.name === 'claude');
    expect(claude).toMatchObject({
      available: true,
      path: FAKE_CLAUDE,
      version: '2.1.330',
      logged_in: true,
      supports_input: true,
      version_verdict: 'tested',
      restricted_verdict: 'supported',
    });
    expect(claude?.tested_versions).toContain('2.1.330');
    const cached = await t.json<DoctorReport>('GET', '/v1/doctor?probe=false');
    expect(cached.agents.find((a) => a.name === 'claude')).toEqual(claude);
    expect((await t.api('GET', '/v1/doctor?probe=maybe')).statusCode).toBe(400);
  });

  it('never lists a missing agent CLI or a blocked task as a problem', async () => {
    const t = await buildTestApp({ config: 'agents:\n  codex:\n    path: /nonexistent/codex\n' });
    insertTask(t.kernel.services.store, insertProject(t.kernel.services.store), {
      state: 'blocked',
      block_reason: 'step_failed',
    });
    const r = await t.json<DoctorReport>('GET', '/v1/doctor');
    expect(r.agents.find((a) => a.name === 'codex')).toMatchObject({
      available: false,
      version: '',
      version_verdict: '',
    });
    expect(r.tasks.counts.blocked).toBe(1);
    expect(r.problems).toEqual([]);
  });

  it('problem: config that does not parse', async () => {
    const t = await buildTestApp();
    writeFileSync(t.paths.configFile, 'max_parallel_tasks: [\n');
    const r = await t.json<DoctorReport>('GET', '/v1/doctor');
    expect(r.paths.config_parses).toBe(false);
    expect(r.paths.config_error).toMatch(/does not parse/);
    expect(codes(r)).toEqual(['config_unparseable']);
    expect(r.problems[0]).toMatchObject({ group: 'paths' });
  });

  it('warns about loose permissions without making them a problem', async () => {
    const t = await buildTestApp();
    chmodSync(t.paths.configFile, 0o644);
    const r = await t.json<DoctorReport>('GET', '/v1/doctor');
    expect(r.paths.config_permissions).toEqual([
      {
        path: t.paths.configFile,
        mode: '0644',
        expected_mode: '0600',
        remediation: `chmod 600 ${t.paths.configFile}`,
      },
    ]);
    expect(r.problems).toEqual([]);
  });

  it('problem: an orphaned worktree, which fix removes while keeping its branch', async () => {
    const t = await buildTestApp();
    const { repo, path } = strayWorktree(t, '77');
    const r = await t.json<DoctorReport>('GET', '/v1/doctor');
    expect(r.storage.worktree_count).toBe(1);
    expect(r.storage.worktree_bytes).toBeGreaterThan(0);
    expect(r.storage.orphans).toEqual([
      { name: '77', path, kind: 'worktree', task_id: 77, size_bytes: expect.any(Number) },
    ]);
    expect(codes(r)).toEqual(['orphaned_worktrees']);

    const fixed = await t.json<{ actions: FixAction[]; report: DoctorReport }>(
      'POST',
      '/v1/doctor/fix',
      {},
    );
    expect(fixed.actions[0]).toMatchObject({
      action: 'remove_worktree',
      target: path,
      status: 'done',
      freed_bytes: expect.any(Number),
    });
    expect(existsSync(path)).toBe(false);
    expect(repo.git('branch', '--list', 'svc/77-stray')).toContain('svc/77-stray');
    expect(repo.git('worktree', 'list')).not.toContain(path);
    expect(fixed.report.problems).toEqual([]);
  });

  it('fix skips a dirty orphan (with its reason) unless forced; a worktree of a task is never an orphan', async () => {
    const t = await buildTestApp();
    const { path } = strayWorktree(t, '5');
    writeFileSync(join(path, 'wip.txt'), 'uncommitted\n');
    // A live task claims its own worktree by path.
    const claimed = strayWorktree(t, '6');
    const store = t.kernel.services.store;
    insertTask(store, insertProject(store), { state: 'done', worktree_path: claimed.path });

    const fix = await t.json<{ actions: FixAction[] }>('POST', '/v1/doctor/fix');
    const remove = fix.actions.filter((a) => a.action === 'remove_worktree');
    expect(remove).toEqual([
      expect.objectContaining({ target: path, status: 'skipped', reason: 'worktree_dirty' }),
    ]);
    expect(remove[0]?.detail).toMatch(/uncommitted/);
    expect(existsSync(path)).toBe(true);

    const forced = await t.json<{ actions: FixAction[] }>('POST', '/v1/doctor/fix?force=true');
    expect(forced.actions[0]).toMatchObject({ target: path, status: 'done' });
    expect(existsSync(path)).toBe(false);
    expect(existsSync(claimed.path)).toBe(true);
  });

  it('fix compacts the database, but not while a task is in flight', async () => {
    const t = await buildTestApp();
    const store = t.kernel.services.store;
    const p = insertProject(store);
    const running = insertTask(store, p, { state: 'running' });
    const skipped = await t.json<{ actions: FixAction[] }>('POST', '/v1/doctor/fix', {});
    expect(skipped.actions).toEqual([
      expect.objectContaining({
        action: 'compact_database',
        target: t.paths.dbFile,
        status: 'skipped',
        reason: 'tasks_in_flight',
      }),
    ]);
    expect(skipped.actions[0]?.detail).toMatch(/in flight/);
    store.db.prepare("UPDATE tasks SET state = 'done' WHERE id = ?").run(running);
    const done = await t.json<{ actions: FixAction[]; report: DoctorReport }>(
      'POST',
      '/v1/doctor/fix',
    );
    expect(done.actions).toEqual([
      expect.objectContaining({
        action: 'compact_database',
        status: 'done',
        freed_bytes: expect.any(Number),
      }),
    ]);
    expect(done.report.database.integrity_check).toBe('ok');
    expect((await t.api('POST', '/v1/doctor/fix', { force: 'yes' })).statusCode).toBe(400);
  });

  it('problem: an unreconciled task (queued, done, aborted or archived holding a running step run)', async () => {
    const t = await buildTestApp();
    const store = t.kernel.services.store;
    const p = insertProject(store);
    const done = insertTask(store, p, { state: 'done' });
    insertStepRun(store, t.paths.transcriptsDir, done, { state: 'running', finished_at: null });
    // Open runs are correct in waiting states.
    const gate = insertTask(store, p, { state: 'awaiting_gate' });
    insertStepRun(store, t.paths.transcriptsDir, gate, { state: 'running', finished_at: null });
    const r = await t.json<DoctorReport>('GET', '/v1/doctor');
    expect(r.tasks.unreconciled).toEqual([{ task_id: done, state: 'done', open_step_runs: 1 }]);
    expect(codes(r)).toEqual(['unreconciled_task']);
    expect(r.problems[0]?.message).toContain(`task ${done}`);
  });

  it('problem: a failed scheduled backup, until a later run succeeds', async () => {
    const t = await buildTestApp({ config: 'backup:\n  interval: 1h\n' });
    const backups = t.kernel.services.backups;
    await backups.whenIdle();
    // The first run at start succeeded; break the directory and wait for the next run.
    expect((await t.json<DoctorReport>('GET', '/v1/doctor')).backup).toMatchObject({
      enabled: true,
      archive_count: 1,
      failing: false,
    });
    const bad = join(t.paths.transcriptsDir, 'backups');
    await t.json('PATCH', '/v1/config', { backup: { dir: bad } });
    await (t.clock as FakeClock).advance('1h');
    await backups.whenIdle();
    const r = await t.json<DoctorReport>('GET', '/v1/doctor');
    expect(r.backup).toMatchObject({ failing: true, dir: bad });
    expect(r.backup.last_error).toMatch(/inside the transcripts directory/);
    expect(codes(r)).toEqual(['scheduled_backup_failed']);

    await t.json('PATCH', '/v1/config', { backup: { dir: '' } });
    await (t.clock as FakeClock).advance('1h');
    await backups.whenIdle();
    const healed = await t.json<DoctorReport>('GET', '/v1/doctor');
    expect(healed.backup.failing).toBe(false);
    expect(healed.problems).toEqual([]);
  });

  it('reports the container group without consulting a runtime when no image is set', async () => {
    const t = await buildTestApp({
      config: 'container:\n  image: ghcr.io/example/dev:1\n  runtime: podman\n',
    });
    const r = await t.json<DoctorReport>('GET', '/v1/doctor');
    expect(r.container).toMatchObject({
      enabled: true,
      image: 'ghcr.io/example/dev:1',
      runtime: 'podman',
      consulted: true,
    });
    // Whatever the machine has, a runtime is information, never a problem.
    expect(r.problems).toEqual([]);
  });

  it('leaves git alone: fix deletes no branch and no row', async () => {
    const t = await buildTestApp();
    const repo = gitRepo();
    const store = t.kernel.services.store;
    const p = insertProject(store, repo.path);
    insertTask(store, p, { state: 'archived', archived_at: '2026-01-01T00:00:00Z' });
    const before = git(repo.path, 'branch', '--list');
    await t.json('POST', '/v1/doctor/fix', { force: true });
    expect(git(repo.path, 'branch', '--list')).toBe(before);
    expect((await t.json<DoctorReport>('GET', '/v1/doctor')).tasks.total).toBe(1);
  });
});
