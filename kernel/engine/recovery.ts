/**
 * Crash recovery at start-up, before the scheduler runs (decision 009). Every step run still
 * marked running whose task is not waiting is closed `interrupted` (no retry consumed); its
 * process group is killed if the pid still names the process we started, and so is every process
 * still carrying the attempt's marker (decision 182); tasks that were running
 * or awaiting input go back to queued and are re-admitted for a fresh attempt. A gate's or a
 * parked parent's open row is correct and kept. A persisted pause request survives.
 *
 * When the previous daemon stopped with the data disk full, or the disk is full now, those tasks
 * are blocked `disk_full` instead of re-queued: running them again would only fill the disk again
 * (decision 180). Recovery never fails the start on a full disk: a write it cannot make waits for
 * room and is made then.
 */
import type { Logger } from 'pino';
import { type Clock, formatMs } from '../clock/index.js';
import { type DiskGuard, isDiskFull } from '../disk/index.js';
import { isWithin } from '../input/index.js';
import { killMarked, killOrphan } from '../proc/index.js';
import type { StepRunsTable, Store, TasksTable } from '../store/index.js';
import type { TaskStates } from './state.js';

const KEEPS_OPEN_ROWS = new Set(['awaiting_gate', 'awaiting_children']);

export interface RecoveryReport {
  closed_runs: number;
  requeued_tasks: number;
  killed_orphans: number;
  /** Tasks blocked `disk_full` because the disk was (or is) full (decision 180). */
  blocked_disk_full: number;
}

export const DISK_FULL_RESTART_DETAIL =
  'the data disk was full when the daemon stopped or started; free space, then retry';

export function recover(
  store: Store,
  tasks: TasksTable,
  runs: StepRunsTable,
  states: TaskStates,
  clock: Clock,
  logger: Logger,
  /** This installation's transcripts: a run writing elsewhere was another's (decision 194). */
  transcriptsDir?: string,
  disk?: DiskGuard,
  /** The attempt-marker prefix of this data directory (decision 182). */
  markerPrefix?: string,
  /** Only these tasks (the retry, once there is room, of what a full disk refused). */
  only?: ReadonlySet<number>,
): RecoveryReport {
  const report: RecoveryReport = {
    closed_runs: 0,
    requeued_tasks: 0,
    killed_orphans: 0,
    blocked_disk_full: 0,
  };
  const now = formatMs(clock.now());
  const wall = disk ? disk.endedFull || disk.full : false;
  const waiting = new Set<number>();
  // A write the disk refuses even after the reserve is spent is left for when there is room.
  const write = (taskId: number, fn: () => void): void => {
    try {
      if (disk) disk.rescue(fn);
      else fn();
    } catch (err) {
      if (!disk || !isDiskFull(err)) throw err;
      waiting.add(taskId);
    }
  };
  for (const row of runs.allOpen()) {
    if (only && !only.has(row.task_id)) continue;
    const task = tasks.get(row.task_id);
    if (task && KEEPS_OPEN_ROWS.has(task.state) && row.pid === null) continue;
    // A database copied from another installation names that one's processes: never stop them.
    const ours =
      !transcriptsDir ||
      row.transcript_path === null ||
      isWithin(row.transcript_path, transcriptsDir);
    if (row.pid !== null && ours && killOrphan(row.pid, row.proc_started_at))
      report.killed_orphans++;
    // Descendants that left the attempt's process group (a daemonized shell tool) are found by
    // the marker their environment carries (decision 182).
    if (markerPrefix && ours)
      report.killed_orphans += killMarked(`${markerPrefix}.r${row.id}.`).length;
    write(row.task_id, () =>
      store.tx(() =>
        runs.update(row.id, {
          state: 'interrupted',
          failure_reason: 'interrupted',
          counts_retry: 0,
          finished_at: now,
        }),
      ),
    );
    report.closed_runs++;
  }
  for (const task of tasks.byState(['running', 'awaiting_input'])) {
    if (only && !only.has(task.id)) continue;
    write(task.id, () => {
      if (wall) {
        if (
          states.apply(task.id, 'fail', task.state, {
            block_reason: 'disk_full',
            block_detail: DISK_FULL_RESTART_DETAIL,
          })
        )
          report.blocked_disk_full++;
      } else if (states.apply(task.id, 'interrupt', task.state)) report.requeued_tasks++;
    });
  }
  if (waiting.size > 0 && disk) {
    logger.error(
      { tasks: [...waiting] },
      'recovery could not write with the disk full; it finishes once there is room',
    );
    const off = disk.onRoom(() => {
      off();
      recover(
        store,
        tasks,
        runs,
        states,
        clock,
        logger,
        transcriptsDir,
        disk,
        markerPrefix,
        waiting,
      );
    });
  }
  if (report.closed_runs + report.requeued_tasks + report.blocked_disk_full > 0)
    logger.warn(report, 'recovered from an unclean stop');
  return report;
}
