/**
 * "Merge what finished" (decision 192): the join a human asked for with `merge_finished`. It
 * finishes or abandons the merge left in the worktree, merges every lane that finished (`done`, or
 * archived with its branch) `--no-ff` in declared order, and records every other lane as left out
 * with why — aborted, cancelled unfinished, or in conflict — so the task goes on saying which
 * lanes' work it does not hold and on which branch that work still is. A conflict here never
 * blocks and never stays in the worktree: that lane's merge is aborted and the lane left out.
 * A git failure that is not a conflict blocks `git_error`, as any join does, with nothing guessed.
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from '../clock/index.js';
import { gitRaw, worktreeGitDir } from '../git/index.js';
import type { FlowOutcome } from '../plugin/index.js';
import type { StepRunsTable, Store, TaskRow } from '../store/index.js';
import { judgeLanes, type LaneRow, laneName, lanesAt, leaveOut } from './lane-merges.js';
import { commitMerge, mergeLane, pendingMerge } from './merge.js';
import type { StepDef } from './model.js';
import { recordDecision } from './outcomes.js';

export interface FinishJoinDeps {
  store: Store;
  runs: StepRunsTable;
  clock: Clock;
}

/** The `join_request` value `merge_finished` writes. */
export const MERGE_FINISHED = 'merge_finished';

async function abortMerge(worktree: string): Promise<string | null> {
  const r = await gitRaw(worktree, ['merge', '--abort']);
  return r.code === 0
    ? null
    : (r.stderr || r.stdout).trim() || `git merge --abort exited ${r.code}`;
}

/** The lane whose branch tip a merge in progress is merging (MERGE_HEAD names the commit). */
async function mergingLane(worktree: string, lanes: LaneRow[]): Promise<LaneRow | undefined> {
  const dir = worktreeGitDir(worktree);
  if (!dir) return undefined;
  let head: string;
  try {
    head = readFileSync(join(dir, 'MERGE_HEAD'), 'utf8').trim().split('\n')[0] ?? '';
  } catch {
    return undefined;
  }
  for (const lane of lanes) {
    const r = await gitRaw(worktree, [
      'rev-parse',
      '--verify',
      '--quiet',
      `refs/heads/${lane.branch_name}`,
    ]);
    if (r.code === 0 && r.stdout.trim() === head) return lane;
  }
  return undefined;
}

export async function finishJoin(
  d: FinishJoinDeps,
  task: TaskRow,
  step: StepDef,
  index: number,
): Promise<FlowOutcome> {
  const worktree = task.worktree_path as string;
  const lanes = lanesAt(d.store.db, task.id, index);
  const blocked = (message: string): FlowOutcome => {
    recordDecision(d, task, step, index, 'failed', {
      failure_reason: 'git_error',
      result_summary: message,
    });
    return { kind: 'blocked', reason: 'git_error', message };
  };

  const pending = await pendingMerge(worktree);
  if (pending.kind === 'conflicted') {
    const lane = await mergingLane(worktree, lanes);
    const failed = await abortMerge(worktree);
    if (failed) return blocked(`could not abort the merge in progress: ${failed}`);
    if (lane) leaveOut(d.store.db, [lane], 'conflict');
  } else if (pending.kind === 'resolved') {
    const r = await commitMerge(worktree, `Merge lanes of task ${task.id} (resolved)`);
    if (r.kind === 'error') return blocked(r.message);
  }

  await judgeLanes(d.store.db, worktree, lanes);
  for (const lane of lanes) {
    if (lane.lane_merge !== null) continue;
    if (lane.state !== 'done' && lane.state !== 'archived') {
      leaveOut(d.store.db, [lane], lane.state === 'aborted' ? 'aborted' : 'unfinished');
      continue;
    }
    const r = await mergeLane(worktree, {
      task_id: lane.id,
      lane_id: lane.lane_id,
      lane_order: lane.lane_order,
      state: lane.state,
      branch: lane.branch_name,
    });
    if (r.kind === 'conflict') {
      const failed = await abortMerge(worktree);
      if (failed) return blocked(`could not abort the merge of ${laneName(lane)}: ${failed}`);
      leaveOut(d.store.db, [lane], 'conflict');
    } else if (r.kind === 'error' && lane.state !== 'archived') return blocked(r.message);
    // An archived lane whose branch is gone has nothing left to merge.
  }
  await judgeLanes(d.store.db, worktree, lanes);

  const merged = lanes.filter((l) => l.lane_merge === 'merged');
  const out = lanes.filter((l) => l.lane_merge === 'left_out');
  const parts = [
    merged.length > 0
      ? `merged lanes ${merged.map((l) => l.lane_id).join(', ')}`
      : 'merged no lane',
  ];
  if (out.length > 0)
    parts.push(
      `left out ${out.map((l) => `${laneName(l)}: ${l.lane_merge_note ?? 'left out'}`).join(', ')}`,
    );
  recordDecision(d, task, step, index, 'succeeded', {
    result_summary: `merge_finished: ${parts.join('; ')}`,
  });
  return { kind: 'succeeded' };
}
