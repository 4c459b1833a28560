/**
 * The engine's side of control flow (SPEC §2.8 parallel, loop, condition, break, fan_out): the
 * FlowContext a structural step type composes with. Children run as ordinary attempts under their
 * own retry budgets at the structural step's index; their position is always derived from rows,
 * so a retry or a restart resumes where the work stopped.
 */

import { existsSync } from 'node:fs';
import type { Timer } from '../clock/index.js';
import { formatMs } from '../clock/index.js';
import { isSvcError } from '../errors.js';
import type {
  FlowContext,
  FlowOutcome,
  LaneSpec,
  LaneView,
  LoopPosition,
  StepRunView,
} from '../plugin/index.js';
import type { Project } from '../projects/index.js';
import { newStepRun, type StepRunRow, type TaskRow } from '../store/index.js';
import { runAttempt } from './attempt.js';
import { buildContext, taskView } from './context.js';
import { judgeLanes, lanesAt, unmergedPaths } from './lane-merges.js';
import { spawnLanes } from './lanes.js';
import { commitMerge, mergeLane, pendingMerge } from './merge.js';
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
import type { WorkflowPort } from './ports.js';
import { evaluateGuard, renderPlain } from './render.js';
import type { RunnerDeps } from './runner-deps.js';
import { checkedFlow } from './step-def.js';

export interface FlowDeps extends RunnerDeps {
  workflows: WorkflowPort;
}

function rowView(r: StepRunRow, floor: number): StepRunView {
  return {
    id: r.id,
    step_id: r.step_id,
    step_type: r.step_type,
    group_id: r.group_id,
    attempt: r.attempt,
    iteration: r.iteration,
    loop_item: r.loop_item,
    loop_total: r.loop_total,
    state: r.state,
    failure_reason: r.failure_reason,
    skip_reason: r.skip_reason,
    result_summary: r.result_summary,
    current: r.id > floor,
  };
}

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
  const whole = new AbortController();
  let timedOut = false;
  let timer: Timer | null = null;
  const wholeTimeout = stepSetting(step, snapshot, 'timeout');
  if (typeof wholeTimeout === 'string' && step.type !== 'fan_out') {
    timer = deps.clock.setTimer(durationMs(wholeTimeout), () => {
      timedOut = true;
      whole.abort(new Error('timeout'));
    });
  }
  const flowSignal = AbortSignal.any([signal, whole.signal]);
  const config = deps.config();
  const topName = stepName(step);
  // A human retry's override targets the child that failed (actions.retry records its id); it is
  // spent by that child's next attempt.
  let override = jsonOr<(PendingOverride & { step_id?: string }) | null>(
    task.pending_override,
    null,
  );
  const contextAt = (
    def: StepDef,
    at: LoopPosition | undefined,
    attempt: number,
    extra: Record<string, unknown> = {},
  ) => {
    const rows = deps.runs.ofTask(task.id);
    const base = buildContext(
      task,
      project,
      snapshot,
      def,
      {
        index,
        attempt,
        iteration: at?.iteration ?? 0,
        item: at?.item ?? null,
        loopTotal: at?.total,
      },
      rows,
      { conflicts: Array.isArray(extra.Conflicts) ? (extra.Conflicts as string[]) : undefined },
    );
    return { ...base, ...extra };
  };
  const record: FlowContext['record'] = (row) => {
    const now = formatMs(deps.clock.now());
    const iteration = row.at?.iteration ?? 0;
    // The step's own row, for a step that spawned lanes, runs from their spawn to now (its join):
    // the timeline shows how long the lanes took, not the instant the join took (issue 19).
    const spawned =
      row.step_id === step.id
        ? (deps.store.db
            .prepare(
              'SELECT MIN(created_at) FROM tasks WHERE parent_task_id = ? AND spawned_by_index = ?',
            )
            .pluck()
            .get(task.id, index) as string | null)
        : null;
    deps.store.tx(() =>
      deps.runs.insert(
        newStepRun({
          task_id: task.id,
          step_index: index,
          step_id: row.step_id,
          step_name: topName,
          step_type: row.step_type,
          group_id: row.step_id === step.id ? null : step.id,
          attempt: deps.runs.lastAttempt(task.id, index, row.step_id, iteration) + 1,
          iteration,
          loop_item: row.at?.item ?? null,
          loop_total: row.at?.total ?? null,
          state: row.state,
          failure_reason: row.failure_reason ?? null,
          result_summary: row.summary ?? '',
          started_at: spawned ?? now,
          finished_at: now,
        }),
      ),
    );
  };

  const runChild: FlowContext['runChild'] = async (raw, opts) => {
    const def = raw as StepDef;
    const childType = deps.registry.stepType(def.type);
    const at = opts.at;
    const iteration = at?.iteration ?? 0;
    const childSignal = opts.signal ? AbortSignal.any([flowSignal, opts.signal]) : flowSignal;
    if (!childType)
      return {
        kind: 'failed',
        reason: 'invalid_snapshot',
        message: `no step type ${def.type}`,
        allowed: false,
      };
    const attemptNo = deps.runs.lastAttempt(task.id, index, def.id, iteration) + 1;
    const ctx = contextAt(def, at, attemptNo, opts.extra);
    const decision = (
      state: 'succeeded' | 'stopped' | 'skipped' | 'failed',
      summary: string,
      reason?: string,
    ) => {
      const now = formatMs(deps.clock.now());
      deps.store.tx(() =>
        deps.runs.insert(
          newStepRun({
            task_id: task.id,
            step_index: index,
            step_id: def.id,
            step_name: topName,
            step_type: def.type,
            group_id: opts.group,
            attempt: attemptNo,
            iteration,
            loop_item: at?.item ?? null,
            loop_total: at?.total ?? null,
            state,
            failure_reason: reason ?? null,
            skip_reason: state === 'skipped' ? 'condition' : null,
            result_summary: summary,
            started_at: now,
            finished_at: now,
          }),
        ),
      );
    };
    const ifIsBody = childType.meta.ifRole === 'body';
    if (typeof def.if === 'string') {
      const g = evaluateGuard(def.if, ctx);
      if (!g.ok) {
        decision('failed', g.error, 'condition_error');
        return { kind: 'failed', reason: 'condition_error', message: g.error, allowed: false };
      }
      if (ifIsBody) {
        if (def.type === 'break') {
          decision(g.value ? 'stopped' : 'succeeded', def.if);
          return g.value ? { kind: 'break' } : { kind: 'passed', state: 'succeeded' };
        }
        decision(g.value ? 'succeeded' : 'stopped', def.if);
        return g.value ? { kind: 'passed', state: 'succeeded' } : { kind: 'stopped' };
      }
      if (!g.value) {
        decision('skipped', def.if);
        return { kind: 'passed', state: 'skipped' };
      }
    }
    if (!childType.run)
      return {
        kind: 'failed',
        reason: 'invalid_snapshot',
        message: `${def.type} cannot run inside ${step.type}`,
        allowed: false,
      };
    // Never over unmerged paths (decision 190), except the merge resolver, whose work they are.
    const unmerged = opts.extra?.Conflicts === undefined ? await unmergedPaths(worktree) : [];
    if (unmerged.length > 0)
      return {
        kind: 'failed',
        reason: 'merge_conflict',
        message: `unmerged paths in the worktree before ${def.id}: ${unmerged.join(', ')}`,
        allowed: false,
      };
    for (;;) {
      if (childSignal.aborted) return { kind: 'cancelled' };
      const mine = override && override.step_id === def.id ? override : null;
      if (mine) {
        override = null;
        deps.states.patch(task.id, 'running', { pending_override: null });
      }
      const res = await runAttempt(deps, {
        task,
        project,
        snapshot,
        step: def,
        stepType: childType,
        index,
        iteration,
        item: at?.item ?? null,
        loopTotal: at?.total,
        groupId: opts.group,
        topName,
        context: contextAt(
          def,
          at,
          deps.runs.lastAttempt(task.id, index, def.id, iteration) + 1,
          opts.extra,
        ),
        signal: childSignal,
        counts_retry: true,
        override: mine ?? undefined,
      });
      const o = res.outcome;
      switch (o.kind) {
        case 'succeeded':
          return { kind: 'passed', state: 'succeeded' };
        case 'cancelled':
          return { kind: 'cancelled' };
        case 'usage_limit':
          return { kind: 'usage_limit', resets_at: o.resets_at, auto_continue: o.auto_continue };
        case 'awaiting_gate':
          return {
            kind: 'failed',
            reason: 'invalid_snapshot',
            message: 'a manual step cannot run here',
            allowed: false,
          };
        case 'failed': {
          if (o.noRetry)
            return { kind: 'failed', reason: o.reason, message: o.message ?? '', allowed: false };
          const failures = deps.runs.failuresSince(
            task.id,
            index,
            def.id,
            iteration,
            task.retry_floor,
          );
          const max = stepSetting(def, snapshot, 'max_retries');
          if (failures <= (typeof max === 'number' ? max : 1)) {
            const backoff = stepSetting(def, snapshot, 'retry_backoff');
            const ms = typeof backoff === 'string' ? durationMs(backoff) : 0;
            if (ms > 0) return { kind: 'backoff', ms };
            continue;
          }
          const allowed = def.allow_failure === true && SWALLOWABLE.has(o.reason);
          return { kind: 'failed', reason: o.reason, message: o.message ?? '', allowed };
        }
      }
    }
  };

  const lanes = (): LaneView[] =>
    (
      deps.store.db
        .prepare(
          'SELECT id, lane_id, lane_order, state, branch_name FROM tasks WHERE parent_task_id = ? AND spawned_by_index = ? ORDER BY lane_order, id',
        )
        .all(task.id, index) as Array<{
        id: number;
        lane_id: string;
        lane_order: number;
        state: string;
        branch_name: string;
      }>
    ).map((r) => ({
      task_id: r.id,
      lane_id: r.lane_id,
      lane_order: r.lane_order,
      state: r.state,
      branch: r.branch_name,
    }));

  const worktree = task.worktree_path ?? project.path;
  const ctx: FlowContext = {
    task: taskView(task, project, worktree, jsonOr<Record<string, string>>(task.fields, {})),
    step: { id: step.id, name: topName, type: step.type, index },
    signal: flowSignal,
    timedOut: () => timedOut,
    setting: (key) => stepSetting(step, snapshot, key),
    limits: () => ({
      parallel_max: config.parallel.max_parallel,
      loop_max_iterations: config.loop.max_iterations,
      fan_out_max_tasks: config.fan_out.max_tasks,
    }),
    guard: (template, at) => evaluateGuard(template, contextAt(step, at, 1)),
    render: (template, at) => renderPlain(template, contextAt(step, at, 1)),
    items: (forEach) =>
      (Array.isArray(forEach) ? forEach.map(String) : [String(forEach ?? '')]).flatMap((e) =>
        renderPlain(e, contextAt(step, undefined, 1))
          .split('\n')
          .map((l) => l.trim())
          .filter((l) => l !== ''),
      ),
    history: () => deps.runs.atIndex(task.id, index).map((r) => rowView(r, task.retry_floor)),
    isPassed: (row, child) =>
      ['succeeded', 'skipped', 'approved'].includes(row.state) ||
      (row.state === 'failed' &&
        child.allow_failure === true &&
        SWALLOWABLE.has(row.failure_reason ?? '')),
    runChild,
    record,
    lanes,
    spawnLanes: (specs: LaneSpec[]) => {
      spawnLanes(
        {
          store: deps.store,
          tasks: deps.tasks,
          events: deps.events,
          workflows: deps.workflows,
          now: () => deps.clock.now(),
          configTemplate: () => deps.config().branch_template,
          maxTasks: () => deps.config().fan_out.max_tasks,
        },
        task,
        project,
        snapshot,
        step.id,
        index,
        specs,
      );
    },
    mergeLane: (lane) => mergeLane(worktree, lane),
    pendingMerge: () => pendingMerge(worktree),
    commitMerge: (message) => commitMerge(worktree, message),
  };
  try {
    const outcome = await checkedFlow(stepType, ctx, step);
    // What the join merged, judged by git, so `children` counts it truthfully (decision 191).
    const spawned = lanesAt(deps.store.db, task.id, index);
    if (spawned.length > 0 && existsSync(worktree))
      await judgeLanes(deps.store.db, worktree, spawned);
    if (timedOut)
      return {
        kind: 'failed',
        reason: 'timeout',
        message: `step ${step.id} did not finish within its timeout`,
      };
    return outcome;
  } catch (err) {
    if (timedOut)
      return {
        kind: 'failed',
        reason: 'timeout',
        message: `step ${step.id} did not finish within its timeout`,
      };
    if (isSvcError(err))
      return {
        kind: 'blocked',
        reason: err.code === 'validation_failed' ? 'fan_out_limit' : 'internal_error',
        message: err.message,
      };
    return { kind: 'blocked', reason: 'internal_error', message: (err as Error).message };
  } finally {
    timer?.cancel();
  }
}
