// SPEC §4.1 GET /v1/maintenance/orphans and POST /v1/maintenance/gc, §2.9 maintenance body;
// issue 10 point 3: gc dry-run vs real, skip reasons, mismatches, never a branch or a row.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MaintenanceBody } from '../../../kernel/ops/index.js';
import { buildTestApp, type TestApp } from '../../support/app.js';
import { gitRepo } from '../../support/git.js';
import { insertProject, insertStepRun, insertTask } from '../../support/rows.js';

function setUp(t: TestApp) {
  const repo = gitRepo();
  const store = t.kernel.services.store;
  const project = insertProject(store, repo.path);
  mkdirSync(t.paths.worktreesDir, { recursive: true });
  const worktree = (name: string) => {
    const path = join(t.paths.worktreesDir, name);
    repo.git('worktree', 'add', '-q', '-b', `svc/${name}`, path, 'main');
    return path;
  };
  // Claimed: a done task's worktree, and the transcripts of every task row.
  const kept = worktree('1');
  const task = insertTask(store, project, { state: 'done', worktree_path: kept });
  insertStepRun(store, t.paths.transcriptsDir, task, { lines: ['{"kept":true}'] });
  // Orphans: a clean worktree, a dirty one, a plain directory, a stray file, an unclaimed transcript folder.
  const clean = worktree('40');
  const dirty = worktree('41');
  writeFileSync(join(dirty, 'wip.txt'), 'wip\n');
  const plain = join(t.paths.worktreesDir, 'scratch');
  mkdirSync(plain);
  writeFileSync(join(plain, 'f'), 'x');
  const file = join(t.paths.worktreesDir, 'note.txt');
  writeFileSync(file, 'x');
  const transcripts = join(t.paths.transcriptsDir, '99');
  mkdirSync(transcripts, { recursive: true });
  writeFileSync(join(transcripts, '0-1.jsonl'), '{"orphan":true}\n');
  // A row whose worktree directory is gone: reported, never changed.
  const gone = insertTask(store, project, {
    state: 'blocked',
    worktree_path: join(t.paths.worktreesDir, '3'),
  });
  return { repo, task, kept, clean, dirty, plain, file, transcripts, gone };
}

describe('orphans and gc', () => {
  it('lists orphans with kind, task id, bytes and skip reasons, and removes nothing', async () => {
    const t = await buildTestApp();
    const s = setUp(t);
    const body = await t.json<MaintenanceBody>('GET', '/v1/maintenance/orphans');
    expect(body.orphans).toEqual([
      {
        path: s.clean,
        kind: 'worktree',
        task_id: 40,
        bytes: expect.any(Number),
        skip_reason: null,
        error: null,
        removed: false,
      },
      {
        path: s.dirty,
        kind: 'worktree',
        task_id: 41,
        bytes: expect.any(Number),
        skip_reason: 'worktree_dirty',
        error: null,
        removed: false,
      },
      {
        path: s.file,
        kind: 'worktree',
        task_id: null,
        bytes: 1,
        skip_reason: 'not_a_directory',
        error: null,
        removed: false,
      },
      {
        path: s.plain,
        kind: 'worktree',
        task_id: null,
        bytes: 1,
        skip_reason: 'dirty_unknown',
        error: null,
        removed: false,
      },
      {
        path: s.transcripts,
        kind: 'transcript',
        task_id: 99,
        bytes: 16,
        skip_reason: null,
        error: null,
        removed: false,
      },
    ]);
    expect(body.mismatches).toEqual([
      { task_id: s.gone, path: join(t.paths.worktreesDir, '3'), state: 'blocked' },
    ]);
    expect(body).toMatchObject({ reclaimed: 0, reclaimed_bytes: 0, dry_run: true, force: false });
    expect(body.bytes).toBe(body.orphans.reduce((n, o) => n + o.bytes, 0));
    for (const p of [s.clean, s.dirty, s.plain, s.file, s.transcripts])
      expect(existsSync(p)).toBe(true);
    expect((await t.json<{ orphans: number }>('GET', '/v1/info')).orphans).toBe(5);
  });

  it('a dry run reports what would go and removes nothing; the real run removes only that', async () => {
    const t = await buildTestApp();
    const s = setUp(t);
    const dry = await t.json<MaintenanceBody>('POST', '/v1/maintenance/gc', { dry_run: true });
    expect(dry).toMatchObject({ dry_run: true, force: false, reclaimed: 0, reclaimed_bytes: 0 });
    expect(existsSync(s.clean)).toBe(true);

    const real = await t.json<MaintenanceBody>('POST', '/v1/maintenance/gc', {});
    expect(real).toMatchObject({ dry_run: false, force: false, reclaimed: 2 });
    const removed = real.orphans.filter((o) => o.removed).map((o) => o.path);
    expect(removed).toEqual([s.clean, s.transcripts]);
    expect(real.reclaimed_bytes).toBe(
      real.orphans.filter((o) => o.removed).reduce((n, o) => n + o.bytes, 0),
    );
    expect(existsSync(s.clean)).toBe(false);
    expect(existsSync(s.transcripts)).toBe(false);
    for (const p of [s.kept, s.dirty, s.plain, s.file]) expect(existsSync(p)).toBe(true);
    // Branches stay; git forgot the removed worktree; rows are untouched.
    expect(s.repo.git('branch', '--list', 'svc/40')).toContain('svc/40');
    expect(s.repo.git('worktree', 'list')).not.toContain(s.clean);
    const rows = t.kernel.services.store.db
      .prepare('SELECT id, state, worktree_path FROM tasks ORDER BY id')
      .all();
    expect(rows).toEqual([
      { id: s.task, state: 'done', worktree_path: s.kept },
      { id: s.gone, state: 'blocked', worktree_path: join(t.paths.worktreesDir, '3') },
    ]);
  });

  it('force also takes dirty and unjudgeable directories, never a non-directory', async () => {
    const t = await buildTestApp();
    const s = setUp(t);
    const dry = await t.json<MaintenanceBody>('POST', '/v1/maintenance/gc', {
      dry_run: true,
      force: true,
    });
    expect(dry.orphans.filter((o) => o.skip_reason === null).map((o) => o.path)).toEqual([
      s.clean,
      s.dirty,
      s.plain,
      s.transcripts,
    ]);
    const forced = await t.json<MaintenanceBody>('POST', '/v1/maintenance/gc', { force: true });
    expect(forced).toMatchObject({ reclaimed: 4, force: true });
    expect(existsSync(s.dirty)).toBe(false);
    expect(existsSync(s.plain)).toBe(false);
    expect(existsSync(s.file)).toBe(true);
    expect(forced.orphans.find((o) => o.path === s.file)).toMatchObject({
      removed: false,
      skip_reason: 'not_a_directory',
    });
    expect(s.repo.git('branch', '--list', 'svc/41')).toContain('svc/41');
    expect((await t.json<{ orphans: number }>('GET', '/v1/info')).orphans).toBe(1);
  });

  it('an archived task claims no worktree but keeps its transcripts; a live task claims worktrees/{id} before its path is written', async () => {
    const t = await buildTestApp();
    const repo = gitRepo();
    const store = t.kernel.services.store;
    const p = insertProject(store, repo.path);
    const archived = insertTask(store, p, {
      state: 'archived',
      archived_at: '2026-01-01T00:00:00Z',
    });
    insertStepRun(store, t.paths.transcriptsDir, archived, { lines: ['{}'] });
    mkdirSync(t.paths.worktreesDir, { recursive: true });
    repo.git(
      'worktree',
      'add',
      '-q',
      '-b',
      'left',
      join(t.paths.worktreesDir, String(archived)),
      'main',
    );
    const queued = insertTask(store, p, { state: 'paused' });
    repo.git(
      'worktree',
      'add',
      '-q',
      '-b',
      'admitting',
      join(t.paths.worktreesDir, String(queued)),
      'main',
    );
    const body = await t.json<MaintenanceBody>('GET', '/v1/maintenance/orphans');
    expect(body.orphans.map((o) => [o.kind, o.task_id])).toEqual([['worktree', archived]]);
  });

  it('refuses unknown body keys and non-boolean flags', async () => {
    const t = await buildTestApp();
    expect((await t.api('POST', '/v1/maintenance/gc', { dry_run: 'yes' })).statusCode).toBe(400);
    expect((await t.api('POST', '/v1/maintenance/gc', { everything: true })).statusCode).toBe(400);
  });
});
