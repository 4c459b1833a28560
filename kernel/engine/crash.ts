/**
 * The runner's last word on a task whose loop threw (issue 17 point 1, decisions 180 and 181).
 * It runs inside a `.catch`, where a second fault would be an unhandled rejection that takes the
 * daemon down, so it never throws: the task is blocked `internal_error`, or `disk_full` when the
 * disk refused a write, spending the disk reserve if it must; when even that is refused, the
 * block is written once the disk has room again.
 */
import type { Logger } from 'pino';
import type { Clock } from '../clock/index.js';
import { type DiskGuard, isDiskFull } from '../disk/index.js';
import type { StepRunsTable, Store, TasksTable } from '../store/index.js';
import { closeRow } from './attempt.js';
import type { TaskStates } from './state.js';

export interface CrashDeps {
  store: Store;
  disk: DiskGuard;
  tasks: TasksTable;
  runs: StepRunsTable;
  states: TaskStates;
  clock: Clock;
  logger: Logger;
}

export function settleCrashedTask(d: CrashDeps, taskId: number, err: unknown): void {
  const full = d.disk.noteRefusal(err);
  const message = (err as Error)?.message ?? String(err);
  d.logger.error(
    { err, task_id: taskId },
    full ? 'task runner stopped: the disk is full' : 'task runner failed',
  );
  const reason = full ? 'disk_full' : 'internal_error';
  const detail = full ? `the disk is full (${full}): ${message}` : message;
  const settle = () => d.disk.rescue(() => block(d, taskId, reason, detail));
  try {
    settle();
  } catch (again) {
    if (!isDiskFull(again)) {
      d.logger.error({ err: again, task_id: taskId }, 'the failed task was not blocked');
      return;
    }
    d.logger.error({ task_id: taskId }, 'blocking the task waits for room on the disk');
    const off = d.disk.onRoom(() => {
      off();
      try {
        settle();
      } catch (last) {
        d.logger.error({ err: last, task_id: taskId }, 'the failed task was not blocked');
      }
    });
  }
}

function block(d: CrashDeps, taskId: number, reason: string, detail: string): void {
  d.store.tx(() => {
    const task = d.tasks.get(taskId);
    if (task && (task.state === 'running' || task.state === 'awaiting_input')) {
      for (const row of d.runs.open(taskId))
        closeRow(d.runs, row, 'failed', d.clock, { failure_reason: reason });
      d.states.apply(taskId, 'fail', task.state, { block_reason: reason, block_detail: detail });
    }
  });
}
