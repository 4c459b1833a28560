/**
 * The rows a structural step reads and writes: its history as flow steps see it, the decision
 * rows no process made (a child's guard or body `if`, an empty loop, a join), and the lanes it
 * spawned.
 */
import { formatMs } from '../clock/index.js';
import type { LaneView, LoopPosition, StepRunView } from '../plugin/index.js';
import { newStepRun, type StepRunRow } from '../store/index.js';
import type { FlowScope } from './flow-scope.js';

/** A row as a flow step sees it; `current` when written after the last human retry (`floor`). */
export function rowView(r: StepRunRow, floor: number): StepRunView {
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

/** A decision row at the structural step's index, finished now. */
export interface FlowRow {
  step_id: string;
  step_type: string;
  group_id: string | null;
  attempt: number;
  at?: LoopPosition;
  state: 'succeeded' | 'stopped' | 'skipped' | 'failed';
  failure_reason?: string | null;
  skip_reason?: string | null;
  summary: string;
  /** Absent: now. */
  started_at?: string;
}

/** Writes one decision row (the flow's `record`, runChild's guard and body-`if` verdicts). */
export function writeFlowRow(s: FlowScope, row: FlowRow): void {
  const { deps, task, index } = s;
  const now = formatMs(deps.clock.now());
  deps.store.tx(() =>
    deps.runs.insert(
      newStepRun({
        task_id: task.id,
        step_index: index,
        step_id: row.step_id,
        step_name: s.topName,
        step_type: row.step_type,
        group_id: row.group_id,
        attempt: row.attempt,
        iteration: row.at?.iteration ?? 0,
        loop_item: row.at?.item ?? null,
        loop_total: row.at?.total ?? null,
        state: row.state,
        failure_reason: row.failure_reason ?? null,
        skip_reason: row.skip_reason ?? null,
        result_summary: row.summary,
        started_at: row.started_at ?? now,
        finished_at: now,
      }),
    ),
  );
}

/**
 * When the lanes this step spawned were created (the first of them), or null: the step's own row
 * runs from their spawn to its join, so the timeline shows how long the lanes took (issue 19).
 */
export function lanesSpawnedAt(s: FlowScope): string | null {
  return s.deps.store.db
    .prepare('SELECT MIN(created_at) FROM tasks WHERE parent_task_id = ? AND spawned_by_index = ?')
    .pluck()
    .get(s.task.id, s.index) as string | null;
}

/** The lanes this step spawned, in declared order. */
export function laneViews(s: FlowScope): LaneView[] {
  return (
    s.deps.store.db
      .prepare(
        'SELECT id, lane_id, lane_order, state, branch_name FROM tasks WHERE parent_task_id = ? AND spawned_by_index = ? ORDER BY lane_order, id',
      )
      .all(s.task.id, s.index) as Array<{
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
}
