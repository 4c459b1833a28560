/**
 * The engine's side of control flow (SPEC §2.8 parallel, loop, condition, break, fan_out): runs one
 * structural step through its type's `flow` with the FlowContext (flow-context.ts) built for it.
 * Children run as ordinary attempts under their own retry budgets at the structural step's index
 * (flow-child.ts); their position is always derived from rows (flow-rows.ts), so a retry or a
 * restart resumes where the work stopped.
 */

import { existsSync } from 'node:fs';
import type { Timer } from '../clock/index.js';
import { isSvcError } from '../errors.js';
import type { FlowOutcome, StepType } from '../plugin/index.js';
import type { Project } from '../projects/index.js';
import type { TaskRow } from '../store/index.js';
import { buildFlowContext } from './flow-context.js';
import type { FlowDeps, FlowScope } from './flow-scope.js';
import { judgeLanes, lanesAt } from './lane-merges.js';
import { durationMs, type StepDef, stepName, stepSetting, type WorkflowSnapshot } from './model.js';
import { checkedFlow } from './step-def.js';

export type { FlowDeps } from './flow-scope.js';

/** Runs one structural step and returns its outcome; the runner applies it to the task. */
export async function runFlow(
  deps: FlowDeps,
  task: TaskRow,
  project: Project,
  snapshot: WorkflowSnapshot,
  step: StepDef,
  index: number,
  signal: AbortSignal,
): Promise<FlowOutcome> {
  const stepType = deps.registry.stepType(step.type);
  if (!stepType?.flow)
    return {
      kind: 'blocked',
      reason: 'invalid_snapshot',
      message: `step type ${step.type} has no flow`,
    };
  const whole = wholeStepTimeout(deps, snapshot, step, stepType);
  const scope: FlowScope = {
    deps,
    task,
    project,
    snapshot,
    step,
    index,
    topName: stepName(step),
    worktree: task.worktree_path ?? project.path,
    signal: AbortSignal.any([signal, whole.signal]),
  };
  const ctx = buildFlowContext(scope, whole.timedOut);
  try {
    const outcome = await checkedFlow(stepType, ctx, step);
    await judgeSpawnedLanes(scope);
    return whole.timedOut() ? timeoutOutcome(step) : outcome;
  } catch (err) {
    return whole.timedOut() ? timeoutOutcome(step) : thrownOutcome(err);
  } finally {
    whole.cancel();
  }
}

/**
 * The step's own `timeout` bounds the whole flow, except for a type that spawns lanes (its
 * `lanes` hook, decision 225): the task parks between spawn and join, and each lane's steps keep
 * their own timeouts.
 */
function wholeStepTimeout(
  deps: FlowDeps,
  snapshot: WorkflowSnapshot,
  step: StepDef,
  stepType: StepType,
): { signal: AbortSignal; timedOut: () => boolean; cancel: () => void } {
  const whole = new AbortController();
  let timedOut = false;
  let timer: Timer | null = null;
  const wholeTimeout = stepSetting(step, snapshot, 'timeout');
  if (typeof wholeTimeout === 'string' && !stepType.lanes) {
    timer = deps.clock.setTimer(durationMs(wholeTimeout), () => {
      timedOut = true;
      whole.abort(new Error('timeout'));
    });
  }
  return { signal: whole.signal, timedOut: () => timedOut, cancel: () => timer?.cancel() };
}

/** What the join merged, judged by git, so `children` counts it truthfully (decision 191). */
async function judgeSpawnedLanes(s: FlowScope): Promise<void> {
  const spawned = lanesAt(s.deps.store.db, s.task.id, s.index);
  if (spawned.length > 0 && existsSync(s.worktree))
    await judgeLanes(s.deps.store.db, s.worktree, spawned);
}

function timeoutOutcome(step: StepDef): FlowOutcome {
  return {
    kind: 'failed',
    reason: 'timeout',
    message: `step ${step.id} did not finish within its timeout`,
  };
}

/** A flow that threw: a bound passed at spawn blocks `fan_out_limit`, anything else is internal. */
function thrownOutcome(err: unknown): FlowOutcome {
  if (isSvcError(err))
    return {
      kind: 'blocked',
      reason: err.code === 'validation_failed' ? 'fan_out_limit' : 'internal_error',
      message: err.message,
    };
  return { kind: 'blocked', reason: 'internal_error', message: (err as Error).message };
}
