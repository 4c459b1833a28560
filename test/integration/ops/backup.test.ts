// SPEC §4.1 POST /v1/daemon/backup and backup rules 1–5, §2.9 backup result; issue 10 point 2:
// a backup taken while a task writes, restored into a fresh data directory with every task and
// transcript intact; refusals; `svc restore` only with the daemon down.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { list as tarList } from 'tar';
import { describe, expect, it, onTestFinished } from 'vitest';
import { EXIT } from '../../../cli/exit-codes.js';
import { main } from '../../../cli/index.js';
import { pathsFor } from '../../../kernel/daemon/index.js';
import { runDaemon } from '../../../kernel/listener.js';
import type { BackupResult, RestoreResult } from '../../../kernel/ops/index.js';
import { TranscriptWriter } from '../../../kernel/proc/index.js';
import { NEWEST_MIGRATION } from '../../../kernel/store/index.js';
import { buildTestApp, type TestApp, waitFor } from '../../support/app.js';
import { insertProject, insertStepRun, insertTask } from '../../support/rows.js';
import { addProject, createTask, waitState } from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';

async function svc(paths: TestApp['paths'], ...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(
    args,
    { ...process.env, SVC_DATA_DIR: paths.dataDir, SVC_CONFIG_DIR: paths.configDir },
    { out: (s) => out.push(s), err: (s) => err.push(s) },
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
}

async function entries(archive: string): Promise<string[]> {
  const names: string[] = [];
  await tarList({ file: archive, onReadEntry: (e) => names.push(e.path) });
  return names;
}

describe('POST /v1/daemon/backup', () => {
  it.each([
    ['a relative path', () => 'backup.tar.gz', /absolute/],
    ['an empty path', () => '', /empty/],
    ['a file that exists', (t: TestApp) => t.paths.configFile, /already exists/],
    ['a missing directory', () => '/nonexistent/dir/b.tar.gz', /does not exist/],
    [
      'a path inside the transcripts directory',
      (t: TestApp) => {
        mkdirSync(t.paths.transcriptsDir, { recursive: true });
        return join(t.paths.transcriptsDir, 'b.tar.gz');
      },
      /inside the transcripts directory/,
    ],
    [
      'a path inside the workflows directory',
      (t: TestApp) => {
        mkdirSync(t.paths.workflowsDir, { recursive: true });
        return join(t.paths.workflowsDir, 'b.tar.gz');
      },
      /inside the workflows directory/,
    ],
  ])('refuses %s with 400 validation_failed naming path', async (_what, pathOf, message) => {
    const t = await buildTestApp();
    const res = await t.api('POST', '/v1/daemon/backup', { path: pathOf(t) });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({
      code: 'validation_failed',
      message: expect.stringMatching(message),
      details: { field: 'path' },
    });
  });

  it('refuses a body without path or with unknown keys', async () => {
    const t = await buildTestApp();
    expect((await t.api('POST', '/v1/daemon/backup', {})).statusCode).toBe(400);
    const extra = await t.api('POST', '/v1/daemon/backup', { path: '/tmp/x.tar.gz', cold: true });
    expect(extra.statusCode).toBe(400);
  });

  it('writes a 0600 .tar.gz with the database copy, transcripts and workflows, and the result fields', async () => {
    const t = await buildTestApp();
    const store = t.kernel.services.store;
    const task = insertTask(store, insertProject(store), { state: 'done' });
    const run = insertStepRun(store, t.paths.transcriptsDir, task, {
      lines: ['{"type":"svc.output","text":"hello"}'],
    });
    mkdirSync(t.paths.workflowsDir, { recursive: true });
    writeFileSync(join(t.paths.workflowsDir, 'mine.yaml'), 'name: mine\nsteps: []\n');
    const dir = tempDir();
    const path = join(dir, 'svc.tar.gz');
    const r = await t.json<BackupResult>('POST', '/v1/daemon/backup', { path });
    expect(r).toEqual({
      path,
      bytes: statSync(path).size,
      database_bytes: expect.any(Number),
      transcript_bytes: statSync(run.transcript as string).size,
      schema_version: NEWEST_MIGRATION.version,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/),
    });
    expect(r.database_bytes).toBeGreaterThan(0);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['svc.tar.gz']);
    expect(await entries(path)).toEqual(
      expect.arrayContaining([
        'manifest.json',
        'svc.db',
        `transcripts/${task}/0-1.jsonl`,
        'workflows/mine.yaml',
      ]),
    );
    const events = t.kernel.services.events.query({
      afterId: 0,
      limit: 10,
      kinds: ['backup.created'],
    });
    expect(events[0]?.payload).toMatchObject({ path, scheduled: false });
    // Never overwrites: the same path again is refused.
    expect((await t.api('POST', '/v1/daemon/backup', { path })).statusCode).toBe(400);
  });
});

describe('backup while a task writes, then restore into a fresh data directory', () => {
  it('keeps every task, step run and transcript the copied database names', async () => {
    const t = await buildTestApp({ keepOpen: true });
    const store = t.kernel.services.store;
    const project = insertProject(store);
    const tasks = [1, 2, 3].map((i) =>
      insertTask(store, project, { state: i === 3 ? 'running' : 'done', title: `task ${i}` }),
    );
    for (const id of tasks.slice(0, 2))
      insertStepRun(store, t.paths.transcriptsDir, id, { lines: [`{"done":${id}}`] });
    // Enough history that SQLite's online copy takes several steps, with writes landing in between.
    store.tx(() => {
      for (let i = 0; i < 2000; i++)
        t.kernel.services.events.append(
          'config.changed',
          {},
          { source: 'api', pad: 'x'.repeat(1000) },
        );
    });

    // A task that keeps writing: each attempt appends transcript lines and records its run and an
    // event in one transaction, as the engine does, yielding to the event loop in between.
    const writer = tasks[2] as number;
    let stop = false;
    let attempts = 0;
    // Attempts whose row is committed: `attempts` counts one more while an attempt awaits its
    // transcript, and a backup that starts then rightly copies the database without that row.
    let committed = 0;
    const writing = (async () => {
      while (!stop) {
        attempts++;
        const file = join(t.paths.transcriptsDir, String(writer), `0-${attempts}.jsonl`);
        const w = new TranscriptWriter(file, 0);
        for (let i = 0; i < 20; i++) w.write({ type: 'svc.output', attempt: attempts, line: i });
        // The writer queues and writes off the event loop (decision 232): on disk before the row.
        await w.close();
        store.tx(() => {
          insertStepRun(store, t.paths.transcriptsDir, writer, {
            attempt: attempts,
            transcript_path: file,
            state: 'failed',
          });
          t.kernel.services.events.append('config.changed', {}, { source: 'api', attempts });
        });
        committed = attempts;
        // Keep appending to the open transcript after the row exists, as a live attempt does.
        await new Promise((r) => setImmediate(r));
        const more = new TranscriptWriter(file, 0);
        more.write({ type: 'svc.output', attempt: attempts, line: 'late' });
        await more.close();
      }
    })();
    await new Promise((r) => setTimeout(r, 30));
    const archive = join(tempDir(), 'during.tar.gz');
    const attemptsAtStart = attempts;
    const committedAtStart = committed;
    const result = await t.json<BackupResult>('POST', '/v1/daemon/backup', { path: archive });
    const attemptsAtEnd = attempts;
    expect(attemptsAtEnd).toBeGreaterThan(attemptsAtStart);
    stop = true;
    await writing;
    expect(attemptsAtEnd).toBeGreaterThan(1);
    await t.close();

    // Restore into a brand-new data and config directory.
    const fresh = tempDir('svc-restored-');
    const paths = pathsFor(join(fresh, 'config'), join(fresh, 'data'));
    const restored = await svc(paths, 'restore', archive, '--json');
    expect(restored.err).toBe('');
    expect(restored.code).toBe(EXIT.ok);
    const summary = JSON.parse(restored.out) as RestoreResult;
    expect(summary).toMatchObject({
      schema_version: result.schema_version,
      created_at: result.created_at,
      tasks: 3,
      displaced: null,
    });
    expect(summary.rewritten_paths).toBe(summary.step_runs);

    const r = await buildTestApp({ root: fresh, kernel: { startEngine: false } });
    const db = r.kernel.services.store.db;
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    const restoredRuns = db
      .prepare('SELECT id, task_id, attempt, transcript_path FROM step_runs ORDER BY id')
      .all() as Array<{ id: number; task_id: number; attempt: number; transcript_path: string }>;
    expect(restoredRuns.length).toBe(summary.step_runs);
    const writerRuns = restoredRuns.filter((x) => x.task_id === writer).length;
    expect(writerRuns).toBeGreaterThanOrEqual(committedAtStart);
    expect(writerRuns).toBeLessThanOrEqual(attemptsAtEnd);
    for (const run of restoredRuns) {
      expect(run.transcript_path.startsWith(paths.transcriptsDir)).toBe(true);
      const res = await r.api('GET', `/v1/tasks/${run.task_id}/steps/${run.id}/transcript`);
      expect(res.statusCode).toBe(200);
      if (run.task_id === writer) {
        const lines = res.body.trim().split('\n');
        // Every line written before the row existed is there.
        expect(lines.slice(0, 20).map((l) => JSON.parse(l).line)).toEqual([...Array(20).keys()]);
      }
    }
    for (const id of tasks) {
      const task = await r.json<{ id: number; title: string }>('GET', `/v1/tasks/${id}`);
      expect(task.title).toBe(`task ${tasks.indexOf(id) + 1}`);
    }
    expect(statSync(paths.dbFile).mode & 0o777).toBe(0o600);
  });
});

describe('backup while a real task runs a command step', () => {
  it('restores the task, its step runs and the transcript lines written before the copy', async () => {
    const t = await buildTestApp({ keepOpen: true });
    const { project } = await addProject(t, {
      chatty: [
        'name: chatty',
        'steps:',
        '  - id: talk',
        '    type: command',
        '    run: for i in $(seq 1 40); do echo "line $i"; sleep 0.05; done',
        '',
      ].join('\n'),
    });
    const task = await createTask(t, {
      project_id: project.id,
      workflow: 'chatty',
      title: 'chatty',
    });
    await waitState(t, task.id, 'running');
    // Wait until the command has written a few lines, then back up while it keeps writing.
    const transcript = await waitFor(() => {
      const row = t.kernel.services.store.db
        .prepare(
          'SELECT transcript_path FROM step_runs WHERE task_id = ? AND transcript_path IS NOT NULL',
        )
        .pluck()
        .get(task.id) as string | undefined;
      return row && existsSync(row) && readFileSync(row, 'utf8').includes('line 5') ? row : null;
    });
    const archive = join(tempDir(), 'live.tar.gz');
    await t.json<BackupResult>('POST', '/v1/daemon/backup', { path: archive });
    expect(readFileSync(transcript, 'utf8')).not.toContain('line 40');
    await waitState(t, task.id, 'done');
    await t.close();

    const fresh = tempDir('svc-restored-');
    const paths = pathsFor(join(fresh, 'config'), join(fresh, 'data'));
    expect((await svc(paths, 'restore', archive)).code).toBe(EXIT.ok);
    const r = await buildTestApp({ root: fresh, kernel: { startEngine: false } });
    const restored = await r.json<{ id: number; title: string; state: string }>(
      'GET',
      `/v1/tasks/${task.id}`,
    );
    // The copy was taken mid-run: the task is as it was then.
    expect(restored).toMatchObject({ title: 'chatty', state: 'running' });
    const steps = await r.json<Array<{ id: number; has_transcript: boolean }>>(
      'GET',
      `/v1/tasks/${task.id}/steps`,
    );
    expect(steps).toHaveLength(1);
    const body = (await r.api('GET', `/v1/tasks/${task.id}/steps/${steps[0]?.id}/transcript`)).body;
    for (let i = 1; i <= 5; i++) expect(body).toContain(`line ${i}`);
  });
});

describe('svc restore', () => {
  async function archiveOf(t: TestApp): Promise<string> {
    const path = join(tempDir(), 'a.tar.gz');
    await t.json('POST', '/v1/daemon/backup', { path });
    return path;
  }

  it('refuses while a daemon runs on the data directory', async () => {
    const t = await buildTestApp();
    const archive = await archiveOf(t);
    const target = tempDir();
    const paths = pathsFor(join(target, 'config'), join(target, 'data'));
    const d = await runDaemon(paths);
    onTestFinished(() => d.stop());
    const r = await svc(paths, 'restore', archive);
    expect(r.code).toBe(EXIT.conflict);
    expect(r.err).toMatch(/already running.*stop it first/);
  });

  it('refuses to replace existing data unless forced, then moves it aside', async () => {
    const t = await buildTestApp();
    insertProject(t.kernel.services.store);
    const archive = await archiveOf(t);
    const other = await buildTestApp({ keepOpen: true });
    await other.close();
    const refused = await svc(other.paths, 'restore', archive);
    expect(refused.code).toBe(EXIT.invalid);
    expect(refused.err).toMatch(/refusing to replace existing data/);
    const forced = await svc(other.paths, 'restore', archive, '--force', '--json');
    expect(forced.code).toBe(EXIT.ok);
    const summary = JSON.parse(forced.out) as RestoreResult;
    expect(summary.displaced).toMatch(/pre-restore-\d{8}T\d{6}Z$/);
    expect(existsSync(join(summary.displaced as string, 'svc.db'))).toBe(true);
  });

  it('refuses a file that is not an svc archive', async () => {
    const t = await buildTestApp({ keepOpen: true });
    await t.close();
    const bogus = join(tempDir(), 'x.tar.gz');
    writeFileSync(bogus, 'nope');
    const r = await svc(t.paths, 'restore', bogus);
    expect(r.code).not.toBe(EXIT.ok);
    expect(readFileSync(t.paths.dbFile).length).toBeGreaterThan(0);
  });

  it('svc backup resolves a relative path against the caller and prints the result', async () => {
    const t = await buildTestApp({ keepOpen: true });
    await t.close();
    const d = await runDaemon(t.paths);
    onTestFinished(() => d.stop());
    const dir = tempDir();
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      const r = await svc(t.paths, 'backup', 'here.tar.gz');
      expect(r.err).toBe('');
      expect(r.out).toMatch(new RegExp(`^wrote ${join(dir, 'here.tar.gz')} `));
      const dflt = await svc(t.paths, 'backup', '--json');
      const result = JSON.parse(dflt.out) as BackupResult;
      expect(result.path).toMatch(/svc-backup-\d{8}T\d{6}Z\.tar\.gz$/);
    } finally {
      process.chdir(cwd);
    }
  });
});

describe('backup while transcripts grow', () => {
  it('archives files that grow between being listed and being read (a fixed snapshot of each)', async () => {
    const t = await buildTestApp();
    // Many transcripts whose sizes are not block multiples, appended to by another process for
    // the whole backup: tar alone refuses a file that grows under it.
    const dir = join(t.paths.transcriptsDir, '1');
    mkdirSync(dir, { recursive: true });
    const files = [...Array(200).keys()].map((i) => join(dir, `${i}.jsonl`));
    for (const f of files) writeFileSync(f, `${'x'.repeat(700)}\n`);
    const script = `const fs=require('node:fs');const files=${JSON.stringify(files)};
      for(;;){for(const f of files)fs.appendFileSync(f,'{"line":"more"}\\n');}`;
    const writer = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
    onTestFinished(() => {
      writer.kill('SIGKILL');
    });
    for (let round = 0; round < 3; round++) {
      const archive = join(tempDir(), `grow-${round}.tar.gz`);
      const res = await t.api('POST', '/v1/daemon/backup', { path: archive });
      expect(res.statusCode, res.body).toBe(200);
      const names = await entries(archive);
      expect(
        names.filter((n) => n.startsWith('transcripts/1/') && n.endsWith('.jsonl')).length,
      ).toBe(200);
      expect(statSync(archive).mode & 0o777).toBe(0o600);
    }
  });
});
