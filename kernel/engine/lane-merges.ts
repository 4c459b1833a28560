/**
 * What became of each fan-out lane's work (decisions 190–191): the lanes a step spawned, which of
 * them the parent's branch already holds (`lane_merge = merged`, judged by git, never guessed),
 * which a human chose to go on without (`left_out`, with why and the branch where the work lies),
 * and whether a worktree is in the middle of a merge — a step never starts over unmerged paths, and
 * a merge in progress is never skipped past.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { conflictedPaths, gitRaw, worktreeGitDir } from '../git/index.js';
import { type StepTypes, spawnsLanes } from '../plugin/index.js';
import type { Db, TaskRow } from '../store/index.js';

export interface LaneRow {
  id: number;
  lane_id: string;
  lane_order: number;
  state: TaskRow['state'];
  branch_name: string;
  lane_merge: TaskRow['lane_merge'];
  lane_merge_note: string | null;
}

const LANE_COLUMNS =
  'id, lane_id, lane_order, state, branch_name, lane_merge, lane_merge_note FROM tasks';

/** The lanes the step at `index` spawned, in merge order. */
export function lanesAt(db: Db, taskId: number, index: number): LaneRow[] {
  return db
    .prepare(
      `SELECT ${LANE_COLUMNS} WHERE parent_task_id = ? AND spawned_by_index = ? ORDER BY lane_order, id`,
    )
    .all(taskId, index) as LaneRow[];
}

/**
 * The git operation a worktree is in the middle of, read from the markers in its git directory
 * (no git process: this runs before every step and for every blocked task in a view).
 */
export function operationMarker(worktree: string): string | null {
  const dir = worktreeGitDir(worktree);
  if (!dir) return null;
  const has = (name: string) => existsSync(join(dir, name));
  if (has('MERGE_HEAD')) return 'merge';
  if (has('CHERRY_PICK_HEAD')) return 'cherry-pick';
  if (has('REVERT_HEAD')) return 'revert';
  if (has('rebase-merge') || has('rebase-apply')) return 'rebase';
  return null;
}

/**
 * Paths a worktree holds unmerged. Git runs only when an operation marker is there: conflicts
 * come from a merge, cherry-pick, revert or rebase, each of which leaves one.
 */
export async function unmergedPaths(worktree: string): Promise<string[]> {
  if (!existsSync(worktree) || operationMarker(worktree) === null) return [];
  return conflictedPaths(worktree);
}

/** Why a worktree must not be skipped past, or null: a merge in progress, or unmerged paths. */
export async function mergeInProgress(
  worktree: string | null,
): Promise<{ operation: string; paths: string[] } | null> {
  if (!worktree || !existsSync(worktree)) return null;
  const operation = operationMarker(worktree);
  if (operation === null) return null;
  const paths = await conflictedPaths(worktree);
  return operation === 'merge' || paths.length > 0 ? { operation, paths } : null;
}

/** Branches among `names` that exist, and those of them HEAD of `worktree` already contains. */
async function branchesIn(
  worktree: string,
  names: string[],
): Promise<{ existing: Set<string>; merged: Set<string> }> {
  if (names.length === 0) return { existing: new Set(), merged: new Set() };
  const list = async (extra: string[]) => {
    const r = await gitRaw(worktree, [
      'branch',
      '--list',
      '--format=%(refname:short)',
      ...extra,
      ...names,
    ]);
    return new Set(r.code === 0 ? r.stdout.split('\n').filter(Boolean) : []);
  };
  return { existing: await list([]), merged: await list(['--merged', 'HEAD']) };
}

const SETTLED = new Set(['done', 'aborted', 'archived']);

/**
 * Judges the settled lanes by git (one call for all): `merged` when the lane finished and the
 * worktree's HEAD contains its branch — recorded on the lane, and taken back if HEAD no longer does — and answers the
 * settled lanes not merged whose branch exists (a lane whose branch is gone has no work left to
 * lose). A lane still working is never judged: its branch may not have moved yet.
 */
export async function judgeLanes(
  db: Db,
  worktree: string,
  lanes: LaneRow[],
): Promise<{ merged: LaneRow[]; unmerged: LaneRow[] }> {
  const settled = lanes.filter((l) => SETTLED.has(l.state) && l.branch_name);
  // Only a lane that finished counts as merged: an aborted lane's branch holds unfinished work, or
  // none, and is contained in the parent's only by accident.
  const finished = (l: LaneRow) => l.state === 'done' || l.state === 'archived';
  const { existing, merged } = await branchesIn(
    worktree,
    settled.map((l) => l.branch_name),
  );
  const set = db.prepare('UPDATE tasks SET lane_merge = ?, lane_merge_note = ? WHERE id = ?');
  const out = { merged: [] as LaneRow[], unmerged: [] as LaneRow[] };
  for (const lane of settled) {
    if (finished(lane) && merged.has(lane.branch_name)) {
      if (lane.lane_merge !== 'merged') {
        set.run('merged', null, lane.id);
        lane.lane_merge = 'merged';
        lane.lane_merge_note = null;
      }
      out.merged.push(lane);
      continue;
    }
    if (lane.lane_merge === 'merged') {
      set.run(null, null, lane.id);
      lane.lane_merge = null;
    }
    if (existing.has(lane.branch_name)) out.unmerged.push(lane);
  }
  return out;
}

/** Records that a human went on without these lanes' work, and why (a lane's first reason stays). */
export function leaveOut(db: Db, lanes: LaneRow[], note: string): void {
  const stmt = db.prepare(
    "UPDATE tasks SET lane_merge = 'left_out', lane_merge_note = COALESCE(lane_merge_note, ?) WHERE id = ? AND (lane_merge IS NULL OR lane_merge = 'left_out')",
  );
  for (const lane of lanes) {
    stmt.run(note, lane.id);
    lane.lane_merge = 'left_out';
    lane.lane_merge_note ??= note;
  }
}

/** `lane two (svc/5-clash-two)`: how warnings and summaries name a lane and where its work is. */
export function laneName(lane: Pick<LaneRow, 'lane_id' | 'branch_name'>): string {
  return `lane ${lane.lane_id} (branch ${lane.branch_name})`;
}

export interface LeftOutLane {
  task_id: number;
  lane_id: string;
  branch: string;
  state: string;
  reason: string;
}

export interface LaneCounts {
  /** The task's own lanes whose branch its branch holds. */
  merged: number;
  /** The task's own lanes not merged (yet, or ever). */
  unmerged: number;
  /** Lanes a human chose to go on without, with the branch where their work is. */
  left_out: LeftOutLane[];
}

/** The lane merge counts `children` carries (decision 191), over the task's own lanes. */
export function laneCounts(db: Db, taskId: number): LaneCounts {
  const rows = db
    .prepare(
      `SELECT ${LANE_COLUMNS} WHERE parent_task_id = ? ORDER BY spawned_by_index, lane_order, id`,
    )
    .all(taskId) as LaneRow[];
  const merged = rows.filter((r) => r.lane_merge === 'merged').length;
  return {
    merged,
    unmerged: rows.length - merged,
    left_out: rows
      .filter((r) => r.lane_merge === 'left_out')
      .map((r) => ({
        task_id: r.id,
        lane_id: r.lane_id,
        branch: r.branch_name,
        state: r.state,
        reason: r.lane_merge_note ?? 'left_out',
      })),
  };
}

/** Block reasons `merge_finished` answers: a lane that did not finish, a lane that does not merge. */
export const JOIN_BLOCKS: ReadonlySet<string> = new Set(['lane_failed', 'merge_conflict']);

/**
 * Whether a fan-out join waits on this task where `merge_finished` can act (decision 192): parked
 * for its lanes, or blocked at a step that joins lanes (its type declares `lanes`: fan_out) by a
 * lane that failed or does not merge.
 */
export function joinWaits(
  task: Pick<TaskRow, 'state' | 'block_reason' | 'current_step' | 'followup_spec'>,
  steps: ReadonlyArray<{ type: string }> | undefined,
  types: StepTypes,
): boolean {
  if (task.state === 'awaiting_children') return true;
  const step = steps?.[task.current_step];
  return (
    task.state === 'blocked' &&
    task.followup_spec === null &&
    JOIN_BLOCKS.has(task.block_reason ?? '') &&
    step !== undefined &&
    spawnsLanes(types, step.type)
  );
}

/**
 * Whether a task's view reads its worktree (a merge in progress there withholds `skip`): what the
 * view shows then can change with no write to the database, so the list keeps no text of it
 * (decision 250).
 */
export function viewReadsWorktree(task: Pick<TaskRow, 'state' | 'worktree_path'>): boolean {
  return (task.state === 'blocked' || task.state === 'awaiting_gate') && !!task.worktree_path;
}

/** Actions the state allows but the task's situation refuses now (`available_actions` leaves them out). */
export function withheldActions(
  task: Pick<
    TaskRow,
    'state' | 'block_reason' | 'current_step' | 'followup_spec' | 'worktree_path'
  >,
  steps: ReadonlyArray<{ type: string }> | undefined,
  types: StepTypes,
): Array<'skip' | 'merge_finished'> {
  const out: Array<'skip' | 'merge_finished'> = [];
  if (viewReadsWorktree(task) && operationMarker(task.worktree_path as string) === 'merge')
    out.push('skip');
  if (
    (task.state === 'blocked' || task.state === 'awaiting_children') &&
    !joinWaits(task, steps, types)
  )
    out.push('merge_finished');
  return out;
}
