/**
 * Human actions (SPEC §3.2): each is checked against the transition table, refused with 409
 * `invalid_state` (`details.state`) when the state does not allow it, and applied as a
 * compare-and-swap re-applied once from the state actually found (rule 2). Any action drops a
 * clock wait at once (rule 3); every action but cancel is refused while a linked chat is open
 * (rule 4).
 */
import { formatMs } from '../clock/index.js';
import { SvcError } from '../errors.js';
import { declaresKey } from '../plugin/index.js';
import { newStepRun, type StepRunRow, type TaskRow } from '../store/index.js';
import type { ActionDeps, FollowUpBody } from './action-kit.js';
import { archive } from './actions-archive.js';
import { checkBranchOverride, followUp, repair } from './actions-rerun.js';
import type { BranchOutcome } from './archive.js';
import { closeRow } from './attempt.js';
import { MERGE_FINISHED } from './finish-join.js';
import { beforeSkip, checkMergeFinished, readmittable, unfinishedLanes } from './lane-actions.js';
import { leaveOut } from './lane-merges.js';
import { refuseIfWorktreeLost } from './lost-worktree.js';
import {
  type FollowUpSpec,
  jsonOr,
  type PendingOverride,
  type StepDef,
  snapshotOf,
  stepName,
} from './model.js';
import { ACTION_FROM, actionAllowed, type HumanAction, heldEvent } from './transitions.js';

export type { ActionDeps } from './action-kit.js';

export class TaskActions {
  constructor(readonly d: ActionDeps) {}

  now(): string {
    return formatMs(this.d.clock.now());
  }

  load(id: number): TaskRow {
    const task = this.d.tasks.get(id);
    if (!task) throw new SvcError('not_found', `task ${id} not found`);
    return task;
  }

  /** Refuses every action but cancel while a linked chat is open (SPEC §3.2 rule 4). */
  locked(task: TaskRow, action: HumanAction | 'priority'): void {
    if (action === 'cancel' || action === 'priority') return;
    const chat = this.d.openChat(task.id);
    if (chat !== null) {
      throw new SvcError(
        'task_locked_by_chat',
        `task ${task.id} is locked by open chat ${chat}; close the chat first`,
        { chat_id: chat },
      );
    }
  }

  /**
   * Runs `apply` from the state found; when the compare-and-swap loses a race, re-reads and
   * re-applies once if the table allows the action from the new state.
   */
  act(id: number, action: HumanAction, apply: (task: TaskRow) => TaskRow | null): TaskRow {
    let task = this.load(id);
    for (let round = 0; round < 2; round++) {
      this.locked(task, action);
      if (!actionAllowed(action, task.state)) {
        throw new SvcError(
          'invalid_state',
          `cannot ${action.replace('_', '-')} a task that is ${task.state}`,
          { state: task.state },
        );
      }
      const result = apply(task);
      if (result) return result;
      task = this.load(id);
    }
    throw new SvcError('invalid_state', `cannot ${action} a task that is ${task.state}`, {
      state: task.state,
    });
  }

  private openRow(task: TaskRow): StepRunRow | undefined {
    return this.d.runs.open(task.id).at(-1);
  }

  cancel(id: number): TaskRow {
    const task = this.act(id, 'cancel', (t) => {
      const moved = this.d.states.apply(t.id, 'cancel', t.state, {
        pause_requested: 0,
        finished_at: this.now(),
        pending_override: null,
        repair_spec: null,
        followup_spec: null,
        followup_origin: null,
      });
      if (moved && t.state === 'awaiting_children')
        for (const child of this.d.tasks.children(t.id)) this.cascadeCancel(child.id);
      return moved;
    });
    this.d.runner.cancel(id);
    if (!this.d.runner.isActive(id)) {
      for (const row of this.d.runs.open(id))
        closeRow(this.d.runs, row, 'interrupted', this.d.clock, { failure_reason: 'canceled' });
    }
    this.d.closeChatForCancel?.(id);
    return task;
  }

  private cascadeCancel(id: number): void {
    const t = this.d.tasks.get(id);
    if (!t || !ACTION_FROM.cancel.includes(t.state)) return;
    try {
      this.cancel(id);
    } catch {
      // Settled meanwhile: nothing left to cancel.
    }
  }

  pause(id: number): TaskRow {
    return this.act(id, 'pause', (t) => {
      if (t.state === 'running') {
        return this.d.states.patch(t.id, 'running', { pause_requested: 1 })
          ? this.load(t.id)
          : null;
      }
      return this.d.states.apply(t.id, 'pause', t.state, { pause_requested: 0 });
    });
  }

  /**
   * Paused: queued again. Running with a pause requested: the request is withdrawn and the task
   * runs on (decision 209); losing that race to the step boundary, it resumes from paused.
   */
  resume(id: number): TaskRow {
    const first = this.load(id);
    if (first.state === 'running' && first.pause_requested) {
      this.locked(first, 'resume');
      if (this.d.states.patch(id, 'running', { pause_requested: 0 })) return this.load(id);
    }
    return this.act(id, 'resume', (t) => {
      refuseIfWorktreeLost(this.d, t, 'resume');
      return this.d.states.apply(t.id, 'resume', 'paused', { pause_requested: 0 });
    });
  }

  approve(id: number): TaskRow {
    return this.act(id, 'approve', (t) => {
      refuseIfWorktreeLost(this.d, t, 'approve');
      const row = this.openRow(t);
      const moved = this.d.states.apply(t.id, 'approve', 'awaiting_gate', {
        current_step: this.gateAdvance(t),
      });
      if (moved && row) closeRow(this.d.runs, row, 'approved', this.d.clock);
      return moved;
    });
  }

  /** Approving a gate inside a follow-up round keeps the index; the runner finds the next step from rows. */
  private gateAdvance(t: TaskRow): number {
    return t.followup_spec ? t.current_step : t.current_step + 1;
  }

  reject(id: number): TaskRow {
    return this.act(id, 'reject', (t) => {
      const row = this.openRow(t);
      const moved = this.d.states.apply(t.id, 'reject', 'awaiting_gate', {
        block_reason: 'rejected',
        block_detail: row ? `rejected at ${row.step_id}` : null,
      });
      if (moved && row) closeRow(this.d.runs, row, 'rejected', this.d.clock);
      return moved;
    });
  }

  /**
   * Skip (SPEC §3.2): never over a merge in progress, and at a fan-out join the lanes the branch
   * does not hold are recorded as left out and named in `warnings` (decision 190).
   */
  async skip(id: number): Promise<{ task: TaskRow; warnings: string[] }> {
    const first = this.load(id);
    this.locked(first, 'skip');
    if (!actionAllowed('skip', first.state))
      throw new SvcError('invalid_state', `cannot skip a task that is ${first.state}`, {
        state: first.state,
      });
    const warnings = await beforeSkip(this.d.store, first);
    return { task: this.skipNow(id), warnings };
  }

  private skipNow(id: number): TaskRow {
    return this.act(id, 'skip', (t) => {
      if (t.state === 'blocked' && t.worktree_path === null)
        throw new SvcError(
          'invalid_state',
          `task ${t.id} was blocked at admission (${t.block_reason ?? 'unknown'}), before any step: skip would re-admit it into the same block; fix the cause, then retry`,
          { state: t.state, reason: 'no_worktree' },
        );
      if (t.state === 'blocked' && t.followup_spec) {
        const spec = jsonOr<(FollowUpSpec & { origin_step?: number }) | null>(
          t.followup_spec,
          null,
        );
        return this.d.states.apply(t.id, 'followup_return', 'blocked', {
          followup_spec: null,
          followup_origin: null,
          current_step: spec?.origin_step ?? t.step_total,
        });
      }
      if (t.state === 'awaiting_gate') refuseIfWorktreeLost(this.d, t, 'skip');
      const row = this.openRow(t);
      const moved = this.d.states.apply(t.id, 'skip', t.state, {
        current_step: this.gateAdvance(t),
      });
      if (!moved) return null;
      if (row) closeRow(this.d.runs, row, 'skipped', this.d.clock, { skip_reason: null });
      else this.writeSkipRow(t);
      return moved;
    });
  }

  private writeSkipRow(t: TaskRow): void {
    const snap = snapshotOf(t);
    const step = snap.steps[t.current_step];
    if (!step) return;
    const now = this.now();
    this.d.runs.insert(
      newStepRun({
        task_id: t.id,
        step_index: t.current_step,
        step_id: step.id,
        step_name: stepName(step),
        step_type: step.type,
        attempt: this.d.runs.lastAttempt(t.id, t.current_step, step.id, 0) + 1,
        state: 'skipped',
        started_at: now,
        finished_at: now,
      }),
    );
  }

  /**
   * The step a retry's override applies to: the current step, or — inside a group or a loop — the
   * child whose latest attempt at this index failed.
   */
  private currentStep(t: TaskRow): StepDef | undefined {
    if (t.followup_spec) {
      const spec = jsonOr<FollowUpSpec | null>(t.followup_spec, null);
      return spec?.steps[0];
    }
    const top = snapshotOf(t).steps[t.current_step];
    if (!top || !Array.isArray(top.steps)) return top;
    const failed = this.d.runs
      .atIndex(t.id, t.current_step)
      .filter((r) => r.state === 'failed' && r.step_id !== top.id)
      .at(-1);
    const child = failed
      ? (top.steps as StepDef[]).find((s) => s.id === failed.step_id)
      : undefined;
    return child ?? top;
  }

  async retry(
    id: number,
    body: { prompt_override?: string; run_override?: string; branch_override?: string },
  ): Promise<{ task: TaskRow; readmitted?: number }> {
    const first = this.load(id);
    this.locked(first, 'retry');
    if (first.state === 'awaiting_children') {
      if (body.prompt_override || body.run_override || body.branch_override) {
        throw new SvcError('validation_failed', 'a retry of a parked parent takes no overrides', {
          field: 'prompt_override',
        });
      }
      if (first.pause_requested)
        throw new SvcError('invalid_state', 'a held retry cannot re-admit lanes', {
          state: first.state,
          reason: 'held',
        });
      let readmitted = await this.readmitLanes(first);
      for (const child of this.d.tasks.descendants(id)) {
        if (child.state !== 'blocked') continue;
        try {
          await this.retry(child.id, {});
          readmitted++;
        } catch {}
      }
      return { task: this.load(id), readmitted };
    }
    if (first.state !== 'blocked')
      throw new SvcError('invalid_state', `cannot retry a task that is ${first.state}`, {
        state: first.state,
      });
    const step = this.currentStep(first);
    if (
      (body.prompt_override !== undefined || body.run_override !== undefined) &&
      first.followup_spec
    ) {
      throw new SvcError(
        'validation_failed',
        'a follow-up step takes no override; send a new follow-up instead',
        { field: 'prompt_override' },
      );
    }
    // An override replaces the key of that name for one attempt: the step's type must declare it.
    if (body.prompt_override !== undefined && !declaresKey(this.d.registry, step?.type, 'prompt')) {
      throw new SvcError(
        'validation_failed',
        `prompt_override needs an agent step; step ${step?.id ?? '?'} is ${step?.type ?? 'none'}`,
        { field: 'prompt_override' },
      );
    }
    if (body.run_override !== undefined && !declaresKey(this.d.registry, step?.type, 'run')) {
      throw new SvcError(
        'validation_failed',
        `run_override needs a command step; step ${step?.id ?? '?'} is ${step?.type ?? 'none'}`,
        { field: 'run_override' },
      );
    }
    let branch: string | undefined;
    if (body.branch_override !== undefined)
      branch = await checkBranchOverride(this, first, body.branch_override);
    const override: PendingOverride & { step_id?: string } = {};
    if (step && (body.prompt_override !== undefined || body.run_override !== undefined))
      override.step_id = step.id;
    if (body.prompt_override !== undefined) override.prompt_override = body.prompt_override;
    if (body.run_override !== undefined) override.run_override = body.run_override;
    // A lane that failed the join runs again, before the parent's join can look (decision 193).
    const readmitted =
      first.block_reason === 'lane_failed' ? await this.readmitLanes(first) : undefined;
    const task = this.act(id, 'retry', (t) => {
      if (t.state !== 'blocked') return null;
      const patch = {
        retry_floor: this.d.runs.maxId(t.id),
        pending_override: Object.keys(override).length > 0 ? JSON.stringify(override) : null,
        ...(branch ? { branch_name: branch } : {}),
      };
      return this.d.states.apply(t.id, heldEvent('retry', t.pause_requested), 'blocked', {
        ...patch,
        pause_requested: 0,
      });
    });
    return readmitted === undefined ? { task } : { task, readmitted };
  }

  /**
   * Runs the cancelled lanes of a parent's join again (decision 193): each goes aborted → queued
   * with a fresh retry budget, once the process a cancel stopped has gone. Answers how many.
   */
  private async readmitLanes(parent: TaskRow): Promise<number> {
    let n = 0;
    for (const lane of readmittable(this.d.store, parent)) {
      if (this.d.openChat(lane.id) !== null) continue;
      await this.d.runner.settled(lane.id);
      const moved = this.d.states.apply(lane.id, 'readmit_lane', 'aborted', {
        finished_at: null,
        pause_requested: 0,
        retry_floor: this.d.runs.maxId(lane.id),
      });
      if (moved) n++;
    }
    return n;
  }

  /**
   * "Merge what finished" (decision 192): at a fan-out join, cancels the lanes still working,
   * records them left out, and queues the parent with a join that merges every finished lane and
   * records the rest; the runner carries it out (finish-join.ts).
   */
  mergeFinished(id: number): TaskRow {
    const first = this.load(id);
    this.locked(first, 'merge_finished');
    if (!actionAllowed('merge_finished', first.state))
      throw new SvcError('invalid_state', `cannot merge-finished a task that is ${first.state}`, {
        state: first.state,
      });
    const lanes = checkMergeFinished(this.d.store, first, this.d.registry);
    // The wish is on the row before any lane is cancelled: a cancel that settles the last lane
    // re-queues the parent (maybeJoin), and its join must already know to merge what finished.
    if (!this.d.states.patch(id, first.state, { join_request: MERGE_FINISHED })) {
      const now = this.load(id);
      throw new SvcError('invalid_state', `cannot merge-finished a task that is ${now.state}`, {
        state: now.state,
      });
    }
    const unfinished = unfinishedLanes(lanes);
    leaveOut(this.d.store.db, unfinished, 'unfinished');
    for (const lane of unfinished) this.cascadeCancel(lane.id);
    const now = this.load(id);
    if (now.state === 'blocked' || now.state === 'awaiting_children') {
      const moved = this.d.states.apply(
        id,
        heldEvent('merge_finished', now.pause_requested),
        now.state,
        {
          pause_requested: 0,
        },
      );
      if (moved) return moved;
    }
    return this.load(id);
  }

  repair(
    id: number,
    body: { prompt: string; agent?: string; model?: string; effort?: string },
  ): { task: TaskRow; warnings: string[] } {
    return repair(this, id, body);
  }

  followUp(id: number, body: FollowUpBody): { task: TaskRow; warnings: string[] } {
    return followUp(this, id, body);
  }

  archive(
    id: number,
    opts: { force?: boolean; human?: boolean } = {},
  ): Promise<{ task: TaskRow; branch?: BranchOutcome }> {
    return archive(this, id, opts);
  }

  answer(
    id: number,
    body: { answers?: Record<string, string | string[]>; allow?: boolean },
  ): TaskRow {
    return this.act(id, 'answer', (t) => {
      refuseIfWorktreeLost(this.d, t, 'answer');
      if (!this.d.answerInput)
        throw new SvcError('invalid_state', 'no agent is waiting for an answer', {
          state: t.state,
        });
      this.d.answerInput(t, body);
      return this.load(t.id);
    });
  }

  setPriority(id: number, priority: number): TaskRow {
    const task = this.load(id);
    if (task.state !== 'queued' && task.state !== 'paused') {
      throw new SvcError(
        'invalid_state',
        `priority can change only while queued or paused; the task is ${task.state}`,
        { state: task.state },
      );
    }
    this.d.store.tx(() => {
      if (!this.d.states.patch(id, task.state, { priority })) {
        const now = this.load(id);
        throw new SvcError(
          'invalid_state',
          `priority can change only while queued or paused; the task is ${now.state}`,
          { state: now.state },
        );
      }
      this.d.events.append(
        'task.priority_changed',
        { project_id: task.project_id, task_id: id },
        { priority, previous: task.priority },
      );
    });
    return this.load(id);
  }
}
