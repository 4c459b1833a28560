/**
 * Crash recovery at start-up, before the scheduler runs (decision 009). Every step run still
 * marked running whose task is not waiting is closed `interrupted` (no retry consumed); its
 * process group is killed if the pid still names the process we started; tasks that were running
 * or awaiting input go back to queued and are re-admitted for a fresh attempt. A gate's or a
 * parked parent's open row is correct and kept. A persisted pause request survives.
 */
import type { Logger } from 'pino';
import { type Clock, formatMs } from '../clock/index.js';
import { killOrphan } from '../proc/index.js';
import type { StepRunsTable, Store, TasksTable } from '../store/index.js';
import { isWithin } from '../within.js';
import type { TaskStates } from './state.js';

const KEEPS_OPEN_ROWS = new Set(['awaiting_gate', 'awaiting_children']);

export interface RecoveryReport {
  closed_runs: number;
  requeued_tasks: number;
  killed_orphans: number;
}

export function recover(
  store: Store,
  tasks: TasksTable,
  runs: StepRunsTable,
  states: TaskStates,
  clock: Clock,
  logger: Logger,
  /** This installation's transcripts: a run writing elsewhere was another's (decision 194). */
  transcriptsDir?: string,
): RecoveryReport {
  const report: RecoveryReport = { closed_runs: 0, requeued_tasks: 0, killed_orphans: 0 };
  const now = formatMs(clock.now());
  for (const row of runs.allOpen()) {
    const task = tasks.get(row.task_id);
    if (task && KEEPS_OPEN_ROWS.has(task.state) && row.pid === null) continue;
    // A database copied from another installation names that one's processes: never stop them.
    const ours =
      !transcriptsDir ||
      row.transcript_path === null ||
      isWithin(row.transcript_path, transcriptsDir);
    if (row.pid !== null && ours && killOrphan(row.pid, row.proc_started_at))
      report.killed_orphans++;
    store.tx(() =>
      runs.update(row.id, {
        state: 'interrupted',
        failure_reason: 'interrupted',
        counts_retry: 0,
        finished_at: now,
      }),
    );
    report.closed_runs++;
  }
  for (const task of tasks.byState(['running', 'awaiting_input'])) {
    if (states.move(task.id, task.state, 'queued', {})) report.requeued_tasks++;
  }
  if (report.closed_runs + report.requeued_tasks > 0)
    logger.warn(report, 'recovered from an unclean stop');
  return report;
}
