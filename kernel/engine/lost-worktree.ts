/**
 * A worktree that vanished while its task waited for a human (issue 17 point 8, decision 183).
 * A running task whose worktree is deleted blocks `worktree_missing` before its next step
 * (decision 151); a task at a gate, waiting for an answer, or paused had no next step to notice it
 * at, and the action that moved it on (approve, skip, answer, resume) let admission re-create the
 * worktree from the branch silently, losing the uncommitted work with no word. Now that action
 * blocks the task `worktree_missing` instead, and is refused naming why; `retry` is the human's
 * consent to re-create it (decision 151).
 */
import { existsSync } from 'node:fs';
import type { Clock } from '../clock/index.js';
import { SvcError } from '../errors.js';
import { type StepTypes, waitsForHuman } from '../plugin/index.js';
import type { StepRunsTable, TaskRow } from '../store/index.js';
import { closeRow } from './attempt.js';
import type { Runner } from './runner.js';
import type { TaskStates } from './state.js';

export interface LostWorktreeDeps {
  runs: StepRunsTable;
  /** Which open row is the gate: a step of a type that waits for a human (decision 225). */
  registry: StepTypes;
  states: TaskStates;
  clock: Clock;
  runner: Runner;
}

/** The recorded worktree when it no longer exists; null when there is none or it is there. */
export function lostWorktree(task: TaskRow): string | null {
  return task.worktree_path && !existsSync(task.worktree_path) ? task.worktree_path : null;
}

const WAITING: Record<string, string> = {
  awaiting_gate: 'at a gate',
  awaiting_input: 'for an answer',
  paused: 'paused',
};

/**
 * Before `action` moves a waiting task on: when its worktree is gone, blocks the task
 * `worktree_missing` (closing a gate's open row, stopping an agent that waits for an answer) and
 * throws 409 naming the reason. Returns quietly when the worktree is there, or when the task left
 * its state meanwhile (the caller's compare-and-swap then re-reads it).
 */
export function refuseIfWorktreeLost(d: LostWorktreeDeps, task: TaskRow, action: string): void {
  const path = lostWorktree(task);
  if (!path) return;
  const gateRow =
    task.state === 'awaiting_gate'
      ? d.runs
          .open(task.id)
          .filter((r) => waitsForHuman(d.registry, r.step_type))
          .at(-1)
      : undefined;
  const detail = `worktree ${path} was deleted while the task waited ${WAITING[task.state] ?? `(${task.state})`}; its uncommitted changes went with it. retry re-creates it from ${task.branch_name}`;
  const moved = d.states.apply(task.id, 'worktree_lost', task.state, {
    block_reason: 'worktree_missing',
    block_detail: detail,
  });
  if (!moved) return;
  if (gateRow)
    closeRow(d.runs, gateRow, 'interrupted', d.clock, { failure_reason: 'worktree_missing' });
  if (task.state === 'awaiting_input') d.runner.interrupt(task.id, 'worktree_missing');
  throw new SvcError(
    'invalid_state',
    `cannot ${action}: ${detail}; the task is now blocked worktree_missing`,
    { state: 'blocked', reason: 'worktree_missing' },
  );
}
