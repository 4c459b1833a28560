// Decision 159: a task that waits only for a slot has its worktree cut ahead, so a freed slot
// only spawns. The cut stays invisible until admission adopts it, follows the base if it moved,
// and is given back when the task leaves the queue another way — also after a restart, when
// nothing remembers the cut.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeClock } from '../../../kernel/clock/index.js';
import { PRECUT_DEPTH, PRECUT_RETRY_MS } from '../../../kernel/engine/precut.js';
import { buildTestApp, type TestApp, waitFor } from '../../support/app.js';
import { bareRemote, type Repo } from '../../support/git.js';
import {
  act,
  addProject,
  commandWorkflow,
  createTask,
  getTask,
  type TaskJson,
  waitState,
} from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';

interface Setup {
  t: TestApp;
  repo: Repo;
  projectId: number;
  marks: string;
  /** A task holding the only slot until `release()`. */
  holder: TaskJson;
  release(): void;
}

/**
 * One slot, held by a task that waits for a file. Tasks created after it wait for the slot; the
 * `head` workflow records the commit its step ran on.
 */
async function oneSlot(config = '', root?: string): Promise<Setup> {
  const marks = tempDir('svc-precut-marks-');
  const t = await buildTestApp({
    config: `max_parallel_tasks: 1\nupdate:\n  check: false\n${config}`,
    // A restart test closes the first daemon itself.
    ...(root ? { root, keepOpen: true } : {}),
  });
  const { repo, project } = await addProject(t, {
    hold: commandWorkflow('hold', `while [ ! -f ${marks}/go ]; do sleep 0.02; done`),
    head: commandWorkflow('head', `git rev-parse HEAD > ${marks}/head-$SVC_TASK_ID`),
  });
  const holder = await createTask(t, { project_id: project.id, title: 'hold', workflow: 'hold' });
  await waitState(t, holder.id, 'running');
  return {
    t,
    repo,
    projectId: project.id,
    marks,
    holder,
    release: () => writeFileSync(join(marks, 'go'), ''),
  };
}

const worktreeOf = (t: TestApp, id: number) => join(t.paths.worktreesDir, String(id));

function registered(repo: Repo, path: string): boolean {
  return repo
    .git('worktree', 'list', '--porcelain')
    .split('\n')
    .some((l) => l === `worktree ${path}`);
}

function branches(repo: Repo): string[] {
  return repo.git('branch', '--format=%(refname:short)').split('\n').filter(Boolean);
}

async function waitCut(s: Setup, id: number): Promise<void> {
  await waitFor(() => s.t.kernel.services.engine.precut.ready().includes(id));
}

/** A task created behind the holder, once its worktree has been cut ahead. */
async function cutOne(s: Setup, title = 'next'): Promise<{ next: TaskJson; path: string }> {
  const next = await createTask(s.t, { project_id: s.projectId, title, workflow: 'head' });
  await waitCut(s, next.id);
  return { next, path: worktreeOf(s.t, next.id) };
}

/** A daemon that cut the next task's worktree ahead, then stopped: what a restart finds. */
async function cutThenStop() {
  const root = tempDir('svc-precut-root-');
  const first = await oneSlot('', root);
  const { next, path } = await cutOne(first);
  await first.t.close();
  return { root, first, next, path };
}

describe('pre-cut worktrees', () => {
  it('cuts the worktree of a task waiting for a slot, shows nothing until admission, then runs in it', async () => {
    const s = await oneSlot();
    const { next, path } = await cutOne(s);
    expect(registered(s.repo, path)).toBe(true);
    expect(branches(s.repo)).toContain(next.branch_name);
    const waiting = await getTask(s.t, next.id);
    expect(waiting.state).toBe('queued');
    expect(waiting.worktree_path).toBeNull();
    expect(waiting).not.toHaveProperty('worktree_cut');
    const main = s.repo.git('rev-parse', 'main');
    s.release();
    const done = await waitState(s.t, next.id, 'done');
    expect(done.worktree_path).toBe(path);
    expect(readFileSync(join(s.marks, `head-${next.id}`), 'utf8').trim()).toBe(main);
  });

  it('cuts only as far ahead as the next admissions, in admission order', async () => {
    const s = await oneSlot();
    const ids: number[] = [];
    for (let i = 0; i < PRECUT_DEPTH + 2; i++)
      ids.push(
        (await createTask(s.t, { project_id: s.projectId, title: `n${i}`, workflow: 'head' })).id,
      );
    for (const id of ids.slice(0, PRECUT_DEPTH)) await waitCut(s, id);
    expect(s.t.kernel.services.engine.precut.ready().sort((a, b) => a - b)).toEqual(
      ids.slice(0, PRECUT_DEPTH),
    );
    for (const id of ids.slice(PRECUT_DEPTH)) expect(existsSync(worktreeOf(s.t, id))).toBe(false);
    s.release();
    for (const id of ids) await waitState(s.t, id, 'done');
  });

  it('moves a pre-cut worktree to the base’s tip when the base moved while the task waited', async () => {
    const s = await oneSlot();
    const { next } = await cutOne(s);
    const cutAt = s.repo.git('rev-parse', 'main');
    const moved = s.repo.commit('moved on', { 'later.txt': 'later\n' });
    expect(moved).not.toBe(cutAt);
    s.release();
    await waitState(s.t, next.id, 'done');
    expect(readFileSync(join(s.marks, `head-${next.id}`), 'utf8').trim()).toBe(moved);
    expect(existsSync(join(worktreeOf(s.t, next.id), 'later.txt'))).toBe(true);
  });

  it('gives the cut back when a waiting task is canceled or paused, and cuts again on resume', async () => {
    const s = await oneSlot();
    const { next: gone } = await cutOne(s, 'gone');
    const { next: parked } = await cutOne(s, 'parked');
    expect((await act(s.t, gone.id, 'cancel')).statusCode).toBe(200);
    expect((await act(s.t, parked.id, 'pause')).statusCode).toBe(200);
    for (const task of [gone, parked]) {
      await waitFor(() => !existsSync(worktreeOf(s.t, task.id)));
      await waitFor(() => !branches(s.repo).includes(task.branch_name as string));
      expect(registered(s.repo, worktreeOf(s.t, task.id))).toBe(false);
    }
    expect((await getTask(s.t, parked.id)).state).toBe('paused');
    expect((await act(s.t, parked.id, 'resume')).statusCode).toBe(200);
    await waitCut(s, parked.id);
    s.release();
    const done = await waitState(s.t, parked.id, 'done');
    expect(done.worktree_path).toBe(worktreeOf(s.t, parked.id));
  });

  it('keeps a commit made in a pre-cut worktree when its task is canceled', async () => {
    const s = await oneSlot();
    const { next, path } = await cutOne(s);
    writeFileSync(join(path, 'work.txt'), 'someone worked here\n');
    s.repo.git('-C', path, 'add', 'work.txt');
    s.repo.git('-C', path, 'commit', '-q', '-m', 'work');
    const work = s.repo.git('-C', path, 'rev-parse', 'HEAD');
    expect((await act(s.t, next.id, 'cancel')).statusCode).toBe(200);
    await waitFor(() => !existsSync(path));
    expect(s.repo.git('rev-parse', next.branch_name as string)).toBe(work);
  });

  it('a forced project delete gives back the cuts of its waiting tasks before it answers', async () => {
    const s = await oneSlot();
    const other = await addProject(s.t, {
      head: commandWorkflow('head', `git rev-parse HEAD > ${s.marks}/other`),
    });
    const next = await createTask(s.t, {
      project_id: other.project.id,
      title: 'next',
      workflow: 'head',
    });
    await waitCut(s, next.id);
    const path = worktreeOf(s.t, next.id);
    const res = await s.t.api('DELETE', `/v1/projects/${other.project.id}?force=true`);
    expect(res.statusCode).toBe(204);
    expect(existsSync(path)).toBe(false);
    expect(registered(other.repo, path)).toBe(false);
    expect(branches(other.repo)).not.toContain(next.branch_name);
    s.release();
  });

  it('does not retry a failed cut on every pass, only after a while', async () => {
    const s = await oneSlot();
    // git cannot create refs/heads/blocked/next while refs/heads/blocked is a file.
    writeFileSync(join(s.repo.path, '.git', 'refs', 'heads', 'blocked'), 'not a ref\n');
    const stuck = await createTask(s.t, {
      project_id: s.projectId,
      title: 'stuck',
      workflow: 'head',
      branch_name: 'blocked/next',
    });
    const failures = () =>
      readFileSync(s.t.paths.logFile, 'utf8')
        .split('\n')
        .filter(
          (l) => l.includes('pre-cut worktree work failed') && l.includes(`"task_id":${stuck.id}`),
        ).length;
    await waitFor(() => failures() === 1);
    // Each create runs an admission pass that lists the stuck task as waiting.
    const others = [await cutOne(s, 'a'), await cutOne(s, 'b')];
    expect(others).toHaveLength(2);
    expect(failures()).toBe(1);
    await (s.t.clock as FakeClock).advance(PRECUT_RETRY_MS);
    await createTask(s.t, { project_id: s.projectId, title: 'c', workflow: 'head' });
    await waitFor(() => failures() === 2);
    s.release();
    expect((await waitState(s.t, stuck.id, 'blocked')).block_reason).toBe('git_error');
  });

  it('a task cancelled while admission fetches its base leaves no worktree or branch behind', async () => {
    const t = await buildTestApp({ config: 'update:\n  check: false\n' });
    const { repo, project } = await addProject(t, { head: commandWorkflow('head', 'true') });
    bareRemote(repo);
    // Admission refreshes the base from its upstream first; this fetch takes a second.
    repo.git('config', 'remote.origin.uploadpack', 'sleep 1; git-upload-pack');
    const task = await createTask(t, { project_id: project.id, title: 'late', workflow: 'head' });
    await waitState(t, task.id, 'running');
    expect((await act(t, task.id, 'cancel')).statusCode).toBe(200);
    // The admission's add runs once the fetch ends; the removal the cancel asked for runs after it.
    await t.kernel.services.engine.runner.idle();
    await t.kernel.services.engine.precut.settled(task.id);
    const path = worktreeOf(t, task.id);
    expect(existsSync(path)).toBe(false);
    expect(registered(repo, path)).toBe(false);
    expect(branches(repo)).not.toContain(task.branch_name);
    expect((await getTask(t, task.id)).worktree_path).toBeNull();
  });

  it('leaves a base with an upstream to admission’s fetch, and cuts it when fetching is off', async () => {
    const fetching = await oneSlot();
    bareRemote(fetching.repo);
    const next = await createTask(fetching.t, {
      project_id: fetching.projectId,
      title: 'next',
      workflow: 'head',
    });
    const other = await createTask(fetching.t, {
      project_id: fetching.projectId,
      title: 'other',
      workflow: 'head',
    });
    // A later pass has looked at both waiting tasks by the time the second exists.
    await new Promise((r) => setTimeout(r, 300));
    expect(fetching.t.kernel.services.engine.precut.ready()).toEqual([]);
    expect(existsSync(worktreeOf(fetching.t, next.id))).toBe(false);
    fetching.release();
    await waitState(fetching.t, other.id, 'done');

    const local = await oneSlot('fetch_base_branch: false\n');
    bareRemote(local.repo);
    const cut = await createTask(local.t, {
      project_id: local.projectId,
      title: 'cut',
      workflow: 'head',
    });
    await waitCut(local, cut.id);
    local.release();
    await waitState(local.t, cut.id, 'done');
  });

  it('cuts again, after a restart, a worktree no record vouches for', async () => {
    const { root, first, next, path } = await cutThenStop();
    // As a kill in the middle of `git worktree add` would leave it: registered, files missing.
    rmSync(join(path, 'README.md'));
    const moved = first.repo.commit('moved on', { 'later.txt': 'later\n' });

    const t = await buildTestApp({ root });
    await waitState(t, first.holder.id, 'running');
    first.release();
    const done = await waitState(t, next.id, 'done');
    expect(done.worktree_path).toBe(path);
    expect(readFileSync(join(first.marks, `head-${next.id}`), 'utf8').trim()).toBe(moved);
    expect(existsSync(join(path, 'README.md'))).toBe(true);
  });

  it('after a kill between making the branch and the worktree, the task still runs', async () => {
    const { root, first, next, path } = await cutThenStop();
    // `git worktree add -b` makes the branch first; a kill before the checkout leaves the branch
    // and a registration whose directory is missing or unreadable.
    rmSync(path, { recursive: true, force: true });
    expect(branches(first.repo)).toContain(next.branch_name);

    const t = await buildTestApp({ root });
    await waitState(t, first.holder.id, 'running');
    first.release();
    const done = await waitState(t, next.id, 'done');
    expect(done.block_reason).toBeNull();
    expect(done.worktree_path).toBe(path);
  });

  it('gives back, after a restart, the cut of a task canceled before admission', async () => {
    const { root, first, next, path } = await cutThenStop();
    expect(existsSync(path)).toBe(true);

    const t = await buildTestApp({ root });
    await waitState(t, first.holder.id, 'running');
    expect((await act(t, next.id, 'cancel')).statusCode).toBe(200);
    await waitFor(() => !existsSync(path));
    await waitFor(() => !branches(first.repo).includes(next.branch_name as string));
    expect(registered(first.repo, path)).toBe(false);
  });
});
