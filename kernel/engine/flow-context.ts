/**
 * The FlowContext a structural step type composes with (SPEC §2.8 parallel, loop, condition,
 * break, fan_out), built for one run of the step from its FlowScope: rendering at a loop position,
 * the rows at its index, runChild, decision rows, and the lanes it spawns and merges.
 */
import { bodyIfRule, type FlowContext, type LaneSpec } from '../plugin/index.js';
import { taskView } from './context.js';
import { childRunner } from './flow-child.js';
import { lanesSpawnedAt, laneViews, rowView, writeFlowRow } from './flow-rows.js';
import { contextAt, type FlowScope } from './flow-scope.js';
import { spawnLanes } from './lanes.js';
import { commitMerge, mergeLane, pendingMerge } from './merge.js';
import { jsonOr, SWALLOWABLE, stepSetting } from './model.js';
import { evaluateGuard, renderPlain } from './render.js';

/** `timedOut`: whether the whole-step timeout has fired (runFlow owns the timer). */
export function buildFlowContext(s: FlowScope, timedOut: () => boolean): FlowContext {
  const { deps, task, project, snapshot, step, index, topName, worktree } = s;
  const config = deps.config();
  const record: FlowContext['record'] = (row) => {
    const iteration = row.at?.iteration ?? 0;
    // The step's own row, for a step that spawned lanes, runs from their spawn to now (its join).
    const own = row.step_id === step.id;
    writeFlowRow(s, {
      step_id: row.step_id,
      step_type: row.step_type,
      group_id: own ? null : step.id,
      attempt: deps.runs.lastAttempt(task.id, index, row.step_id, iteration) + 1,
      at: row.at,
      state: row.state,
      failure_reason: row.failure_reason ?? null,
      summary: row.summary ?? '',
      started_at: (own ? lanesSpawnedAt(s) : null) ?? undefined,
    });
  };
  return {
    task: taskView(task, project, worktree, jsonOr<Record<string, string>>(task.fields, {})),
    step: { id: step.id, name: topName, type: step.type, index },
    signal: s.signal,
    timedOut,
    setting: (key) => stepSetting(step, snapshot, key),
    limits: () => ({
      parallel_max: config.parallel.max_parallel,
      loop_max_iterations: config.loop.max_iterations,
      fan_out_max_tasks: config.fan_out.max_tasks,
    }),
    guard: (template, at) => evaluateGuard(template, contextAt(s, step, at, 1)),
    render: (template, at) => renderPlain(template, contextAt(s, step, at, 1)),
    items: (forEach) =>
      (Array.isArray(forEach) ? forEach.map(String) : [String(forEach ?? '')]).flatMap((e) =>
        renderPlain(e, contextAt(s, step, undefined, 1))
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
    endedBy: (row, child) => {
      // A recorded `stopped` row of a body-if child is a verdict already reached: what it ended
      // is its type's to say (StepTypeMeta.bodyIf), so a resumed loop does not re-render it.
      if (row.state !== 'stopped') return null;
      const meta = deps.registry.stepType(String(child.type))?.meta;
      if (meta?.ifRole !== 'body') return null;
      return bodyIfRule(meta).ends;
    },
    runChild: childRunner(s),
    record,
    lanes: () => laneViews(s),
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
}
