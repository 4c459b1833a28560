// Issue 18 points 1 and 2, end to end through the API on real repositories: a fan-out's merge in
// progress is never skipped past or committed over (decision 190), a lane's merge is recorded and
// counted (decision 191), "merge what finished" keeps the good lanes (decision 192), and a retry
// re-admits a cancelled lane (decision 193).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp, waitFor } from '../../support/app.js';
import {
  act,
  addProject,
  createTask,
  getTask,
  type TaskJson,
  waitState,
} from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';

const commit = (file: string, text: string) =>
  `echo ${text} > ${file} && git add ${file} && git commit -q -m ${text}`;

/** Three lanes, two writing shared.txt, then a step that commits whatever the worktree holds. */
const CLASH = `name: clash
steps:
  - id: split
    type: fan_out
    lanes:
      - id: one
        steps:
          - id: w1
            type: command
            run: ${commit('shared.txt', 'one')}
      - id: two
        steps:
          - id: w2
            type: command
            run: ${commit('shared.txt', 'two')}
      - id: three
        steps:
          - id: w3
            type: command
            run: ${commit('three.txt', 'three')}
  - id: after
    type: command
    run: git add -A && git commit -q --allow-empty -m after
`;

async function lanesOf(t: TestApp, id: number): Promise<TaskJson[]> {
  return t.json<TaskJson[]>('GET', `/v1/tasks?parent_id=${id}&archived=all`);
}

interface Children {
  total: number;
  settled: number;
  merged: number;
  unmerged: number;
  left_out: Array<{ task_id: number; lane_id: string; branch: string; reason: string }>;
}

const childrenOf = (t: TaskJson) => t.children as Children;

describe('a fan-out blocked merge_conflict (decision 190)', { timeout: 120_000 }, () => {
  it('refuses skip while the merge is unresolved, and never offers it', async () => {
    const t = await buildTestApp();
    const { project, repo } = await addProject(t, { clash: CLASH });
    const task = await createTask(t, { project_id: project.id, title: 'Clash', workflow: 'clash' });
    const blocked = await waitState(t, task.id, 'blocked', 30_000);
    expect(blocked.block_reason).toBe('merge_conflict');
    expect(blocked.available_actions).not.toContain('skip');
    expect(blocked.available_actions).toContain('merge_finished');

    const res = await act(t, task.id, 'skip');
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({
      code: 'invalid_state',
      details: { state: 'blocked', reason: 'merge_in_progress' },
    });
    expect(res.json().error.message).toContain('three');
    const still = await getTask(t, task.id);
    expect(still.state).toBe('blocked');
    const wt = still.worktree_path as string;
    expect(repo.git('-C', wt, 'status', '--porcelain')).toMatch(/^(UU|AA) shared.txt/m);
    // Only the lane merged before the conflict counts as merged.
    expect(childrenOf(still)).toMatchObject({ total: 3, settled: 3, merged: 1, unmerged: 2 });
  });

  it('after the human aborts the merge, skip goes on, warns and names the lanes left out', async () => {
    const t = await buildTestApp();
    const { project, repo } = await addProject(t, { clash: CLASH });
    const task = await createTask(t, { project_id: project.id, title: 'Clash', workflow: 'clash' });
    const blocked = await waitState(t, task.id, 'blocked', 30_000);
    const wt = blocked.worktree_path as string;
    execFileSync('git', ['merge', '--abort'], { cwd: wt });
    expect((await getTask(t, task.id)).available_actions).toContain('skip');

    const lanes = await lanesOf(t, task.id);
    const skipped = await act(t, task.id, 'skip');
    expect(skipped.statusCode, skipped.body).toBe(200);
    const warnings = skipped.json().warnings as string[];
    expect(warnings.join('\n')).toContain(lanes[1]?.branch_name as string);
    expect(warnings.join('\n')).toContain(lanes[2]?.branch_name as string);
    expect(warnings.join('\n')).not.toContain(lanes[0]?.branch_name as string);

    const done = await waitState(t, task.id, 'done', 30_000);
    expect(childrenOf(done)).toMatchObject({ merged: 1, unmerged: 2 });
    expect(childrenOf(done).left_out.map((l) => [l.lane_id, l.branch, l.reason])).toEqual([
      ['two', lanes[1]?.branch_name, 'skipped'],
      ['three', lanes[2]?.branch_name, 'skipped'],
    ]);
    expect(repo.git('show', `${done.branch_name}:shared.txt`)).toBe('one');
  });

  it('merge_finished leaves the conflicting lane out, merges the rest, and the next step commits no markers', async () => {
    const t = await buildTestApp();
    const { project, repo } = await addProject(t, { clash: CLASH });
    const task = await createTask(t, { project_id: project.id, title: 'Clash', workflow: 'clash' });
    await waitState(t, task.id, 'blocked', 30_000);
    const lanes = await lanesOf(t, task.id);

    const res = await act(t, task.id, 'merge_finished');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().state).toBe('queued');
    const done = await waitState(t, task.id, 'done', 30_000);
    expect(repo.git('show', `${done.branch_name}:shared.txt`)).toBe('one');
    expect(repo.git('show', `${done.branch_name}:three.txt`)).toBe('three');
    expect(repo.git('log', '-p', done.branch_name)).not.toContain('<<<<<<<');
    expect(childrenOf(done)).toMatchObject({ total: 3, merged: 2, unmerged: 1 });
    expect(childrenOf(done).left_out).toEqual([
      {
        task_id: lanes[1]?.id,
        lane_id: 'two',
        branch: lanes[1]?.branch_name,
        state: 'done',
        reason: 'conflict',
      },
    ]);
    const split = done.steps?.find((s) => s.step_id === 'split' && s.state === 'succeeded');
    expect(split?.result_summary).toContain(lanes[1]?.branch_name as string);
  });
});

describe('a step never starts in a worktree with unmerged paths (decision 190)', {
  timeout: 120_000,
}, () => {
  it('blocks merge_conflict before the next step, with no attempt spent', async () => {
    const t = await buildTestApp();
    const { project, repo } = await addProject(t, {
      tangle: `name: tangle
steps:
  - id: tangle
    type: command
    run: ${commit('README.md', 'ours')} && (git merge -q other || true)
  - id: after
    type: command
    run: git add -A && git commit -q -m after
`,
    });
    repo.git('checkout', '-q', '-b', 'other');
    repo.commit('theirs', { 'README.md': 'theirs\n' });
    repo.git('checkout', '-q', 'main');
    const task = await createTask(t, { project_id: project.id, title: 'T', workflow: 'tangle' });
    const blocked = await waitState(t, task.id, ['blocked', 'done'], 30_000);
    expect(blocked.state).toBe('blocked');
    expect(blocked.block_reason).toBe('merge_conflict');
    expect(blocked.block_detail).toContain('README.md');
    expect(blocked.steps?.map((s) => [s.step_id, s.state])).toEqual([['tangle', 'succeeded']]);
    expect(repo.git('log', '--format=%s', '-1', blocked.branch_name)).toBe('ours');
  });
});

const LANE_FAILS = (marks: string) => `name: fails
steps:
  - id: split
    type: fan_out
    lanes:
      - id: good
        steps:
          - id: g
            type: command
            run: ${commit('good.txt', 'good')}
      - id: bad
        steps:
          - id: b
            type: command
            max_retries: 0
            run: test -f ${marks}/fixed && ${commit('bad.txt', 'bad')}
      - id: late
        steps:
          - id: l
            type: command
            run: ${commit('late.txt', 'late')}
`;

/** Runs the fan-out until its bad lane blocks, cancels that lane, waits for lane_failed. */
async function laneFailed(t: TestApp, marks: string) {
  const { project, repo } = await addProject(t, { fails: LANE_FAILS(marks) });
  const task = await createTask(t, { project_id: project.id, title: 'F', workflow: 'fails' });
  const lanes = await waitFor(async () => {
    const l = await lanesOf(t, task.id);
    return l.length === 3 && l[1]?.state === 'blocked' ? l : null;
  }, 30_000);
  await act(t, lanes[1]?.id as number, 'cancel');
  const blocked = await waitState(t, task.id, 'blocked', 30_000);
  expect(blocked.block_reason).toBe('lane_failed');
  return { task: blocked, lanes, repo };
}

describe('a cancelled lane (decisions 192, 193)', { timeout: 120_000 }, () => {
  it('retrying the parent re-admits the cancelled lane, and every lane merges', async () => {
    const t = await buildTestApp();
    const marks = tempDir();
    const { task, lanes, repo } = await laneFailed(t, marks);
    writeFileSync(join(marks, 'fixed'), '');
    const res = await act(t, task.id, 'retry', {});
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().readmitted).toBe(1);
    expect((await waitState(t, lanes[1]?.id as number, 'done', 30_000)).state).toBe('done');
    const done = await waitState(t, task.id, 'done', 30_000);
    for (const f of ['good.txt', 'bad.txt', 'late.txt'])
      expect(repo.git('show', `${done.branch_name}:${f}`)).not.toBe('');
    expect(childrenOf(done)).toMatchObject({ merged: 3, unmerged: 0, left_out: [] });
  });

  it('merge_finished merges the lanes that finished and records the cancelled one with its branch', async () => {
    const t = await buildTestApp();
    const marks = tempDir();
    const { task, lanes, repo } = await laneFailed(t, marks);
    expect(task.available_actions).toContain('merge_finished');
    await act(t, task.id, 'merge_finished');
    const done = await waitState(t, task.id, 'done', 30_000);
    expect(repo.git('show', `${done.branch_name}:good.txt`)).toBe('good');
    expect(repo.git('show', `${done.branch_name}:late.txt`)).toBe('late');
    expect(childrenOf(done).left_out).toEqual([
      {
        task_id: lanes[1]?.id,
        lane_id: 'bad',
        branch: lanes[1]?.branch_name,
        state: 'aborted',
        reason: 'aborted',
      },
    ]);
  });

  it('skip warns and names every lane it leaves out', async () => {
    const t = await buildTestApp();
    const marks = tempDir();
    const { task, lanes } = await laneFailed(t, marks);
    const res = await act(t, task.id, 'skip');
    expect(res.statusCode, res.body).toBe(200);
    const text = (res.json().warnings as string[]).join('\n');
    for (const l of lanes) expect(text).toContain(l.branch_name);
    const done = await waitState(t, task.id, 'done', 30_000);
    expect(childrenOf(done)).toMatchObject({ merged: 0, unmerged: 3 });
  });

  it('retry from awaiting_children re-admits a lane cancelled while its siblings run (SPEC §3.2)', async () => {
    const t = await buildTestApp();
    const marks = tempDir();
    const { project } = await addProject(t, {
      wait: `name: wait
steps:
  - id: split
    type: fan_out
    lanes:
      - id: slow
        steps:
          - id: s
            type: command
            run: while [ ! -f ${marks}/go ]; do sleep 0.05; done
      - id: quick
        steps:
          - id: q
            type: command
            run: while [ ! -f ${marks}/quick ]; do sleep 0.05; done; ${commit('q.txt', 'q')}
`,
    });
    const task = await createTask(t, { project_id: project.id, title: 'W', workflow: 'wait' });
    const lanes = await waitFor(async () => {
      const l = await lanesOf(t, task.id);
      return l.length === 2 && l.every((x) => x.state === 'running') ? l : null;
    }, 30_000);
    await act(t, lanes[1]?.id as number, 'cancel');
    await waitState(t, lanes[1]?.id as number, 'aborted');
    writeFileSync(join(marks, 'quick'), '');
    const res = await act(t, task.id, 'retry', {});
    expect(res.json()).toMatchObject({ state: 'awaiting_children', readmitted: 1 });
    await waitState(t, lanes[1]?.id as number, 'done', 30_000);
    writeFileSync(join(marks, 'go'), '');
    const done = await waitState(t, task.id, 'done', 30_000);
    expect(childrenOf(done)).toMatchObject({ merged: 2, unmerged: 0 });
  });

  it('merge_finished from awaiting_children cancels the unfinished lanes and keeps the finished', async () => {
    const t = await buildTestApp();
    const marks = tempDir();
    const { project, repo } = await addProject(t, {
      part: `name: part
steps:
  - id: split
    type: fan_out
    lanes:
      - id: fast
        steps:
          - id: f
            type: command
            run: ${commit('fast.txt', 'fast')}
      - id: slow
        steps:
          - id: s
            type: command
            run: ${commit('slow.txt', 'slow')} && while [ ! -f ${marks}/never ]; do sleep 0.05; done
`,
    });
    const task = await createTask(t, { project_id: project.id, title: 'P', workflow: 'part' });
    // The slow lane is running once its state says so, but its commit is made by its command: wait
    // for the commit itself, or the cancel can come first (a lane's step starts a few ms after
    // its state changes, longer on a busy machine).
    const committed = (branch: string) => {
      try {
        return repo.git('show', `${branch}:slow.txt`) === 'slow';
      } catch {
        return false;
      }
    };
    const lanes = await waitFor(async () => {
      const l = await lanesOf(t, task.id);
      return l.length === 2 &&
        l[0]?.state === 'done' &&
        l[1]?.state === 'running' &&
        committed(l[1].branch_name as string)
        ? l
        : null;
    }, 30_000);
    const parked = await waitState(t, task.id, 'awaiting_children');
    expect(parked.available_actions).toEqual(['cancel', 'merge_finished', 'retry']);
    const res = await act(t, task.id, 'merge_finished');
    expect(res.statusCode, res.body).toBe(200);
    await waitState(t, lanes[1]?.id as number, 'aborted');
    const done = await waitState(t, task.id, 'done', 30_000);
    expect(repo.git('show', `${done.branch_name}:fast.txt`)).toBe('fast');
    expect(existsSync(join(done.worktree_path as string, 'slow.txt'))).toBe(false);
    expect(childrenOf(done).left_out).toEqual([
      {
        task_id: lanes[1]?.id,
        lane_id: 'slow',
        branch: lanes[1]?.branch_name,
        state: 'aborted',
        reason: 'unfinished',
      },
    ]);
    // The lane's own commit is still on its branch.
    expect(repo.git('show', `${lanes[1]?.branch_name}:slow.txt`)).toBe('slow');
    expect(readFileSync(join(done.worktree_path as string, 'fast.txt'), 'utf8')).toBe('fast\n');
  });

  it('refuses merge_finished where there is no fan-out join, naming the state', async () => {
    const t = await buildTestApp();
    const { project } = await addProject(t, {
      fail: 'name: fail\nsteps:\n  - id: f\n    type: command\n    max_retries: 0\n    run: exit 1\n',
    });
    const task = await createTask(t, { project_id: project.id, title: 'x', workflow: 'fail' });
    const blocked = await waitState(t, task.id, 'blocked');
    expect(blocked.available_actions).not.toContain('merge_finished');
    const res = await act(t, task.id, 'merge_finished');
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({
      code: 'invalid_state',
      details: { state: 'blocked', reason: 'no_fan_out_join' },
    });
  });
});
