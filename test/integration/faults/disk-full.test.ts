// Issue 11 point 3: a full disk under the transcripts directory. The attempt that cannot keep its
// output is stopped and fails `disk_full` (issue 17, decision 180; `transcript_unwritable` for any
// other refusal, decision 131); the task blocks with the file system's own code; nothing else is
// lost and the daemon keeps serving; `retry` resumes once there is room.
// Real ENOSPC comes from /dev/full (before the step) and from a write fault point (mid-step).
// A real full file system (tmpfs) is in disk-full-data.test.ts.
import { existsSync, mkdirSync, readFileSync, symlinkSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFileLogger, RotatingFile } from '../../../kernel/log/index.js';
import { buildTestApp, waitFor } from '../../support/app.js';
import { failWrites } from '../../support/faults.js';
import {
  act,
  addProject,
  commandWorkflow,
  createTask,
  getTask,
  waitState,
} from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';

/** True while `pid` runs; a zombie waiting for its reaper counts as gone. */
function alive(pid: number): boolean {
  try {
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
}

describe('disk full on the transcripts directory', () => {
  it('before the step: nothing is started, the task blocks disk_full, retry runs it', async () => {
    const t = await buildTestApp();
    const marks = tempDir();
    const { project } = await addProject(t, {
      touch: commandWorkflow('touch', `touch ${marks}/ran`),
    });
    const task = await createTask(t, {
      project_id: project.id,
      title: 'full',
      workflow: 'touch',
      paused: true,
    });
    // The attempt's transcript file is /dev/full: opening works, every write is ENOSPC.
    const dir = join(t.paths.transcriptsDir, String(task.id));
    mkdirSync(dir, { recursive: true });
    symlinkSync('/dev/full', join(dir, '0-1.jsonl'));
    await act(t, task.id, 'resume');
    const blocked = await waitState(t, task.id, 'blocked');
    expect(blocked.block_reason).toBe('disk_full');
    expect(blocked.block_detail).toContain('ENOSPC');
    expect(existsSync(join(marks, 'ran'))).toBe(false);
    expect(blocked.steps?.map((s) => [s.state, s.failure_reason])).toEqual([
      ['failed', 'disk_full'],
    ]);
    // The disk has room again: retry starts a fresh attempt with its own transcript.
    unlinkSync(join(dir, '0-1.jsonl'));
    expect((await act(t, task.id, 'retry', {})).statusCode).toBe(200);
    const done = await waitState(t, task.id, 'done');
    expect(existsSync(join(marks, 'ran'))).toBe(true);
    expect(done.steps?.map((s) => [s.attempt, s.state])).toEqual([
      [1, 'failed'],
      [2, 'succeeded'],
    ]);
  });

  it('a slow disk: the process waits for the first line, and is not started when it is refused', async () => {
    // Decision 258: the step prepares while its first line is written; its process starts only
    // once the line is on disk. Here the refusal takes its time, so a process that did not wait
    // would have run by then.
    const t = await buildTestApp();
    const marks = tempDir();
    const { project } = await addProject(t, {
      touch: commandWorkflow('touch', `touch ${marks}/ran`),
    });
    const task = await createTask(t, {
      project_id: project.id,
      title: 'slow full',
      workflow: 'touch',
      paused: true,
    });
    const fault = failWrites(join(t.paths.transcriptsDir, String(task.id)), {
      answerAfterMs: 300,
    });
    await act(t, task.id, 'resume');
    const blocked = await waitState(t, task.id, 'blocked');
    expect(fault.refused).toBeGreaterThan(0);
    expect(blocked.block_reason).toBe('disk_full');
    expect(existsSync(join(marks, 'ran'))).toBe(false);
  });

  it('a step that starts no process (a gate) is judged on its first line too: it blocks disk_full', async () => {
    // Decision 258: a process waits for the transcript's first line; a step without one learns
    // whether it was written before its outcome is applied, so a gate is not left waiting on a
    // transcript nobody could write.
    const t = await buildTestApp();
    const { project } = await addProject(t, {
      gate: 'name: gate\nsteps:\n  - id: ok\n    type: manual\n    instructions: ok?\n',
    });
    const task = await createTask(t, {
      project_id: project.id,
      title: 'full gate',
      workflow: 'gate',
      paused: true,
    });
    const dir = join(t.paths.transcriptsDir, String(task.id));
    mkdirSync(dir, { recursive: true });
    symlinkSync('/dev/full', join(dir, '0-1.jsonl'));
    await act(t, task.id, 'resume');
    const blocked = await waitState(t, task.id, 'blocked');
    expect(blocked.block_reason).toBe('disk_full');
    expect(blocked.steps?.map((s) => [s.state, s.failure_reason])).toEqual([
      ['failed', 'disk_full'],
    ]);
  });

  it('mid-step: the process tree is stopped, what was written stays, other tasks and the API carry on', async () => {
    const t = await buildTestApp({ config: 'max_parallel_tasks: 4\n' });
    const marks = tempDir();
    const { project } = await addProject(t, {
      chatty: commandWorkflow(
        'chatty',
        `echo first; sleep 300 & echo $! > ${marks}/child; while :; do echo line; sleep 0.02; done`,
      ),
      ok: commandWorkflow('ok', 'echo fine'),
    });
    const task = await createTask(t, {
      project_id: project.id,
      title: 'chatty',
      workflow: 'chatty',
      paused: true,
    });
    // Room for the start annotations and a few lines, then the device is full.
    const fault = failWrites(join(t.paths.transcriptsDir, String(task.id)), { allow: 600 });
    await act(t, task.id, 'resume');
    const blocked = await waitState(t, task.id, 'blocked');
    expect(fault.refused).toBeGreaterThan(0);
    expect(blocked.block_reason).toBe('disk_full');
    const run = blocked.steps?.[0];
    expect(run).toMatchObject({ state: 'failed', failure_reason: 'disk_full' });
    // The lines written before the fault are kept and served.
    const body = (await t.api('GET', `/v1/tasks/${task.id}/steps/${run?.id}/transcript`)).body;
    expect(body).toContain('"text":"first"');
    // The step's process group was stopped, orphans included.
    const child = Number(readFileSync(join(marks, 'child'), 'utf8'));
    await waitFor(() => !alive(child));
    // The daemon is alive: the API answers and another task runs to the end.
    fault.heal();
    const other = await createTask(t, { project_id: project.id, title: 'ok', workflow: 'ok' });
    expect((await waitState(t, other.id, 'done')).state).toBe('done');
    expect((await getTask(t, task.id)).state).toBe('blocked');
  });
});

describe('a transcript the file system refuses for another reason', () => {
  it('EIO fails the step transcript_unwritable, not disk_full (decision 131)', async () => {
    const t = await buildTestApp();
    const { project } = await addProject(t, {
      chatty: commandWorkflow('chatty', 'while :; do echo line; sleep 0.02; done'),
    });
    const task = await createTask(t, {
      project_id: project.id,
      title: 'eio',
      workflow: 'chatty',
      paused: true,
    });
    failWrites(join(t.paths.transcriptsDir, String(task.id)), { allow: 600, code: 'EIO' });
    await act(t, task.id, 'resume');
    const blocked = await waitState(t, task.id, 'blocked');
    expect(blocked.block_reason).toBe('transcript_unwritable');
    expect(blocked.block_detail).toContain('EIO');
    expect(blocked.steps?.[0]).toMatchObject({
      state: 'failed',
      failure_reason: 'transcript_unwritable',
    });
  });
});

describe('disk full under daemon.log', () => {
  it('a log write never throws; dropped lines are counted and reported once the disk has room', () => {
    const path = join(tempDir(), 'daemon.log');
    const fault = failWrites(path);
    const { logger, close } = createFileLogger(path, 'info');
    expect(() => {
      for (let i = 0; i < 5; i++) logger.info({ i }, 'while full');
    }).not.toThrow();
    expect(fault.refused).toBe(5);
    fault.heal();
    logger.info('room again');
    close();
    const lines = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { msg: string });
    expect(lines.map((l) => l.msg)).toEqual([
      '5 log lines were dropped: the log file could not be written',
      'room again',
    ]);
  });

  it('a log on /dev/full is written to without an exception', () => {
    const f = new RotatingFile('/dev/full', 100);
    expect(() => {
      for (let i = 0; i < 10; i++) f.write(`${'x'.repeat(40)}\n`);
    }).not.toThrow();
    f.close();
  });
});
