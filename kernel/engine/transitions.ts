/**
 * The task state machine of SPEC §3.2 as one table of `(state, event) → state`, human actions and
 * engine events alike. Every state change goes through `TaskStates.apply` (engine/state.ts), which
 * looks the move up here and refuses one the table does not declare; `available_actions` and the
 * action routes' 409s read the same table (ACTION_FROM), and docs/tasks.md's transition table is
 * checked against it (test/unit/docs/transitions.test.ts).
 */
import { TASK_STATES, type TaskState } from '../task-states.js';

export const HUMAN_ACTIONS = [
  'answer',
  'approve',
  'archive',
  'cancel',
  'follow_up',
  'merge_finished',
  'pause',
  'reject',
  'repair',
  'resume',
  'retry',
  'skip',
] as const;

export type HumanAction = (typeof HUMAN_ACTIONS)[number];

/**
 * Where an event leads from a state: a state; `origin`, the state a follow-up came from
 * (`followup_origin`, read in the same transaction); or `same`, legal here without a state change
 * (the action records a request on the row: a running task's pause, a parked parent's retry).
 */
export type Target = TaskState | 'origin' | 'same';

const CANCELLABLE = {
  queued: 'aborted',
  running: 'aborted',
  awaiting_input: 'aborted',
  awaiting_gate: 'aborted',
  awaiting_children: 'aborted',
  blocked: 'aborted',
  paused: 'aborted',
} as const;

/** The one transition table (SPEC §3.2; decisions 221, 222). */
export const TRANSITIONS = {
  // Human actions, named as their routes.
  answer: { awaiting_input: 'running' },
  approve: { awaiting_gate: 'queued' },
  archive: { done: 'archived', aborted: 'archived' },
  cancel: CANCELLABLE,
  follow_up: { done: 'queued', aborted: 'queued' },
  // Beyond SPEC §3.2 (decision 192): "merge what finished", at a fan-out join only.
  merge_finished: { awaiting_children: 'queued', blocked: 'queued' },
  pause: { queued: 'paused', running: 'same' },
  reject: { awaiting_gate: 'blocked' },
  repair: { blocked: 'queued' },
  resume: { paused: 'queued' },
  retry: { blocked: 'queued', awaiting_children: 'same' },
  skip: { awaiting_gate: 'queued', blocked: 'queued' },
  // The same actions on a task whose pause is pending: "queued (or paused when held)".
  follow_up_held: { done: 'paused', aborted: 'paused' },
  merge_finished_held: { awaiting_children: 'paused', blocked: 'paused' },
  retry_held: { blocked: 'paused' },
  // Engine events: the scheduler, the runner, input waits, recovery.
  admit: { queued: 'running' },
  park: { queued: 'paused', running: 'paused' },
  request_input: { running: 'awaiting_input' },
  input_timeout: { awaiting_input: 'running' },
  gate: { running: 'awaiting_gate' },
  backoff: { running: 'queued' },
  usage_wait: { running: 'queued' },
  interrupt: { running: 'queued', awaiting_input: 'queued' },
  fail: { running: 'blocked', awaiting_input: 'blocked' },
  worktree_lost: { awaiting_gate: 'blocked', awaiting_input: 'blocked', paused: 'blocked' },
  repair_done: { running: 'blocked' },
  spawn_children: { running: 'awaiting_children' },
  // Through admission, not straight to running: the join waits for a slot (decision 221).
  children_settled: { awaiting_children: 'queued' },
  complete: { running: 'done' },
  // A follow-up round ends (or a blocked one is skipped): back where it came from.
  followup_return: { running: 'origin', blocked: 'origin' },
  // A retry of a fan-out's parent runs a cancelled lane again (decision 193).
  readmit_lane: { aborted: 'queued' },
} as const satisfies Record<string, Partial<Record<TaskState, Target>>>;

export type TaskEvent = keyof typeof TRANSITIONS;

/** Where `event` leads from `state`; undefined when the table does not declare the move. */
export function transitionTarget(state: TaskState, event: TaskEvent): Target | undefined {
  return (TRANSITIONS[event] as Partial<Record<TaskState, Target>>)[state];
}

/** The event of an action that may be held: its `_held` twin when a pause is pending. */
export function heldEvent(
  action: 'follow_up' | 'merge_finished' | 'retry',
  pauseRequested: number | boolean,
): TaskEvent {
  return pauseRequested ? `${action}_held` : action;
}

/** The states `event` is declared from, in TASK_STATES order. */
export function statesFrom(event: TaskEvent): TaskState[] {
  return TASK_STATES.filter((s) => transitionTarget(s, event) !== undefined);
}

/** States each human action is legal from (SPEC §3.2), read off the table. */
export const ACTION_FROM = {} as Record<HumanAction, readonly TaskState[]>;
for (const a of HUMAN_ACTIONS) ACTION_FROM[a] = statesFrom(a);

export function actionAllowed(action: HumanAction, state: TaskState): boolean {
  return ACTION_FROM[action].includes(state);
}

export interface ActionView {
  state: TaskState;
  /** A chat linked to the task is open (SPEC §3.2 rule 4). */
  chatOpen: boolean;
  /**
   * Actions the state allows that this task's situation refuses right now (decisions 190, 192):
   * `skip` over a merge in progress, `merge_finished` where no fan-out join waits.
   */
  withheld?: readonly HumanAction[];
  /** The task has a worktree (absent: not known, nothing is withheld or narrowed for it). */
  hasWorktree?: boolean;
  /** A pause was requested of the running task and not yet taken. */
  pauseRequested?: boolean;
}

/**
 * Actions that cannot help a task blocked at admission, before it had a worktree (decision 216):
 * repair runs an agent in the worktree, and skip re-admits the task into the same block; nor is
 * such a task at a fan-out join, which merges in its worktree (merge_finished, decision 192).
 * Retry (after fixing the cause, e.g. fetch access for `pull_fetch_failed`) and cancel remain.
 */
export const NOT_AT_ADMISSION: readonly HumanAction[] = ['repair', 'skip', 'merge_finished'];

/**
 * `available_actions`: the human actions that can succeed right now, sorted (decisions 209, 216).
 * The table's actions for the state, less `follow_up` on a task that never had a worktree (it
 * answers 409 there) and what cannot help a task blocked at admission, plus `resume` on a running
 * task with a pause requested (it withdraws the request). A linked open chat narrows them to
 * cancel.
 */
export function availableActions(view: ActionView): HumanAction[] {
  const atAdmission = view.state === 'blocked' && view.hasWorktree === false;
  const legal = HUMAN_ACTIONS.filter(
    (a) =>
      (actionAllowed(a, view.state) &&
        !view.withheld?.includes(a) &&
        !(a === 'follow_up' && view.hasWorktree === false) &&
        !(atAdmission && NOT_AT_ADMISSION.includes(a))) ||
      (a === 'resume' && view.state === 'running' && view.pauseRequested === true),
  );
  if (view.chatOpen) return legal.includes('cancel') ? ['cancel'] : [];
  return legal;
}
