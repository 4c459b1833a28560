/**
 * One attempt of one step, as the list of its steps: open it (the transcript, then the step run
 * row, opened before any process starts so a crash always leaves a trace), build the StepContext
 * handed to the step type's `run`, run the step and judge its outcome, keep what it left in the
 * worktree, close the row. The outcome goes back to the runner, which applies it to the task.
 */
import { type Clock, formatMs } from '../clock/index.js';
import type { StepRunRow, StepRunsTable } from '../store/index.js';
import { closeAttempt } from './attempt-close.js';
import { buildStepContext } from './attempt-context.js';
import { openAttempt } from './attempt-open.js';
import { keepStepWork, runStep } from './attempt-run.js';
import type { AttemptDeps, AttemptResult, AttemptSpec } from './attempt-types.js';

export type { AttemptDeps, AttemptResult, AttemptSpec } from './attempt-types.js';

export async function runAttempt(deps: AttemptDeps, spec: AttemptSpec): Promise<AttemptResult> {
  const config = deps.config();
  const open = await openAttempt(deps, spec, config);
  // The transcript's first line is written off the event loop (decision 232) while the step
  // prepares; its process waits for it to be on disk, so a transcript that cannot be written
  // stops the attempt before anything starts (decision 258).
  const ran = buildStepContext(deps, spec, config, open);
  const outcome = await runStep(deps, spec, open, ran.ctx);
  const kept = await keepStepWork(spec, open, outcome);
  return closeAttempt(deps, spec, open, ran, kept);
}

/** Closes an open row (gate rows on approve/reject/skip, rows orphaned by cancel or a crash). */
export function closeRow(
  runs: StepRunsTable,
  row: StepRunRow,
  state: StepRunRow['state'],
  clock: Clock,
  fields: Partial<StepRunRow> = {},
): void {
  runs.update(row.id, { state, finished_at: formatMs(clock.now()), counts_retry: 0, ...fields });
}
