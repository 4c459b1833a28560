// Issue 5 on real repositories: parallel groups, loops with break, for_each, conditions and
// fan_out lanes that merge back, with the task views that show them.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildTestApp, waitFor } from '../../support/app.js';
import {
  act,
  addProject,
  createTask,
  getTask,
  type StepJson,
  type TaskJson,
  waitState,
} from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';

const rowsOf = (t: TaskJson) =>
  (t.steps ?? []).map((s: StepJson) => [s.step_id, s.state, s.iteration ?? 0]);

describe('parallel', () => {
  it('runs sub-steps at once, lets siblings finish, blocks with the first failure in order, and retries only what failed', async () => {
    const t = await buildTestApp();
    const marks = tempDir();
    const { project } = await addProject(t, {
      par: `name: par
steps:
  - id: group
    type: parallel
    steps:
      - id: a
        type: command
        run: sleep 0.3; touch a.done
      - id: b
        type: command
        max_retries: 0
        run: test -f ${marks}/fixed-b
      - id: c
        type: command
        max_retries: 0
        run: exit 3
  - id: after
    type: command
    run: touch after.done
`,
    });
    const task = await createTask(t, { project_id: project.id, title: 'par', workflow: 'par' });
    const blocked = await waitState(t, task.id, 'blocked');
    expect(blocked.block_reason).toBe('step_failed');
    expect(blocked.block_detail).toContain('b:');
    expect(existsSync(join(blocked.worktree_path as string, 'a.done'))).toBe(true);
    expect(rowsOf(blocked).sort()).toEqual([
      ['a', 'succeeded', 0],
      ['b', 'failed', 0],
      ['c', 'failed', 0],
    ]);
    expect(new Set(blocked.steps?.map((s) => s.step_index))).toEqual(new Set([0]));
    writeFileSync(join(marks, 'fixed-b'), '');
    await act(t, task.id, 'retry', {});
    const again = await waitState(t, task.id, 'blocked');
    expect(again.block_detail).toContain('c:');
    const counts = (id: string) => again.steps?.filter((s) => s.step_id === id).length;
    expect([counts('a'), counts('b'), counts('c')]).toEqual([1, 2, 2]);
  });

  it('bounds the whole group with its timeout', async () => {
    const t = await buildTestApp();
    const clock = t.clock as import('../../../kernel/clock/index.js').FakeClock;
    const { project } = await addProject(t, {
      slow: `name: slow
steps:
  - id: g
    type: parallel
    timeout: 5m
    steps:
      - id: x
        type: command
        timeout: 1h
        run: sleep 30
`,
    });
    const task = await createTask(t, { project_id: project.id, title: 's', workflow: 'slow' });
    await waitFor(async () => (await getTask(t, task.id)).steps?.length === 1);
    await clock.advance('5m');
    expect((await waitState(t, task.id, 'blocked')).block_reason).toBe('timeout');
  });
});

describe('loop, break and condition', () => {
  it('iterates a count with .Iteration, leaves on break, and shows loop progress', async () => {
    const t = await buildTestApp();
    const { project } = await addProject(t, {
      converge: `name: converge
steps:
  - id: fix
    type: loop
    count: 5
    steps:
      - id: attempt
        type: command
        run: echo "{{.Iteration}}" >> tries.txt
      - id: enough
        type: break
        if: '{{ge .Iteration 3}}'
  - id: after
    type: command
    run: touch after.txt
`,
    });
    const task = await createTask(t, { project_id: project.id, title: 'c', workflow: 'converge' });
    const done = await waitState(t, task.id, 'done');
    expect(readFileSync(join(done.worktree_path as string, 'tries.txt'), 'utf8')).toBe('1\n2\n3\n');
    expect(rowsOf(done)).toEqual([
      ['attempt', 'succeeded', 1],
      ['enough', 'succeeded', 1],
      ['attempt', 'succeeded', 2],
      ['enough', 'succeeded', 2],
      ['attempt', 'succeeded', 3],
      ['enough', 'stopped', 3],
      ['after', 'succeeded', 0],
    ]);
    // No step-lifecycle event per iteration (SPEC §6 rule 2).
    const started = t.kernel.services.events.query({
      afterId: 0,
      limit: 100,
      taskId: task.id,
      kinds: ['step.started'],
    });
    expect(started.map((e) => e.payload.step_id)).toEqual(['after']);
  });

  it('iterates a rendered for_each list with .Item; a condition false ends one iteration', async () => {
    const t = await buildTestApp();
    const dir = tempDir();
    const { project } = await addProject(t, {
      each: `name: each
fields:
  - name: packages
steps:
  - id: pkgs
    type: loop
    for_each: '{{.Task.Fields.packages}}'
    steps:
      - id: only-real
        type: condition
        if: '{{ne .Item "skip"}}'
      - id: build
        type: command
        run: echo {{.Item}} >> built.txt; while [ ! -f ${dir}/go-{{.Iteration}} ]; do sleep 0.02; done
`,
    });
    const task = await createTask(t, {
      project_id: project.id,
      title: 'e',
      workflow: 'each',
      fields: { packages: 'alpha\n  beta  \n\nskip\ngamma' },
    });
    writeFileSync(join(dir, 'go-1'), '');
    const mid = await waitFor(async () => {
      const x = await getTask(t, task.id);
      return x.loop && (x.loop as { iteration: number }).iteration === 2 ? x : null;
    });
    expect(mid.loop).toMatchObject({
      driver: 'for_each',
      iteration: 2,
      max_iterations: 10,
      total: 4,
      item: 'beta',
      body_total: 2,
    });
    const listRow = (await t.json<TaskJson[]>('GET', '/v1/tasks')).find((r) => r.id === task.id);
    expect(listRow?.loop).toMatchObject({ iteration: 2, total: 4 });
    for (const n of [2, 3, 4]) writeFileSync(join(dir, `go-${n}`), '');
    const done = await waitState(t, task.id, 'done');
    expect(readFileSync(join(done.worktree_path as string, 'built.txt'), 'utf8')).toBe(
      'alpha\nbeta\ngamma\n',
    );
    expect(done.steps?.filter((s) => s.step_id === 'only-real').map((s) => s.state)).toEqual([
      'succeeded',
      'succeeded',
      'stopped',
      'succeeded',
    ]);
    expect(done.steps?.map((s) => s.loop_item)).toContain('gamma');
    expect(done).not.toHaveProperty('loop');
  });

  it('a retry resumes at the failed body step of the current iteration, with an override on that step', async () => {
    const t = await buildTestApp();
    const { project } = await addProject(t, {
      fix: `name: fix
steps:
  - id: l
    type: loop
    count: 3
    steps:
      - id: prep
        type: command
        run: echo {{.Iteration}} >> prep.txt
      - id: check
        type: command
        max_retries: 0
        run: test {{.Iteration}} -ne 2
`,
    });
    const task = await createTask(t, { project_id: project.id, title: 'f', workflow: 'fix' });
    const blocked = await waitState(t, task.id, 'blocked');
    expect(blocked.block_detail).toContain('check (iteration 2)');
    expect(blocked.loop).toMatchObject({
      iteration: 2,
      body_step: 'check',
      body_index: 2,
      body_total: 2,
    });
    const res = await act(t, task.id, 'retry', {
      run_override: 'echo overridden {{.Iteration}} >> check.txt',
    });
    expect(res.statusCode).toBe(200);
    const done = await waitState(t, task.id, 'done');
    const wt = done.worktree_path as string;
    // prep ran once per iteration (the retry did not repeat iteration 2's prep); the override ran once.
    expect(readFileSync(join(wt, 'prep.txt'), 'utf8')).toBe('1\n2\n3\n');
    expect(readFileSync(join(wt, 'check.txt'), 'utf8')).toBe('overridden 2\n');
    const checks = done.steps
      ?.filter((s) => s.step_id === 'check')
      .map((s) => [s.iteration, s.state, s.run_override !== null]);
    expect(checks).toEqual([
      [1, 'succeeded', false],
      [2, 'failed', false],
      [2, 'succeeded', true],
      [3, 'succeeded', false],
    ]);
  });

  it('blocks loop_limit before the first iteration when the list is over the ceiling', async () => {
    const t = await buildTestApp({ config: 'loop:\n  max_iterations: 2\n' });
    const { project } = await addProject(t, {
      many: `name: many
steps:
  - id: l
    type: loop
    for_each: "a\\nb\\nc"
    steps:
      - id: x
        type: command
        run: "true"
`,
    });
    const task = await createTask(t, { project_id: project.id, title: 'm', workflow: 'many' });
    const blocked = await waitState(t, task.id, 'blocked');
    expect(blocked.block_reason).toBe('loop_limit');
    expect(blocked.steps ?? []).toEqual([]);
  });

  it('a condition false at the top level ends the workflow: the task is done', async () => {
    const t = await buildTestApp();
    const { project } = await addProject(t, {
      stop: `name: stop
fields:
  - name: go
steps:
  - id: gate
    type: condition
    if: '{{eq .Task.Fields.go "yes"}}'
  - id: work
    type: command
    run: touch work.txt
`,
    });
    const no = await waitState(
      t,
      (
        await createTask(t, {
          project_id: project.id,
          title: 'n',
          workflow: 'stop',
          fields: { go: 'no' },
        })
      ).id,
      'done',
    );
    expect(rowsOf(no)).toEqual([['gate', 'stopped', 0]]);
    const yes = await waitState(
      t,
      (
        await createTask(t, {
          project_id: project.id,
          title: 'y',
          workflow: 'stop',
          fields: { go: 'yes' },
        })
      ).id,
      'done',
    );
    expect(rowsOf(yes)).toEqual([
      ['gate', 'succeeded', 0],
      ['work', 'succeeded', 0],
    ]);
  });
});

const LANES = `name: fan
steps:
  - id: split
    type: fan_out
    lanes:
      - id: api
        steps:
          - id: edit-api
            type: command
            run: echo api > api.txt && git add api.txt && git commit -q -m api
      - id: web
        fields:
          area: web
        steps:
          - id: edit-web
            type: command
            run: echo "{{.Task.Fields.area}}" > web.txt && git add web.txt && git commit -q -m web
      - id: docs
        if: '{{eq .Task.Fields.docs "yes"}}'
        steps:
          - id: edit-docs
            type: command
            run: echo docs > docs.txt && git add docs.txt && git commit -q -m docs
  - id: check
    type: command
    run: test -f api.txt && test -f web.txt
`;

describe('fan_out', () => {
  it('spawns lanes as child tasks, parks the parent, merges lanes --no-ff in order, and guards a lane off', async () => {
    const t = await buildTestApp();
    const { project, repo } = await addProject(t, { fan: LANES });
    const task = await createTask(t, {
      project_id: project.id,
      title: 'Fan',
      workflow: 'fan',
      fields: { docs: 'no' },
    });
    const done = await waitState(t, task.id, 'done', 30_000);
    const lanes = await t.json<TaskJson[]>('GET', `/v1/tasks?parent_id=${task.id}&archived=all`);
    expect(lanes.map((l) => [l.lane_id, l.lane_order, l.state, l.parent_task_id])).toEqual([
      ['api', 0, 'done', task.id],
      ['web', 1, 'done', task.id],
    ]);
    expect(lanes[1]?.fields).toMatchObject({ area: 'web', docs: 'no' });
    expect(lanes[0]?.workflow_origin).toEqual({ scope: 'derived', parent_task_id: task.id });
    expect(lanes[0]?.title).toBe('Fan — api');
    expect(lanes[0]?.base_branch).toBe(task.branch_name);
    const log = repo.git('log', '--first-parent', '--format=%s', task.branch_name);
    expect(log.split('\n').slice(0, 2)).toEqual([
      `Merge lane 'web' of task ${lanes[1]?.id}`,
      `Merge lane 'api' of task ${lanes[0]?.id}`,
    ]);
    expect(done.children).toEqual({
      total: 2,
      settled: 2,
      by_state: { done: 2 },
      blocked: [],
      awaiting_gate: [],
      cost_usd: null,
      // Both lanes' work reached the branch, and none was left out (decision 191).
      merged: 2,
      unmerged: 0,
      left_out: [],
    });
    expect((await t.json<TaskJson[]>('GET', '/v1/tasks')).map((r) => r.id)).toEqual([task.id]);
    const parked = t.kernel.services.events
      .query({ afterId: 0, limit: 200, taskId: task.id, kinds: ['task.state_changed'] })
      .map((e) => e.payload.to);
    expect(parked).toContain('awaiting_children');
  });

  it('blocks merge_conflict leaving the worktree conflicted; a human resolves, stages and retries', async () => {
    const t = await buildTestApp();
    const { project } = await addProject(t, {
      clash: `name: clash
steps:
  - id: split
    type: fan_out
    lanes:
      - id: one
        steps:
          - id: w1
            type: command
            run: echo one > same.txt && git add same.txt && git commit -q -m one
      - id: two
        steps:
          - id: w2
            type: command
            run: echo two > same.txt && git add same.txt && git commit -q -m two
`,
    });
    const task = await createTask(t, { project_id: project.id, title: 'Clash', workflow: 'clash' });
    const blocked = await waitState(t, task.id, 'blocked', 30_000);
    expect(blocked.block_reason).toBe('merge_conflict');
    expect(blocked.block_detail).toContain('same.txt');
    const wt = blocked.worktree_path as string;
    expect(readFileSync(join(wt, 'same.txt'), 'utf8')).toContain('<<<<<<<');
    writeFileSync(join(wt, 'same.txt'), 'both\n');
    const { execFileSync } = await import('node:child_process');
    execFileSync('git', ['add', 'same.txt'], { cwd: wt });
    await act(t, task.id, 'retry', {});
    await waitState(t, task.id, 'done', 30_000);
    expect(readFileSync(join(wt, 'same.txt'), 'utf8')).toBe('both\n');
  });

  it('cancel on the parked parent cascades to every unfinished lane; retry re-admits blocked lanes and says how many', async () => {
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
            run: sleep 60
      - id: flaky
        steps:
          - id: f
            type: command
            max_retries: 0
            run: test -f ${marks}/ok
`,
    });
    const task = await createTask(t, { project_id: project.id, title: 'W', workflow: 'wait' });
    await waitState(t, task.id, 'awaiting_children');
    const lanes = await waitFor(async () => {
      const l = await t.json<TaskJson[]>('GET', `/v1/tasks?parent_id=${task.id}`);
      return l.length === 2 && l[1]?.state === 'blocked' && l[0]?.state === 'running' ? l : null;
    }, 15_000);
    const detail = await getTask(t, task.id);
    expect(detail.available_actions).toEqual(['cancel', 'merge_finished', 'retry']);
    expect(detail.children).toMatchObject({ total: 2, settled: 0, blocked: [lanes[1]?.id] });
    writeFileSync(join(marks, 'ok'), '');
    const retried = await act(t, task.id, 'retry', {});
    expect(retried.json()).toMatchObject({ state: 'awaiting_children', readmitted: 1 });
    await waitState(t, lanes[1]?.id as number, 'done');
    expect((await act(t, task.id, 'cancel')).json().state).toBe('aborted');
    await waitState(t, lanes[0]?.id as number, 'aborted');
    expect((await getTask(t, lanes[1]?.id as number)).state).toBe('done');
  });

  it('refuses lanes past fan_out.max_tasks or max_depth at creation, naming the bound', async () => {
    const t = await buildTestApp({ config: 'fan_out:\n  max_tasks: 1\n  max_depth: 1\n' });
    const { project } = await addProject(t, {
      fan: LANES,
      inner: `name: inner\nsteps:\n  - id: f2\n    type: fan_out\n    lanes:\n      - id: x\n        steps:\n          - id: y\n            type: command\n            run: "true"\n`,
      outer: `name: outer\nsteps:\n  - id: f1\n    type: fan_out\n    lanes:\n      - id: deep\n        workflow: inner\n`,
    });
    const wide = await t.api('POST', '/v1/tasks', {
      project_id: project.id,
      title: 'x',
      workflow: 'fan',
    });
    expect(wide.statusCode).toBe(400);
    expect(wide.json().error.message).toContain('fan_out.max_tasks');
    const deep = await t.api('POST', '/v1/tasks', {
      project_id: project.id,
      title: 'y',
      workflow: 'outer',
    });
    expect(deep.statusCode).toBe(400);
    expect(deep.json().error.message).toMatch(/fan_out\.max_(depth|tasks)/);
  });
});

describe('fan_out schedule: eager (decision 017)', () => {
  it('merges each lane as soon as it and the lanes before it settled', async () => {
    const t = await buildTestApp();
    const marks = tempDir();
    const { project, repo } = await addProject(t, {
      eager: `name: eager
steps:
  - id: split
    type: fan_out
    schedule: eager
    lanes:
      - id: first
        steps:
          - id: a
            type: command
            run: echo a > a.txt && git add a.txt && git commit -q -m a
      - id: second
        steps:
          - id: b
            type: command
            run: while [ ! -f ${marks}/go ]; do sleep 0.02; done; echo b > b.txt && git add b.txt && git commit -q -m b
`,
    });
    const task = await createTask(t, { project_id: project.id, title: 'E', workflow: 'eager' });
    const lanes = await waitFor(async () => {
      const l = await t.json<TaskJson[]>('GET', `/v1/tasks?parent_id=${task.id}`);
      return l.length === 2 && l[0]?.state === 'done' ? l : null;
    }, 15_000);
    // The first lane merged while the second still runs; the parent is parked again.
    await waitFor(
      () =>
        repo
          .git('log', '--first-parent', '--format=%s', task.branch_name)
          .includes(`Merge lane 'first' of task ${lanes[0]?.id}`),
      10_000,
    );
    await waitState(t, task.id, 'awaiting_children');
    writeFileSync(join(marks, 'go'), '');
    await waitState(t, task.id, 'done', 15_000);
    expect(
      repo.git('log', '--first-parent', '--format=%s', task.branch_name).split('\n').slice(0, 2),
    ).toEqual([
      `Merge lane 'second' of task ${lanes[1]?.id}`,
      `Merge lane 'first' of task ${lanes[0]?.id}`,
    ]);
  });
});

describe('follow-up with a workflow', () => {
  it('runs the whole workflow and returns to the origin state', async () => {
    const t = await buildTestApp();
    const { project } = await addProject(t, {
      ok: 'name: ok\nsteps:\n  - id: o\n    type: command\n    run: "true"\n',
      polish:
        'name: polish\nsteps:\n  - id: p1\n    type: command\n    run: touch p1.txt\n  - id: p2\n    type: command\n    run: touch p2.txt\n',
    });
    const task = await waitState(
      t,
      (await createTask(t, { project_id: project.id, title: 'f', workflow: 'ok' })).id,
      'done',
    );
    await act(t, task.id, 'follow_up', { workflow: 'polish' });
    const back = await waitFor(async () => {
      const x = await getTask(t, task.id);
      return x.state === 'done' && (x.steps?.length ?? 0) === 3 ? x : null;
    });
    expect(back.steps?.slice(1).map((s) => [s.step_index, s.step_id, s.state])).toEqual([
      [1, 'p1', 'succeeded'],
      [1, 'p2', 'succeeded'],
    ]);
    expect(existsSync(join(back.worktree_path as string, 'p2.txt'))).toBe(true);
  });
});
