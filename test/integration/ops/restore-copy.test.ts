// Issue 18 point 3 (decision 194): a restore is a copy, never a link to the original. A backup
// taken while a task runs, restored into a second pair of directories and started beside the
// original: the restored task never runs in the original's worktree nor stops its process; it is
// re-cut under its own data directory once the branch is free. A database copied by hand is held
// to the same rule, and the doctor names a task whose worktree lies outside the data directory.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../../cli/exit-codes.js';
import { main } from '../../../cli/index.js';
import { pathsFor } from '../../../kernel/daemon/index.js';
import type { DoctorReport, RestoreResult } from '../../../kernel/ops/index.js';
import { buildTestApp, type TestApp, waitFor } from '../../support/app.js';
import { insertProject, insertTask } from '../../support/rows.js';
import { act, addProject, createTask, getTask, waitState } from '../../support/tasks.js';
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

/** Two steps; the first records where it runs and waits for `go`, the second records where it runs. */
const TWO = (marks: string) => `name: two
steps:
  - id: first
    type: command
    run: echo "$PWD" >> ${marks}/first && git commit -q --allow-empty -m first && while [ ! -f ${marks}/go ]; do sleep 0.05; done
  - id: second
    type: command
    run: echo "$PWD" >> ${marks}/second
`;

const lines = (file: string) =>
  existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean) : [];

describe('restore into a second pair of directories (decision 194)', { timeout: 180_000 }, () => {
  it('never runs in or stops the original; re-cuts the worktree under its own data directory', async () => {
    const a = await buildTestApp({ keepOpen: true });
    const marks = tempDir();
    const { project, repo } = await addProject(a, { two: TWO(marks) });
    const task = await createTask(a, { project_id: project.id, title: 'Copy', workflow: 'two' });
    await waitFor(() => lines(join(marks, 'first')).length === 1, 30_000);
    const original = (await getTask(a, task.id)).worktree_path as string;
    expect(original.startsWith(a.paths.worktreesDir)).toBe(true);

    const archive = join(tempDir(), 'live.tar.gz');
    await a.json('POST', '/v1/daemon/backup', { path: archive });
    const fresh = tempDir('svc-restored-');
    const paths = pathsFor(join(fresh, 'config'), join(fresh, 'data'));
    const restored = await svc(paths, 'restore', archive, '--json');
    expect(restored.err).toBe('');
    expect(restored.code).toBe(EXIT.ok);
    const summary = JSON.parse(restored.out) as RestoreResult;
    expect(summary.rewritten_worktrees).toBe(1);

    // The copy starts while the original still runs the task.
    const b = await buildTestApp({ root: fresh, keepOpen: true });
    const blocked = await waitState(b, task.id, ['blocked', 'done'], 30_000);
    expect(blocked.state).toBe('blocked');
    expect(blocked.block_reason).toBe('worktree_missing');
    expect(blocked.worktree_path).toBe(join(paths.worktreesDir, String(task.id)));
    expect(blocked.block_detail).toContain(original);
    // The original's step is still the one running, in its own worktree, and nothing ran twice.
    expect(lines(join(marks, 'first'))).toEqual([original]);
    expect((await getTask(a, task.id)).state).toBe('running');
    writeFileSync(join(marks, 'go'), '');
    await waitState(a, task.id, 'done', 30_000);
    expect(lines(join(marks, 'second'))).toEqual([original]);
    const originalLog = repo.git('log', '--format=%s', task.branch_name);

    // Once the original's worktree is gone, a retry in the copy cuts its own.
    await a.close();
    execFileSync('git', ['worktree', 'remove', '--force', original], { cwd: repo.path });
    expect((await act(b, task.id, 'retry', {})).statusCode).toBe(200);
    const done = await waitState(b, task.id, 'done', 30_000);
    const own = join(paths.worktreesDir, String(task.id));
    expect(done.worktree_path).toBe(own);
    expect(lines(join(marks, 'first'))).toEqual([original, own]);
    expect(lines(join(marks, 'second'))).toEqual([original, own]);
    expect(existsSync(original)).toBe(false);
    expect(repo.git('log', '--format=%s', task.branch_name).split('\n').length).toBe(
      originalLog.split('\n').length + 1,
    );
    const doctor = await b.json<DoctorReport>('GET', '/v1/doctor?probe=false');
    expect(doctor.problems.map((p) => p.code)).not.toContain('foreign_worktree');
    await b.close();
  });

  it('holds a database copied by hand to the same rule, and the doctor names the foreign worktree', async () => {
    const a = await buildTestApp({ keepOpen: true });
    const marks = tempDir();
    const { project } = await addProject(a, { two: TWO(marks) });
    const task = await createTask(a, { project_id: project.id, title: 'Hand', workflow: 'two' });
    await waitFor(() => lines(join(marks, 'first')).length === 1, 30_000);
    const original = (await getTask(a, task.id)).worktree_path as string;

    const fresh = tempDir('svc-copied-');
    const paths = pathsFor(join(fresh, 'config'), join(fresh, 'data'));
    execFileSync('mkdir', ['-p', paths.dataDir]);
    await a.kernel.services.store.db.backup(paths.dbFile);

    const doctorOnly = await buildTestApp({
      root: fresh,
      keepOpen: true,
      kernel: { startEngine: false },
    });
    const report = await doctorOnly.json<DoctorReport>('GET', '/v1/doctor?probe=false');
    expect(report.problems).toContainEqual(
      expect.objectContaining({ code: 'foreign_worktree', group: 'tasks' }),
    );
    expect(report.tasks.foreign_worktrees).toEqual([
      { task_id: task.id, state: 'running', worktree_path: original },
    ]);
    await doctorOnly.close();

    const b = await buildTestApp({ root: fresh, keepOpen: true });
    const blocked = await waitState(b, task.id, ['blocked', 'done'], 30_000);
    expect(blocked).toMatchObject({ state: 'blocked', block_reason: 'worktree_missing' });
    expect(lines(join(marks, 'first'))).toEqual([original]);
    // The original's process was not stopped by the copy's crash recovery.
    expect((await getTask(a, task.id)).state).toBe('running');
    writeFileSync(join(marks, 'go'), '');
    await waitState(a, task.id, 'done', 30_000);
    await b.close();
    await a.close();
  });

  it('the doctor reports a done task whose worktree lies outside the data directory', async () => {
    const t = await buildTestApp();
    const store = t.kernel.services.store;
    const elsewhere = join(tempDir(), 'other-data', 'worktrees', '7');
    const id = insertTask(store, insertProject(store), {
      state: 'done',
      worktree_path: elsewhere,
    });
    const report = await t.json<DoctorReport>('GET', '/v1/doctor?probe=false');
    expect(report.tasks.foreign_worktrees).toEqual([
      { task_id: id, state: 'done', worktree_path: elsewhere },
    ]);
    expect(report.problems.find((p) => p.code === 'foreign_worktree')?.message).toContain(
      elsewhere,
    );
    // Archiving the copy's task leaves the other installation's directory alone.
    mkdirSync(elsewhere, { recursive: true });
    writeFileSync(join(elsewhere, 'theirs.txt'), 'theirs\n');
    const archived = await act(t, id, 'archive', {});
    expect(archived.statusCode, archived.body).toBe(200);
    expect(readFileSync(join(elsewhere, 'theirs.txt'), 'utf8')).toBe('theirs\n');
    rmSync(elsewhere, { recursive: true, force: true });
  });
});
