/**
 * Every task state write, through one door (`apply`): the move looked up in the transition table
 * (transitions.ts) and refused when undeclared, a compare-and-swap on the state found, the `task.state_changed` event in
 * the same transaction (its payload is the notify envelope of SPEC §2.10), and post-commit
 * listeners (scheduler wake-up, notify). Leaving a state clears what only that state means:
 * queued drops its clock, awaiting_input its pending request, blocked its reason.
 */
import { type Clock, formatMs } from '../clock/index.js';
import { SvcError } from '../errors.js';
import type { EventLog, StoredEvent } from '../events/index.js';
import type { ProjectsTable, Store, TaskPatch, TaskRow, TasksTable } from '../store/index.js';
import type { TaskState } from '../task-states.js';
import { snapshotOf } from './model.js';
import { type TaskEvent, transitionTarget } from './transitions.js';

export type TransitionListener = (task: TaskRow, from: TaskState, event: StoredEvent) => void;

export interface InputSummary {
  kind: string;
  summary: string;
}

export class TaskStates {
  private readonly listeners = new Set<TransitionListener>();

  constructor(
    private readonly store: Store,
    private readonly tasks: TasksTable,
    private readonly projects: ProjectsTable,
    private readonly events: EventLog,
    private readonly clock: Clock,
  ) {}

  onTransition(l: TransitionListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  now(): string {
    return formatMs(this.clock.now());
  }

  /**
   * Applies `event` to a task the caller found in `from`: the table says where it leads, and an
   * undeclared move (or one that is no move, `same`) is an internal error naming both — a bug in
   * the engine, never a race. Returns the new row, or null when the state had changed meanwhile
   * (the caller re-reads and decides, SPEC §3.2 rule 2).
   */
  apply(
    id: number,
    event: TaskEvent,
    from: TaskState,
    patch: TaskPatch = {},
    input?: InputSummary,
  ): TaskRow | null {
    const target = transitionTarget(from, event);
    if (target === undefined || target === 'same')
      throw new SvcError('internal', `undeclared task transition: ${event} from ${from}`, {
        state: from,
        event,
      });
    if (target !== 'origin') return this.move(id, from, target, patch, input);
    return this.store.tx(() => {
      const task = this.tasks.get(id);
      if (task?.state !== from) return null;
      // The follow-up's origin is one of the states a follow-up starts from (done or aborted).
      const origin = task.followup_origin ?? 'done';
      if (transitionTarget(origin, 'follow_up') === undefined)
        throw new SvcError('internal', `undeclared task transition: ${event} to ${origin}`, {
          state: from,
          event,
        });
      return this.move(id, from, origin, patch, input);
    });
  }

  /** The compare-and-swap and its event, for a move `apply` has looked up. */
  private move(
    id: number,
    from: TaskState,
    to: TaskState,
    patch: TaskPatch,
    input?: InputSummary,
  ): TaskRow | null {
    return this.store.tx(() => {
      const full: TaskPatch = { ...patch, updated_at: this.now() };
      if (from === 'queued' && to !== 'queued') {
        full.queued_reason = patch.queued_reason ?? null;
        full.admit_not_before = patch.admit_not_before ?? null;
      }
      if (from === 'awaiting_input' && to !== 'awaiting_input')
        full.pending_input = patch.pending_input ?? null;
      if (from === 'blocked' && to !== 'blocked') {
        full.block_reason = patch.block_reason ?? null;
        full.block_detail = patch.block_detail ?? null;
      }
      if (to === 'queued' && from !== 'queued' && patch.queued_reason === undefined) {
        full.queued_reason = null;
        full.admit_not_before = null;
      }
      const task = this.tasks.moveState(id, from, to, full);
      if (!task) return null;
      const event = this.events.append(
        'task.state_changed',
        { project_id: task.project_id, task_id: id },
        this.envelope(task, from, to, input),
      );
      this.store.afterCommit(() => {
        for (const l of this.listeners) {
          try {
            l(task, from, event);
          } catch {}
        }
      });
      return task;
    });
  }

  /** Changes fields without a state change, guarded by the state the caller saw. */
  patch(id: number, state: TaskState, patch: TaskPatch): boolean {
    return this.store.tx(() => {
      // The row before is read only when the step may advance: its event needs the old step.
      const before = patch.current_step !== undefined ? this.tasks.progress(id) : undefined;
      if (!this.tasks.cas(id, state, { ...patch, updated_at: this.now() })) return false;
      if (before && patch.current_step !== before.current_step) {
        this.events.append(
          'task.step_advanced',
          { project_id: before.project_id, task_id: id },
          { current_step: patch.current_step },
        );
      }
      return true;
    });
  }

  /** The notify envelope fields of SPEC §2.10 (without event_id and ts, which the event carries). */
  envelope(
    task: TaskRow,
    from: TaskState,
    to: TaskState,
    input?: InputSummary,
  ): Record<string, unknown> {
    const project = this.projects.get(task.project_id);
    let stepsTotal = task.step_total;
    let currentStepName = '';
    try {
      // The outline SQLite keeps beside the snapshot (migration 0015) is a few bytes to parse;
      // the snapshot is every prompt of the workflow, and a task changes state several times.
      if (task.steps_outline !== undefined) {
        const outline = JSON.parse(task.steps_outline) as Array<[string, string]>;
        stepsTotal = outline.length;
        currentStepName = outline[task.current_step]?.[0] ?? '';
      } else {
        const snap = snapshotOf(task);
        stepsTotal = snap.steps.length;
        const step = snap.steps[task.current_step];
        currentStepName = step ? (step.name ?? step.id) : '';
      }
    } catch {}
    return {
      type: 'task.state_changed',
      task_id: task.id,
      title: task.title,
      from,
      to,
      block_reason: to === 'blocked' ? (task.block_reason ?? '') : '',
      queued_reason: task.queued_reason,
      admit_not_before: task.admit_not_before,
      current_step: task.current_step,
      current_step_name: currentStepName,
      steps_total: stepsTotal,
      worktree_path: task.worktree_path ?? '',
      branch: task.branch_name ?? '',
      project_id: task.project_id,
      project: project?.name ?? '',
      workflow: task.workflow,
      parent_task_id: task.parent_task_id,
      ...(to === 'awaiting_input' && input ? { input } : {}),
    };
  }
}
