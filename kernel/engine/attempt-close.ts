/**
 * Closing an attempt: the row's final fields from the outcome, the HEAD it ended on, the
 * transcript's last line and its close, and then — in the transaction that may spend the disk
 * reserve — what the attempt left uncommitted, the row, `step.finished` and what the caller makes
 * of the outcome (`onSettled`).
 */
import { rm } from 'node:fs/promises';
import { formatMs } from '../clock/index.js';
import type { StepOutcome } from '../plugin/index.js';
import type { StepRunRow, StepRunsTable } from '../store/index.js';
import type { AttemptContext } from './attempt-context.js';
import type { OpenAttempt } from './attempt-open.js';
import type { KeptWork } from './attempt-run.js';
import type { AttemptDeps, AttemptResult, AttemptSpec } from './attempt-types.js';
import { writeWorktreeChanges } from './worktree-changes.js';

type RowPatch = Parameters<StepRunsTable['update']>[1];

/** The row's final fields for an outcome (a gate's row stays open: it has no end yet). */
function rowPatch(
  outcome: StepOutcome,
  spec: AttemptSpec,
  outputTail: string,
  finished: string,
): RowPatch {
  const usage = 'usage' in outcome ? outcome.usage : undefined;
  const patch: RowPatch = {
    exit_code: 'exit_code' in outcome ? (outcome.exit_code ?? null) : null,
    check_exit_code: 'check_exit_code' in outcome ? (outcome.check_exit_code ?? null) : null,
    input_tokens: usage?.input_tokens ?? null,
    output_tokens: usage?.output_tokens ?? null,
    cost_usd: usage?.cost_usd ?? null,
    session_id: usage?.session_id ?? null,
  };
  switch (outcome.kind) {
    case 'succeeded':
      Object.assign(patch, {
        state: 'succeeded',
        result_summary: outcome.summary ?? outputTail,
        finished_at: finished,
      });
      break;
    case 'failed':
      Object.assign(patch, {
        state: 'failed',
        failure_reason: outcome.reason,
        result_summary: outcome.message ?? outputTail,
        finished_at: finished,
        counts_retry: outcome.noRetry ? 0 : spec.counts_retry ? 1 : 0,
      });
      break;
    case 'usage_limit':
      Object.assign(patch, {
        state: 'interrupted',
        failure_reason: 'usage_limit',
        result_summary: outcome.message ?? '',
        finished_at: finished,
        counts_retry: 0,
      });
      break;
    case 'cancelled':
      Object.assign(patch, {
        state: 'interrupted',
        failure_reason: 'canceled',
        finished_at: finished,
        counts_retry: 0,
      });
      break;
    case 'awaiting_gate':
      Object.assign(patch, { result_summary: outcome.instructions, transcript_path: null });
      break;
  }
  return patch;
}

export async function closeAttempt(
  deps: AttemptDeps,
  spec: AttemptSpec,
  open: OpenAttempt,
  ran: AttemptContext,
  kept: KeptWork,
): Promise<AttemptResult> {
  const { outcome } = kept;
  const { task, step, index, iteration } = spec;
  const { attempt, runId, transcript, transcriptPath, ts } = open;
  const finished = formatMs(deps.clock.now());
  const patch = rowPatch(outcome, spec, ran.outputTail(), finished);
  // A gate runs nothing in the worktree: it records no HEADs, so it has no diff of its own.
  if (outcome.kind === 'awaiting_gate') patch.head_before = null;
  else patch.head_after = kept.head ?? null;
  transcript.annotate(
    'step_finished',
    {
      state: patch.state ?? 'running',
      failure_reason: patch.failure_reason ?? null,
      exit_code: patch.exit_code,
      check_exit_code: patch.check_exit_code,
    },
    ts(),
  );
  // Every line is on disk before the row and the event say the attempt ended; the file's
  // descriptor is closed meanwhile, which nothing has to wait for (decision 258).
  void transcript.close();
  await transcript.durable();
  const scratch = ran.scratch();
  if (scratch) await rm(scratch, { recursive: true, force: true });
  if (outcome.kind === 'awaiting_gate') await rm(transcriptPath, { force: true });
  // The outcome is what must not be lost: on a full disk it may spend the reserve (decision 180).
  // The runner applies it (advance, block, done) inside, so a retry after the reserve is spent
  // records the attempt's end and the task's next move together, as the first try would have.
  return deps.disk.rescueTx(deps.store, () => {
    if (kept.changes !== undefined) writeWorktreeChanges(deps.store.db, task.id, kept.changes);
    const row = deps.runs.updateReturning(runId, patch) as StepRunRow;
    if (outcome.kind !== 'awaiting_gate' && iteration === 0) {
      deps.events.append(
        'step.finished',
        { project_id: task.project_id, task_id: task.id },
        {
          run_id: runId,
          step_id: step.id,
          step_index: index,
          attempt,
          state: patch.state,
          failure_reason: patch.failure_reason ?? null,
        },
      );
    }
    const result = { outcome, row };
    spec.onSettled?.(result);
    return result;
  });
}
