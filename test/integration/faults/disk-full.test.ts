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
import { buildTestApp, type TestApp, waitFor } from '../../support/app.js';
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

/** A daemon, a project with `workflows`, and a paused task of `workflow`, resumed by the test. */
async function pausedTask(workflows: Record<string, string>, workflow: string, config?: string) {
  const t = await buildTestApp(config === undefined ? {} : { config });
  const { project } = await addProject(t, workflows);
  const task = await createTask(t, {
    project_id: project.id,
    title: workflow,
    workflow,
    paused: true,
  });
  return { t, project, task };
}

/** The task's first transcript made /dev/full: opening works, every write is ENOSPC. */
function fullFirstTranscript(t: TestApp, taskId: number): string {
  const dir = join(t.paths.transcriptsDir, String(taskId));
  mkdirSync(dir, { recursive: true });
  const file = join(dir, '0-1.jsonl');
  symlinkSync('/dev/full', file);
  return file;
}

describe('disk full on the transcripts directory', () => {
  it('before the step: nothing is started, the task blocks disk_full, retry runs it', async () => {
    const marks = tempDir();
    const { t, task } = await pausedTask(
      { touch: commandWorkflow('touch', `touch ${marks}/ran`) },
      'touch',
    );
    const full = fullFirstTranscript(t, task.id);
    await act(t, task.id, 'resume');
    const blocked = await waitState(t, task.id, 'blocked');
    expect(blocked.block_reason).toBe('disk_full');
    expect(blocked.block_detail).toContain('ENOSPC');
    expect(existsSync(join(marks, 'ran'))).toBe(false);
    expect(blocked.steps?.map((s) => [s.state, s.failure_reason])).toEqual([
      ['failed', 'disk_full'],
    ]);
    // The disk has room again: retry starts a fresh attempt with its own transcript.
    unlinkSync(full);
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
    const marks = tempDir();
    const { t, task } = await pausedTask(
      { touch: commandWorkflow('touch', `touch ${marks}/ran`) },
      'touch',
    );
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
    const { t, task } = await pausedTask(
      { gate: 'name: gate\nsteps:\n  - id: ok\n    type: manual\n    instructions: ok?\n' },
      'gate',
    );
    fullFirstTranscript(t, task.id);
    await act(t, task.id, 'resume');
    const blocked = await waitState(t, task.id, 'blocked');
    expect(blocked.block_reason).toBe('disk_full');
    expect(blocked.steps?.map((s) => [s.state, s.failure_reason])).toEqual([
      ['failed', 'disk_full'],
    ]);
  });

  it('mid-step: the process tree is stopped, what was written stays, other tasks and the API carry on', async () => {
    const marks = tempDir();
    const { t, project, task } = await pausedTask(
      {
        chatty: commandWorkflow(
          'chatty',
          `echo first; sleep 300 & echo $! > ${marks}/child; while :; do echo line; sleep 0.02; done`,
        ),
        ok: commandWorkflow('ok', 'echo fine'),
      },
      'chatty',
      'max_parallel_tasks: 4\n',
    );
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
    const { t, task } = await pausedTask(
      { chatty: commandWorkflow('chatty', 'while :; do echo line; sleep 0.02; done') },
      'chatty',
    );
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
