/**
 * The human actions' side of fan-out joins (decisions 190, 192, 193): what `skip` must refuse and
 * record, what `merge_finished` checks and asks the runner for, and which cancelled lanes a
 * `retry` runs again. The state writes themselves stay in actions.ts, through the transition table.
 */
import { SvcError } from '../errors.js';
import type { StepTypes } from '../plugin/index.js';
import type { Store, TaskRow } from '../store/index.js';
import {
  joinWaits,
  judgeLanes,
  type LaneRow,
  laneName,
  lanesAt,
  leaveOut,
  mergeInProgress,
} from './lane-merges.js';
import { snapshotOf } from './model.js';

function lanesOfJoin(store: Store, task: TaskRow): LaneRow[] {
  return task.followup_spec ? [] : lanesAt(store.db, task.id, task.current_step);
}

/** `not merged: lane two (branch svc/5-clash-two), lane three (branch …)`, or '' with none. */
function namesOf(lanes: LaneRow[]): string {
  return lanes.map(laneName).join(', ');
}

/**
 * Before a skip: refuses (409, `details.reason: merge_in_progress`) while the worktree is mid-merge
 * or holds unmerged paths, naming the lanes not merged and the ways out; at a fan-out join, records
 * every lane the parent's branch does not hold as left out (`skipped`) and answers one warning per
 * lane naming the branch where its work stays.
 */
export async function beforeSkip(store: Store, task: TaskRow): Promise<string[]> {
  const lanes = lanesOfJoin(store, task);
  const merge = task.followup_spec ? null : await mergeInProgress(task.worktree_path);
  if (merge) {
    const pending = lanes.filter((l) => l.lane_merge !== 'merged');
    throw new SvcError(
      'invalid_state',
      `task ${task.id}'s worktree is in the middle of a ${merge.operation}${merge.paths.length > 0 ? ` with unmerged paths ${merge.paths.join(', ')}` : ''}; skipping would run the next step over it. ${pending.length > 0 ? `Not merged: ${namesOf(pending)}. ` : ''}Resolve, stage and retry${lanes.length > 0 ? ', or merge_finished to go on without the lanes that do not merge' : ''}, or run git ${merge.operation} --abort in ${task.worktree_path} first.`,
      {
        state: task.state,
        reason: 'merge_in_progress',
        paths: merge.paths,
        lanes: pending.map((l) => l.lane_id),
      },
    );
  }
  if (lanes.length === 0 || !task.worktree_path) return [];
  const { unmerged } = await judgeLanes(store.db, task.worktree_path, lanes);
  leaveOut(store.db, unmerged, 'skipped');
  return unmerged.map(
    (l) =>
      `${laneName(l)} was not merged: its work is left out of task ${task.id} and stays on its branch`,
  );
}

/**
 * Checks a `merge_finished` (decision 192): the task must wait at a fan-out join whose lanes
 * exist. Answers the lanes of that join; refusals are 409 naming the state and
 * `reason: no_fan_out_join`.
 */
export function checkMergeFinished(store: Store, task: TaskRow, types: StepTypes): LaneRow[] {
  let steps: ReturnType<typeof snapshotOf>['steps'] | undefined;
  try {
    steps = snapshotOf(task).steps;
  } catch {}
  const lanes = joinWaits(task, steps, types) ? lanesOfJoin(store, task) : [];
  if (lanes.length === 0)
    throw new SvcError(
      'invalid_state',
      task.state === 'blocked'
        ? `task ${task.id} is blocked ${task.block_reason ?? ''}, not at a fan-out join with lanes that failed or do not merge; merge_finished has nothing to merge`
        : `task ${task.id} has no fan-out lanes to merge`,
      { state: task.state, reason: 'no_fan_out_join' },
    );
  return lanes;
}

/** Lanes still running or waiting when a human asks to merge what finished: cancelled, left out. */
export function unfinishedLanes(lanes: LaneRow[]): LaneRow[] {
  return lanes.filter((l) => !['done', 'aborted', 'archived'].includes(l.state));
}

/** Aborted lanes of a join a retry runs again: never one a human already chose to leave out. */
export function readmittable(store: Store, task: TaskRow): LaneRow[] {
  return lanesOfJoin(store, task).filter(
    (l) => l.state === 'aborted' && l.lane_merge !== 'left_out',
  );
}
