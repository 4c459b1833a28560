// The actions with more to them than a state change: pause at a boundary, retry with overrides,
// follow-up rounds, cancel of a live process tree, and notify.
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
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
import { tempDir } from '../../support/tmp.js';

describe('pause and resume', () => {
  it('a running task pauses after its current step; resume continues at the next', async () => {
    const t = await buildTestApp();
    const dir = tempDir();
    const { project } = await addProject(t, {
      two: `name: two
steps:
  - id: first
    type: command
    run: while [ ! -f ${dir}/go ]; do sleep 0.02; done
  - id: second
    type: command
    run: touch second.txt
`,
    });
    const task = await createTask(t, { project_id: project.id, title: 'p', workflow: 'two' });
    await waitFor(async () => (await getTask(t, task.id)).steps?.length === 1);
    const res = await act(t, task.id, 'pause');
    expect(res.json()).toMatchObject({ state: 'running', pause_requested: true });
    writeFileSync(join(dir, 'go'), '');
    const paused = await waitState(t, task.id, 'paused');
    expect(paused.current_step).toBe(1);
    expect(paused.pause_requested).toBe(false);
    expect(existsSync(join(paused.worktree_path as string, 'second.txt'))).toBe(false);
    await act(t, task.id, 'resume');
    const done = await waitState(t, task.id, 'done');
    expect(existsSync(join(done.worktree_path as string, 'second.txt'))).toBe(true);
  });
});

describe('retry', () => {
  it('runs a fresh attempt with the counter reset, recording a run_override on the step run', async () => {
    const t = await buildTestApp();
    const { project } = await addProject(t, {
      bad: commandWorkflow('bad', 'exit 2', '    max_retries: 1\n'),
    });
    const task = await createTask(t, { project_id: project.id, title: 'r', workflow: 'bad' });
    await waitState(t, task.id, 'blocked');
    const plain = await act(t, task.id, 'retry', {});
    expect(plain.json().state).toBe('queued');
    const again = await waitState(t, task.id, 'blocked');
    // A fresh budget: two more attempts after the retry, four in all.
    expect(again.steps?.length).toBe(4);
    expect((await act(t, task.id, 'retry', { prompt_override: 'x' })).statusCode).toBe(400);
    const res = await act(t, task.id, 'retry', { run_override: 'echo fixed > fixed.txt' });
    expect(res.statusCode).toBe(200);
    const done = await waitState(t, task.id, 'done');
    const last = done.steps?.at(-1) as StepJson;
    expect(last).toMatchObject({
      state: 'succeeded',
      run_override: 'echo fixed > fixed.txt',
      attempt: 5,
    });
    expect(readFileSync(join(done.worktree_path as string, 'fixed.txt'), 'utf8')).toBe('fixed\n');
  });

  it('branch_override renames the branch and recovers branch_exists', async () => {
    const t = await buildTestApp();
    const { project, repo } = await addProject(t, { ok: commandWorkflow('ok', 'true') });
    const task = await createTask(t, {
      project_id: project.id,
      title: 'clash',
      workflow: 'ok',
      paused: true,
    });
    repo.git('branch', task.branch_name);
    await act(t, task.id, 'resume');
    const blocked = await waitState(t, task.id, 'blocked');
    expect(blocked.block_reason).toBe('branch_exists');
    expect((await act(t, task.id, 'retry', { branch_override: 'main' })).statusCode).toBe(400);
    expect((await act(t, task.id, 'retry', { branch_override: 'bad name' })).statusCode).toBe(400);
    const res = await act(t, task.id, 'retry', { branch_override: 'renamed/clash' });
    expect(res.json()).toMatchObject({ state: 'queued', branch_name: 'renamed/clash' });
    await waitState(t, task.id, 'done');
  });

  it('blocks at admission when the base branch is gone', async () => {
    const t = await buildTestApp();
    const { project, repo } = await addProject(t, { ok: commandWorkflow('ok', 'true') });
    repo.git('branch', 'release');
    const task = await createTask(t, {
      project_id: project.id,
      title: 'b',
      workflow: 'ok',
      base_branch: 'release',
      paused: true,
    });
    repo.git('branch', '-D', 'release');
    await act(t, task.id, 'resume');
    expect((await waitState(t, task.id, 'blocked')).block_reason).toBe('base_branch_missing');
  });
});

describe('follow-up', () => {
  it('runs a round at step_total + n - 1 and returns to the origin state whatever its exit', async () => {
    const t = await buildTestApp();
    const { project } = await addProject(t, { ok: commandWorkflow('ok', 'true') });
    const task = await waitState(
      t,
      (await createTask(t, { project_id: project.id, title: 'f', workflow: 'ok' })).id,
      'done',
    );
    expect((await act(t, task.id, 'follow_up', { run: 'true', prompt: 'x' })).statusCode).toBe(400);
    expect((await act(t, task.id, 'follow_up', {})).statusCode).toBe(400);
    const fu = await act(t, task.id, 'follow_up', { run: 'echo round1 > r1.txt; exit 4' });
    expect(fu.json()).toMatchObject({ state: 'queued', warnings: [] });
    const back = await waitFor(async () => {
      const x = await getTask(t, task.id);
      return x.state === 'done' && (x.steps?.length ?? 0) === 2 ? x : null;
    });
    expect(back.steps?.at(-1)).toMatchObject({
      step_index: 1,
      state: 'failed',
      exit_code: 4,
      follow_up: true,
    });
    expect(readFileSync(join(back.worktree_path as string, 'r1.txt'), 'utf8')).toBe('round1\n');
    expect(back.current_step).toBe(1);
    expect(back.step_total).toBe(1);
    await act(t, task.id, 'follow_up', { run: 'true' });
    const round2 = await waitFor(async () => {
      const x = await getTask(t, task.id);
      return x.state === 'done' && (x.steps?.length ?? 0) === 3 ? x : null;
    });
    expect(round2.steps?.at(-1)).toMatchObject({ step_index: 2, state: 'succeeded' });
  });

  it('cancel during a follow-up makes done → aborted reachable', async () => {
    const t = await buildTestApp();
    const { project } = await addProject(t, { ok: commandWorkflow('ok', 'true') });
    const task = await waitState(
      t,
      (await createTask(t, { project_id: project.id, title: 'f', workflow: 'ok' })).id,
      'done',
    );
    await act(t, task.id, 'follow_up', { run: 'sleep 60' });
    await waitState(t, task.id, 'running');
    expect((await act(t, task.id, 'cancel')).json().state).toBe('aborted');
    const after = await waitFor(async () => {
      const x = await getTask(t, task.id);
      return x.steps?.at(-1)?.state === 'interrupted' ? x : null;
    });
    expect(after.state).toBe('aborted');
    expect(after.steps?.at(-1)?.failure_reason).toBe('canceled');
  });
});

describe('cancel', () => {
  it('stops the running process tree at once and closes the attempt interrupted', async () => {
    const t = await buildTestApp();
    const dir = tempDir();
    const { project } = await addProject(t, {
      sleep: commandWorkflow('sleep', `sleep 300 & echo $! > ${dir}/pid; wait`),
    });
    const task = await createTask(t, { project_id: project.id, title: 'c', workflow: 'sleep' });
    const pid = Number(
      await waitFor(
        () => existsSync(join(dir, 'pid')) && readFileSync(join(dir, 'pid'), 'utf8').trim(),
      ),
    );
    expect((await act(t, task.id, 'cancel')).json().state).toBe('aborted');
    await waitFor(() => {
      try {
        process.kill(pid, 0);
        return readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z');
      } catch {
        return true;
      }
    });
    const after = await waitFor(async () => {
      const x = await getTask(t, task.id);
      return x.steps?.[0]?.state === 'interrupted' ? x : null;
    });
    expect(after.steps?.[0]?.failure_reason).toBe('canceled');
    expect(after.state).toBe('aborted');
  });
});

describe('notify (SPEC §2.10)', () => {
  it('runs the command with the envelope on stdin for listed states of root tasks, without SVC_* variables', async () => {
    const dir = tempDir();
    const script = join(dir, 'hook.sh');
    // One append per run: hooks for two tasks may run at once, and two appends could interleave.
    writeFileSync(
      script,
      `#!/bin/sh\nline=$(cat)\nprintf '%s\\n' "$line" >> ${dir}/events.jsonl\nenv | grep -c '^SVC_' >> ${dir}/svcvars\n`,
    );
    chmodSync(script, 0o755);
    const t = await buildTestApp({
      config: `notify:\n  on: [blocked, done]\n  command: [${script}]\n`,
    });
    const { project } = await addProject(t, {
      ok: commandWorkflow('ok', 'true'),
      bad: commandWorkflow('bad', 'exit 1', '    max_retries: 0\n'),
    });
    const a = await createTask(t, { project_id: project.id, title: 'good', workflow: 'ok' });
    const b = await createTask(t, { project_id: project.id, title: 'bad', workflow: 'bad' });
    await waitState(t, a.id, 'done');
    await waitState(t, b.id, 'blocked');
    await t.kernel.services.notifier.idle();
    const events = readFileSync(join(dir, 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(events.map((e) => [e.task_id, e.to]).sort()).toEqual([
      [a.id, 'done'],
      [b.id, 'blocked'],
    ]);
    const blocked = events.find((e) => e.to === 'blocked');
    expect(blocked).toMatchObject({
      type: 'task.state_changed',
      from: 'running',
      block_reason: 'step_failed',
      title: 'bad',
      workflow: 'bad',
      project: project.name,
      steps_total: 1,
    });
    expect(Object.keys(blocked)).toEqual(
      expect.arrayContaining([
        'event_id',
        'ts',
        'queued_reason',
        'admit_not_before',
        'current_step',
        'worktree_path',
        'branch',
        'project_id',
      ]),
    );
    expect(readFileSync(join(dir, 'svcvars'), 'utf8').trim().split('\n')).toEqual(['0', '0']);
  });
});

describe('fetch_base_branch (decision 012)', () => {
  it('cuts the worktree from the upstream tip when the local base is behind, and falls back when the remote is gone', async () => {
    const { bareRemote, git: gitIn } = await import('../../support/git.js');
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const t = await buildTestApp();
    const { project, repo } = await addProject(t, { ok: commandWorkflow('ok', 'true') });
    const origin = bareRemote(repo);
    // Someone else pushes a commit; our local main does not have it.
    const other = mkdtempSync(join(tmpdir(), 'svc-other-'));
    gitIn(other, 'clone', '-q', origin, 'clone');
    const clone = join(other, 'clone');
    gitIn(clone, 'config', 'user.name', 'x');
    gitIn(clone, 'config', 'user.email', 'x@x');
    gitIn(clone, 'commit', '-q', '--allow-empty', '-m', 'upstream change');
    gitIn(clone, 'push', '-q', 'origin', 'main');
    const upstreamTip = gitIn(clone, 'rev-parse', 'HEAD');
    const task = await waitState(
      t,
      (await createTask(t, { project_id: project.id, title: 'f', workflow: 'ok' })).id,
      'done',
    );
    expect(gitIn(task.worktree_path as string, 'rev-parse', 'HEAD')).toBe(upstreamTip);
    expect(repo.git('rev-parse', 'main')).not.toBe(upstreamTip);
    // An unreachable remote falls back to the local base silently.
    repo.git('remote', 'set-url', 'origin', '/nonexistent/remote.git');
    const t2 = await waitState(
      t,
      (await createTask(t, { project_id: project.id, title: 'g', workflow: 'ok' })).id,
      'done',
    );
    expect(gitIn(t2.worktree_path as string, 'rev-parse', 'HEAD')).toBe(
      repo.git('rev-parse', 'main'),
    );
  });
});

describe('the task event stream', () => {
  it('carries the task’s durable events and its live output', async () => {
    const { openSse } = await import('../../support/sse.js');
    const t = await buildTestApp();
    await t.kernel.app.listen({ host: '127.0.0.1', port: 0 });
    const addr = t.kernel.app.server.address();
    const port = typeof addr === 'object' && addr ? addr.port : 0;
    const dir = tempDir();
    const { project } = await addProject(t, {
      talk: commandWorkflow(
        'talk',
        `echo first; while [ ! -f ${dir}/go ]; do sleep 0.02; done; echo second`,
      ),
    });
    const task = await createTask(t, {
      project_id: project.id,
      title: 's',
      workflow: 'talk',
      paused: true,
    });
    const sse = await openSse(`http://127.0.0.1:${port}/v1/tasks/${task.id}/events`, {
      authorization: `Bearer ${t.token}`,
    });
    await sse.until((f) => f.some((x) => x.comment === 'connected'));
    await act(t, task.id, 'resume');
    await sse.until((f) =>
      f.some((x) => x.event === 'command.output' && JSON.parse(x.data ?? '{}').text === 'first'),
    );
    writeFileSync(join(dir, 'go'), '');
    const frames = await sse.until((f) =>
      f.some(
        (x) => x.event === 'task.state_changed' && JSON.parse(x.data ?? '{}').payload.to === 'done',
      ),
    );
    const live = frames.filter((f) => f.event === 'command.output');
    expect(live.every((f) => f.id === undefined)).toBe(true);
    expect(live.map((f) => JSON.parse(f.data ?? '{}').text)).toEqual(['first', 'second']);
    expect(
      frames.filter((f) => f.id).every((f) => JSON.parse(f.data ?? '{}').task_id === task.id),
    ).toBe(true);
    sse.close();
    await t.kernel.app.close();
  });
});

describe('notify limits', () => {
  it('runs at most 4 at once, kills a command after 10 s on the clock, and drops past a full queue', async () => {
    const dir = tempDir();
    const script = join(dir, 'slow.sh');
    writeFileSync(script, `#!/bin/sh\necho start >> ${dir}/starts\nsleep 30\n`);
    chmodSync(script, 0o755);
    const t = await buildTestApp({ config: `notify:\n  on: [paused]\n  command: [${script}]\n` });
    const clock = t.clock as import('../../../kernel/clock/index.js').FakeClock;
    const { project } = await addProject(t, { ok: commandWorkflow('ok', 'true') });
    const notifier = t.kernel.services.notifier;
    const event = (id: number) => ({
      id,
      ts: '',
      kind: 'task.state_changed' as const,
      project_id: project.id,
      task_id: id,
      chat_id: null,
      trigger_id: null,
      payload: { to: 'paused' },
    });
    for (let i = 1; i <= 70; i++) notifier.onStateChanged(event(i), true);
    notifier.onStateChanged(event(999), false);
    await waitFor(
      () =>
        existsSync(join(dir, 'starts')) &&
        readFileSync(join(dir, 'starts'), 'utf8').split('\n').length === 5,
    );
    await new Promise((r) => setTimeout(r, 200));
    expect(readFileSync(join(dir, 'starts'), 'utf8').trim().split('\n')).toHaveLength(4);
    expect(readFileSync(t.paths.logFile, 'utf8')).toContain('notify queue full');
    await clock.advance('10s');
    await waitFor(() => readFileSync(join(dir, 'starts'), 'utf8').trim().split('\n').length === 8);
    expect(readFileSync(t.paths.logFile, 'utf8')).toContain('notify command killed after 10s');
  });
});

describe('platform at admission', () => {
  it('a task whose workflow excludes this host blocks platform_unsupported when admitted', async () => {
    // The registry is told the host is Windows, so creation accepts a windows-only workflow; the
    // engine's admission check reads the real host, as it would after the daemon moved machines.
    const t = await buildTestApp({ hostPlatform: { os: 'windows' } });
    const { project } = await addProject(t, {
      win: 'name: win\nplatforms: [windows]\nsteps:\n  - id: w\n    type: command\n    run: "true"\n',
    });
    const task = await createTask(t, { project_id: project.id, title: 'w', workflow: 'win' });
    const blocked = await waitState(t, task.id, 'blocked');
    expect(blocked.block_reason).toBe('platform_unsupported');
    expect(blocked.worktree_path).toBeNull();
  });
});
