/**
 * What the runner does with an attempt's outcome (SPEC §3.2, decisions 011, 043, 180): advance,
 * retry or back off, wait for a usage limit, block with a reason, or stop for a gate. Every state
 * change goes through the transition table (`states.apply`); a block or an advance is an outcome,
 * so on a full disk it may spend the reserve.
 */

import type { Clock } from '../clock/index.js';
import { formatMs } from '../clock/index.js';
import { parseDuration } from '../config/index.js';
import {
  newStepRun,
  type StepRunRow,
  type StepRunsTable,
  type Store,
  type TaskRow,
} from '../store/index.js';
import type { AttemptResult } from './attempt.js';
import {
  durationMs,
  jsonOr,
  type PendingOverride,
  type StepDef,
  SWALLOWABLE,
  stepName,
  stepSetting,
  type WorkflowSnapshot,
} from './model.js';
import type { Active, Next, RunnerDeps } from './runner-deps.js';

/** Reasons that are a step's own verdict on its work and so read `step_failed` as a block reason (decision 011). */
const STEP_FAILED = new Set(['nonzero_exit', 'check_failed', 'agent_error']);

export function blockReasonFor(failure: string): string {
  return STEP_FAILED.has(failure) ? 'step_failed' : failure;
}

/** Blocks a running task with `reason`; the runner stops. */
export function block(
  deps: RunnerDeps,
  task: TaskRow,
  reason: string,
  detail: string | null,
): Next {
  // A block is an outcome: on a full disk it may spend the reserve (decision 180).
  deps.disk.rescue(() =>
    deps.states.apply(task.id, 'fail', 'running', {
      block_reason: reason,
      block_detail: detail,
    }),
  );
  return 'stop';
}

/**
 * A step run that records a decision no process made (a guard that skipped the step, a join the
 * engine finished or failed): started and finished now, the next attempt number at its index.
 */
export function recordDecision(
  d: { store: Store; runs: StepRunsTable; clock: Clock },
  task: TaskRow,
  step: StepDef,
  index: number,
  state: 'succeeded' | 'skipped' | 'failed',
  fields: Partial<StepRunRow> = {},
): void {
  const now = formatMs(d.clock.now());
  d.store.tx(() => {
    d.runs.insert(
      newStepRun({
        task_id: task.id,
        step_index: index,
        step_id: step.id,
        step_name: stepName(step),
        step_type: step.type,
        attempt: d.runs.lastAttempt(task.id, index, step.id, 0) + 1,
        state,
        started_at: now,
        finished_at: now,
        ...fields,
      }),
    );
  });
}

/**
 * The override a human's retry left for the step's next attempt (prompt_override, run_override),
 * spent as it is taken: cleared on the task before the attempt that uses it starts.
 */
export function takeOverride(deps: RunnerDeps, task: TaskRow): PendingOverride | undefined {
  const override = jsonOr<PendingOverride | null>(task.pending_override, null);
  if (!override) return undefined;
  deps.states.patch(task.id, 'running', { pending_override: null });
  return override;
}

/** The task's current step moves past `index`. */
export function advance(deps: RunnerDeps, task: TaskRow, index: number): void {
  deps.disk.rescue(() => deps.states.patch(task.id, 'running', { current_step: index + 1 }));
}

export function maxRetries(step: StepDef, snapshot: WorkflowSnapshot): number {
  const v = stepSetting(step, snapshot, 'max_retries');
  return typeof v === 'number' ? v : 1;
}

function backoffMs(step: StepDef, snapshot: WorkflowSnapshot): number {
  const v = stepSetting(step, snapshot, 'retry_backoff');
  return typeof v === 'string' ? durationMs(v) : 0;
}

/** An attempt an action interrupted records why (decision 183), not `canceled`. */
export function noteFailure(deps: RunnerDeps, result: AttemptResult, entry: Active): void {
  if (entry.failure && result.row.state === 'interrupted')
    deps.runs.update(result.row.id, { failure_reason: entry.failure });
}

/** max_task_cost_usd / max_tree_cost_usd after an attempt that reported a cost (SPEC §2.10). */
export function costBlock(deps: RunnerDeps, task: TaskRow): string | null {
  const config = deps.config();
  const own = deps.runs.totals(task.id).cost_usd ?? 0;
  const caps = [task.max_task_cost_usd ?? 0, config.max_task_cost_usd].filter((c) => c > 0);
  const cap = caps.length > 0 ? Math.min(...caps) : 0;
  if (cap > 0 && own >= cap) return 'cost_limit';
  if (config.max_tree_cost_usd > 0) {
    const tree = deps.treeCost(task.root_task_id ?? task.id) ?? 0;
    if (tree >= config.max_tree_cost_usd) return 'tree_cost_limit';
  }
  return null;
}

export function applyOutcome(
  deps: RunnerDeps,
  task: TaskRow,
  snapshot: WorkflowSnapshot,
  step: StepDef,
  index: number,
  result: AttemptResult,
  entry: Active,
): Next {
  const { outcome } = result;
  const reportedCost = result.row.cost_usd !== null;
  const costReason = reportedCost ? costBlock(deps, task) : null;
  switch (outcome.kind) {
    case 'cancelled':
      noteFailure(deps, result, entry);
      return 'stop';
    case 'awaiting_gate':
      deps.states.apply(task.id, 'gate', 'running');
      return 'stop';
    case 'succeeded':
      advance(deps, task, index);
      if (costReason)
        return block(deps, task, costReason, `spend passed the cap after step ${step.id}`);
      return 'next';
    case 'usage_limit':
      return usageLimit(deps, task, outcome.resets_at, outcome.auto_continue);
    case 'failed': {
      if (costReason)
        return block(deps, task, costReason, `spend passed the cap after step ${step.id}`);
      if (outcome.noRetry)
        return block(deps, task, blockReasonFor(outcome.reason), outcome.message ?? null);
      const failures = deps.runs.failuresSince(task.id, index, step.id, 0, task.retry_floor);
      if (failures <= maxRetries(step, snapshot)) {
        const backoff = backoffMs(step, snapshot);
        if (backoff > 0) {
          deps.states.apply(task.id, 'backoff', 'running', {
            queued_reason: 'retry_backoff',
            admit_not_before: formatMs(deps.clock.now() + backoff),
          });
          return 'stop';
        }
        if (entry.ac.signal.aborted) return 'stop';
        return 'next';
      }
      if (step.allow_failure === true && SWALLOWABLE.has(outcome.reason)) {
        advance(deps, task, index);
        return 'next';
      }
      return block(
        deps,
        task,
        blockReasonFor(outcome.reason),
        `${outcome.reason} at step ${step.id}${outcome.message ? `: ${outcome.message}` : ''}`,
      );
    }
  }
}

/** `mode`: what the adapter says applies (decision 043); absent, `usage_limit_auto_continue`. */
export function usageLimit(
  deps: RunnerDeps,
  task: TaskRow,
  resetsAt: number | null,
  mode = deps.config().usage_limit_auto_continue,
): Next {
  const config = deps.config();
  if (mode === 'never' || (mode === 'reported_only' && resetsAt === null)) {
    return block(
      deps,
      task,
      'usage_limit',
      resetsAt
        ? `the agent's usage limit resets at ${formatMs(resetsAt)}`
        : 'the agent reported a spent usage limit',
    );
  }
  const at = resetsAt ?? deps.clock.now() + parseDuration(config.usage_limit_recheck_interval);
  deps.states.apply(task.id, 'usage_wait', 'running', {
    queued_reason: 'usage_limit',
    admit_not_before: formatMs(at),
  });
  return 'stop';
}
