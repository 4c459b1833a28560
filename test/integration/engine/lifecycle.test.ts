// SPEC §3.2 through real runs: command and manual steps in real worktrees, from queued to done.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeClock } from '../../../kernel/clock/index.js';
import { buildTestApp, waitFor } from '../../support/app.js';
import {
  act,
  addProject,
  commandWorkflow,
  createTask,
  getTask,
  type StepJson,
  waitState,
} from '../../support/tasks.js';

describe('a command workflow', () => {
  it('runs in its own worktree and branch, records the attempt and ends done', async () => {
    const t = await buildTestApp();
    const { project, repo } = await addProject(t, {
      build: `name: build
steps:
  - id: write
    type: command
    run: echo "built $SVC_TASK_ID" > out.txt && echo done-line
  - id: show
    type: command
    run: cat out.txt
`,
    });
    const created = await createTask(t, {
      project_id: project.id,
      title: 'Build it',
      workflow: 'build',
    });
    expect(created).toMatchObject({
      state: 'queued',
      workflow: 'build',
      step_total: 2,
      warnings: [],
    });
    expect(created.branch_name).toBe(`svc/${created.id}-build-it`);
    const done = await waitState(t, created.id, 'done');
    expect(done.worktree_path).toBe(join(t.paths.worktreesDir, String(created.id)));
    expect(readFileSync(join(done.worktree_path as string, 'out.txt'), 'utf8')).toBe(
      `built ${created.id}\n`,
    );
    expect(repo.git('branch', '--list', created.branch_name)).toContain(created.branch_name);
    const steps = await t.json<StepJson[]>('GET', `/v1/tasks/${created.id}/steps`);
    expect(steps.map((s) => [s.step_index, s.step_id, s.state, s.attempt, s.exit_code])).toEqual([
      [0, 'write', 'succeeded', 1, 0],
      [1, 'show', 'succeeded', 1, 0],
    ]);
    expect(steps[1]?.result_summary).toBe(`built ${created.id}`);
    const kinds = t.kernel.services.events
      .query({ afterId: 0, limit: 100, taskId: created.id })
      .map((e) => `${e.kind}${e.payload.to ? `:${e.payload.to}` : ''}`);
    expect(kinds).toEqual([
      'task.created',
      'task.state_changed:running',
      'step.started',
      'step.finished',
      'task.step_advanced',
      'step.started',
      'step.finished',
      'task.step_advanced',
      'task.state_changed:done',
    ]);
  });

  it('serves each attempt’s transcript with offset and tail, and streams live output', async () => {
    const t = await buildTestApp();
    const { project } = await addProject(t, {
      lines: commandWorkflow('lines', 'for i in 1 2 3 4 5; do echo line$i; done; echo oops >&2'),
    });
    const task = await createTask(t, { project_id: project.id, title: 'lines', workflow: 'lines' });
    await waitState(t, task.id, 'done');
    const [run] = await t.json<StepJson[]>('GET', `/v1/tasks/${task.id}/steps`);
    const res = await t.api('GET', `/v1/tasks/${task.id}/steps/${run?.id}/transcript`);
    expect(res.headers['content-type']).toContain('application/x-ndjson');
    const lines = res.body
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const outputs = lines
      .filter((l) => l.type === 'svc.output')
      .map((l) => `${l.stream}:${l.text}`);
    expect(outputs).toEqual([
      'stdout:line1',
      'stdout:line2',
      'stdout:line3',
      'stdout:line4',
      'stdout:line5',
      'stderr:oops',
    ]);
    expect(lines[0].type).toBe('svc.step_started');
    expect(lines.at(-1).type).toBe('svc.step_finished');
    const size = Number(res.headers['x-next-offset']);
    expect(
      (await t.api('GET', `/v1/tasks/${task.id}/steps/${run?.id}/transcript?offset=${size}`)).body,
    ).toBe('');
    const tail = await t.api('GET', `/v1/tasks/${task.id}/steps/${run?.id}/transcript?tail=1`);
    expect(JSON.parse(tail.body.trim()).type).toBe('svc.step_finished');
    expect(
      (await t.api('GET', `/v1/tasks/${task.id}/steps/${run?.id}/transcript?offset=1&tail=2`))
        .statusCode,
    ).toBe(400);
    expect((await t.api('GET', `/v1/tasks/${task.id}/steps/999/transcript`)).statusCode).toBe(404);
  });

  it('says which of task and step run a transcript request names wrongly, task first', async () => {
    const t = await buildTestApp();
    const { project } = await addProject(t, { one: commandWorkflow('one', 'echo hi') });
    const a = await createTask(t, { project_id: project.id, title: 'a', workflow: 'one' });
    const b = await createTask(t, { project_id: project.id, title: 'b', workflow: 'one' });
    await waitState(t, a.id, 'done');
    await waitState(t, b.id, 'done');
    const [runA] = await t.json<StepJson[]>('GET', `/v1/tasks/${a.id}/steps`);
    const miss = async (path: string) => {
      const res = await t.api('GET', path);
      expect(res.statusCode, path).toBe(404);
      return (JSON.parse(res.body) as { error: { message: string } }).error.message;
    };
    expect(await miss(`/v1/tasks/9999/steps/${runA?.id}/transcript`)).toMatch(/^task 9999 /);
    expect(await miss(`/v1/tasks/9999/steps/x/transcript`)).toMatch(/^task 9999 /);
    expect(await miss(`/v1/tasks/${a.id}/steps/x/transcript`)).toBe(
      'step run x not found (step run ids are positive integers)',
    );
    expect(await miss(`/v1/tasks/${b.id}/steps/${runA?.id}/transcript`)).toBe(
      `step run ${runA?.id} not found on task ${b.id}`,
    );
    expect((await t.api('GET', `/v1/tasks/${a.id}/steps/${runA?.id}/transcript`)).statusCode).toBe(
      200,
    );
  });

  it('passes the SVC_* variables and never splices a user value into the shell line', async () => {
    const t = await buildTestApp();
    const { project } = await addProject(t, {
      env: `name: env
fields:
  - name: kind
steps:
  - id: show
    type: command
    env:
      LITERAL: "$HOME"
    run: |
      printf '%s|' "$SVC_TASK_ID" "$SVC_STEP_ID" "$SVC_STEP_ATTEMPT" "$SVC_WORKFLOW" "$SVC_BRANCH" "$SVC_BASE_BRANCH" "$SVC_FIELD_KIND" "$LITERAL" > env.txt
      echo {{.Task.Title}} > title.txt
      echo {{.Task.Fields.kind}} > kind.txt
`,
    });
    const evil = 'x"; touch pwned; echo "$(touch pwned2)';
    const task = await createTask(t, {
      project_id: project.id,
      title: evil,
      workflow: 'env',
      fields: { kind: '`touch pwned3`' },
    });
    const done = await waitState(t, task.id, 'done');
    const wt = done.worktree_path as string;
    expect(readFileSync(join(wt, 'env.txt'), 'utf8')).toBe(
      `${task.id}|show|1|env|${task.branch_name}|main|\`touch pwned3\`|$HOME|`,
    );
    expect(readFileSync(join(wt, 'title.txt'), 'utf8')).toBe(`${evil}\n`);
    expect(readFileSync(join(wt, 'kind.txt'), 'utf8')).toBe('`touch pwned3`\n');
    for (const f of ['pwned', 'pwned2', 'pwned3']) expect(existsSync(join(wt, f))).toBe(false);
  });

  it('skips a step whose if: renders false, recording skip_reason; a bad guard blocks without consuming retries', async () => {
    const t = await buildTestApp();
    const { project } = await addProject(t, {
      guard: `name: guard
fields:
  - name: kind
steps:
  - id: only-bugs
    type: command
    if: '{{eq .Task.Fields.kind "bug"}}'
    run: touch bug.txt
  - id: always
    type: command
    run: touch always.txt
`,
      badguard: `name: badguard
steps:
  - id: x
    type: command
    max_retries: 3
    if: 'maybe'
    run: "true"
`,
    });
    const task = await createTask(t, {
      project_id: project.id,
      title: 'g',
      workflow: 'guard',
      fields: { kind: 'feature' },
    });
    const done = await waitState(t, task.id, 'done');
    const steps = done.steps ?? [];
    expect(steps.map((s) => [s.step_id, s.state, s.skip_reason])).toEqual([
      ['only-bugs', 'skipped', 'condition'],
      ['always', 'succeeded', null],
    ]);
    expect(existsSync(join(done.worktree_path as string, 'bug.txt'))).toBe(false);
    const bad = await createTask(t, { project_id: project.id, title: 'b', workflow: 'badguard' });
    const blocked = await waitState(t, bad.id, 'blocked');
    expect(blocked.block_reason).toBe('condition_error');
    expect(blocked.steps?.map((s) => [s.state, s.failure_reason])).toEqual([
      ['failed', 'condition_error'],
    ]);
  });

  it('retries a failing step up to max_retries, then blocks with the step’s reason', async () => {
    const t = await buildTestApp();
    const { project } = await addProject(t, {
      flaky: commandWorkflow('flaky', 'echo try >> tries.txt; exit 3', '    max_retries: 2\n'),
      checked: commandWorkflow(
        'checked',
        'echo ok',
        '    check: test -f missing.txt\n    max_retries: 0\n',
      ),
      allowed: `name: allowed
steps:
  - id: fails
    type: command
    max_retries: 0
    allow_failure: true
    run: exit 1
  - id: after
    type: command
    run: "true"
`,
    });
    const task = await createTask(t, { project_id: project.id, title: 'f', workflow: 'flaky' });
    const blocked = await waitState(t, task.id, 'blocked');
    expect(blocked.block_reason).toBe('step_failed');
    expect(blocked.block_detail).toContain('nonzero_exit');
    expect(blocked.steps?.map((s) => [s.attempt, s.state, s.failure_reason, s.exit_code])).toEqual([
      [1, 'failed', 'nonzero_exit', 3],
      [2, 'failed', 'nonzero_exit', 3],
      [3, 'failed', 'nonzero_exit', 3],
    ]);
    expect(readFileSync(join(blocked.worktree_path as string, 'tries.txt'), 'utf8')).toBe(
      'try\ntry\ntry\n',
    );
    const c = await createTask(t, { project_id: project.id, title: 'c', workflow: 'checked' });
    const cb = await waitState(t, c.id, 'blocked');
    expect(
      cb.steps?.map((s) => [s.state, s.failure_reason, s.exit_code, s.check_exit_code]),
    ).toEqual([['failed', 'check_failed', 0, 1]]);
    const a = await createTask(t, { project_id: project.id, title: 'a', workflow: 'allowed' });
    const ad = await waitState(t, a.id, 'done');
    expect(ad.steps?.map((s) => [s.step_id, s.state])).toEqual([
      ['fails', 'failed'],
      ['after', 'succeeded'],
    ]);
  });

  it('runs included steps with the defaults their workflow carried in (decision 025)', async () => {
    const t = await buildTestApp();
    const { project } = await addProject(t, {
      checks: `name: checks
defaults:
  max_retries: 0
steps:
  - id: lint
    type: command
    run: exit 1
`,
      release: `name: release
defaults:
  max_retries: 2
steps:
  - id: suite
    type: include
    workflow: checks
`,
    });
    const task = await createTask(t, { project_id: project.id, title: 'inc', workflow: 'release' });
    const blocked = await waitState(t, task.id, 'blocked');
    expect(blocked.steps?.map((s) => [s.step_id, s.attempt])).toEqual([['lint', 1]]);
    expect(
      (blocked.workflow_steps as Array<{ id: string; resolved_from?: string[] }>)[0],
    ).toMatchObject({ id: 'lint', resolved_from: ['checks'] });
  });

  it('a retry_backoff returns the task to queued on a clock and re-admits it unattended', async () => {
    const t = await buildTestApp();
    const clock = t.clock as FakeClock;
    const { project } = await addProject(t, {
      backoff: commandWorkflow(
        'backoff',
        'if [ -f once ]; then exit 0; fi; touch once; exit 1',
        '    retry_backoff: 10m\n',
      ),
    });
    const task = await createTask(t, { project_id: project.id, title: 'b', workflow: 'backoff' });
    const queued = await waitFor(async () => {
      const x = await getTask(t, task.id);
      return x.state === 'queued' && x.queued_reason === 'retry_backoff' ? x : null;
    });
    expect(Date.parse(queued.admit_not_before as string) - clock.now()).toBeGreaterThan(9 * 60_000);
    await clock.advance('9m');
    expect((await getTask(t, task.id)).state).toBe('queued');
    await clock.advance('1m');
    const done = await waitState(t, task.id, 'done');
    expect(done.steps?.map((s) => s.state)).toEqual(['failed', 'succeeded']);
  });

  it('times a step out on the injected clock', async () => {
    const t = await buildTestApp();
    const clock = t.clock as FakeClock;
    const { project } = await addProject(t, {
      slow: commandWorkflow('slow', 'sleep 30', '    timeout: 20m\n    max_retries: 0\n'),
    });
    const task = await createTask(t, { project_id: project.id, title: 's', workflow: 'slow' });
    // The timeout is armed when the process starts (its pid is recorded), which is after its row
    // is written: the transcript's first line reaches the disk in between (decision 232).
    await waitFor(async () => (await getTask(t, task.id)).steps?.[0]?.pid);
    await clock.advance('20m');
    const blocked = await waitState(t, task.id, 'blocked');
    expect(blocked.block_reason).toBe('timeout');
  });

  it('latches a transcript at transcript_max_bytes, kills the tree and fails transcript_limit', async () => {
    const t = await buildTestApp({ config: 'transcript_max_bytes: 4KB\n' });
    const { project } = await addProject(t, {
      loud: commandWorkflow('loud', 'yes svc-output-line', '    max_retries: 0\n'),
    });
    const task = await createTask(t, { project_id: project.id, title: 'l', workflow: 'loud' });
    const blocked = await waitState(t, task.id, 'blocked');
    expect(blocked.block_reason).toBe('transcript_limit');
    const [run] = blocked.steps ?? [];
    const body = (await t.api('GET', `/v1/tasks/${task.id}/steps/${run?.id}/transcript`)).body;
    expect(body).toContain('svc.transcript_limit');
    expect(Buffer.byteLength(body)).toBeLessThan(8 * 1024);
  });

  it('a pinned shell that is missing fails shell_unavailable', async () => {
    const t = await buildTestApp();
    const { project } = await addProject(t, {
      ps: commandWorkflow('ps', 'Get-Date', '    shell: cmd\n    max_retries: 0\n'),
    });
    const task = await createTask(t, { project_id: project.id, title: 'p', workflow: 'ps' });
    const blocked = await waitState(t, task.id, 'blocked');
    expect(blocked.block_reason).toBe('shell_unavailable');
  });
});

describe('a manual gate', () => {
  it('waits in awaiting_gate without a slot; approve advances, reject blocks', async () => {
    const t = await buildTestApp({ config: 'max_parallel_tasks: 1\n' });
    const { project } = await addProject(t, {
      gate: `name: gate
steps:
  - id: review
    type: manual
    instructions: Review {{.Task.Title}}
  - id: ship
    type: command
    run: touch shipped
`,
    });
    const a = await createTask(t, { project_id: project.id, title: 'A', workflow: 'gate' });
    const b = await createTask(t, { project_id: project.id, title: 'B', workflow: 'gate' });
    const ga = await waitState(t, a.id, 'awaiting_gate');
    expect(ga.available_actions).toEqual(['approve', 'cancel', 'reject', 'skip']);
    // The gate released its slot, so B (cap 1) got admitted and reached its own gate.
    await waitState(t, b.id, 'awaiting_gate');
    expect(ga.steps?.[0]).toMatchObject({ state: 'running', result_summary: 'Review A' });
    expect((await act(t, a.id, 'approve')).json().state).toBe('queued');
    const done = await waitState(t, a.id, 'done');
    expect(done.steps?.map((s) => s.state)).toEqual(['approved', 'succeeded']);
    const rejected = (await act(t, b.id, 'reject')).json();
    expect(rejected).toMatchObject({ state: 'blocked', block_reason: 'rejected' });
    expect((await getTask(t, b.id)).steps?.map((s) => s.state)).toEqual(['rejected']);
  });
});
