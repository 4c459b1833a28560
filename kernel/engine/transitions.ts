/**
 * The task state machine of SPEC §3.2 as one table. The engine, the action routes and
 * `available_actions` all read it; a parity test walks it. Human actions are listed with the
 * states they are legal from; engine transitions (admission, gates, input, completion, parking)
 * with theirs. Every write is a compare-and-swap on the state found (engine/state.ts).
 */
import type { TaskState } from '../task-states.js';

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

/** States each human action is legal from (SPEC §3.2). */
export const ACTION_FROM: Record<HumanAction, readonly TaskState[]> = {
  answer: ['awaiting_input'],
  approve: ['awaiting_gate'],
  archive: ['done', 'aborted'],
  cancel: [
    'queued',
    'running',
    'awaiting_input',
    'awaiting_gate',
    'awaiting_children',
    'blocked',
    'paused',
  ],
  follow_up: ['done', 'aborted'],
  // Beyond SPEC §3.2 (decision 192): "merge what finished", at a fan-out join only.
  merge_finished: ['awaiting_children', 'blocked'],
  pause: ['queued', 'running'],
  reject: ['awaiting_gate'],
  repair: ['blocked'],
  resume: ['paused'],
  retry: ['blocked', 'awaiting_children'],
  skip: ['awaiting_gate', 'blocked'],
};

/** Where each human action leads from each legal state. `origin` means the follow-up's origin state. */
export const ACTION_TO: Record<
  HumanAction,
  Partial<Record<TaskState, TaskState | 'origin' | 'same'>>
> = {
  answer: { awaiting_input: 'running' },
  approve: { awaiting_gate: 'queued' },
  archive: { done: 'archived', aborted: 'archived' },
  cancel: {
    queued: 'aborted',
    running: 'aborted',
    awaiting_input: 'aborted',
    awaiting_gate: 'aborted',
    awaiting_children: 'aborted',
    blocked: 'aborted',
    paused: 'aborted',
  },
  follow_up: { done: 'queued', aborted: 'queued' },
  merge_finished: { awaiting_children: 'queued', blocked: 'queued' },
  pause: { queued: 'paused', running: 'same' },
  reject: { awaiting_gate: 'blocked' },
  repair: { blocked: 'queued' },
  resume: { paused: 'queued' },
  retry: { blocked: 'queued', awaiting_children: 'same' },
  skip: { awaiting_gate: 'queued', blocked: 'queued' },
};

/** Transitions only the engine and scheduler make. */
export const ENGINE_TRANSITIONS = {
  admit: { from: ['queued'], to: 'running' },
  admission_block: { from: ['queued', 'running'], to: 'blocked' },
  gate: { from: ['running'], to: 'awaiting_gate' },
  request_input: { from: ['running'], to: 'awaiting_input' },
  input_answered: { from: ['awaiting_input'], to: 'running' },
  fail: { from: ['running', 'awaiting_input'], to: 'blocked' },
  backoff: { from: ['running'], to: 'queued' },
  interrupt: { from: ['running', 'awaiting_input'], to: 'queued' },
  park: { from: ['running', 'queued'], to: 'paused' },
  spawn_children: { from: ['running'], to: 'awaiting_children' },
  children_settled: { from: ['awaiting_children'], to: 'running' },
  complete: { from: ['running'], to: 'done' },
  followup_return: { from: ['running', 'queued', 'blocked'], to: 'origin' },
  // A retry of a fan-out's parent runs a cancelled lane again (decision 193).
  readmit_lane: { from: ['aborted'], to: 'queued' },
} as const satisfies Record<string, { from: readonly TaskState[]; to: TaskState | 'origin' }>;

export type EngineTransition = keyof typeof ENGINE_TRANSITIONS;

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
  /** The task has a worktree (absent: not known, nothing narrowed). */
  hasWorktree?: boolean;
}

/**
 * Actions that cannot help a task blocked at admission, before it had a worktree (decision 216):
 * repair runs an agent in the worktree, and skip re-admits the task into the same block; nor is
 * such a task at a fan-out join, which merges in its worktree (merge_finished, decision 192).
 * Retry (after fixing the cause, e.g. fetch access for `pull_fetch_failed`) and cancel remain.
 */
export const NOT_AT_ADMISSION: readonly HumanAction[] = ['repair', 'skip', 'merge_finished'];

/** `available_actions`: the human actions legal right now, sorted. A linked open chat narrows them to cancel. */
export function availableActions(view: ActionView): HumanAction[] {
  const atAdmission = view.state === 'blocked' && view.hasWorktree === false;
  const legal = HUMAN_ACTIONS.filter(
    (a) =>
      actionAllowed(a, view.state) &&
      !view.withheld?.includes(a) &&
      !(atAdmission && NOT_AT_ADMISSION.includes(a)),
  );
  if (view.chatOpen) return legal.includes('cancel') ? ['cancel'] : [];
  return legal;
}
