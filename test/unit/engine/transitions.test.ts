// Parity: the one transition table drives available_actions (SPEC §3.2; STYLE parity tests), and
// walked row by row it is exactly SPEC §3.2's table plus the moves decisions added.
import { describe, expect, it } from 'vitest';
import {
  ACTION_FROM,
  availableActions,
  HUMAN_ACTIONS,
  type TaskEvent,
  TRANSITIONS,
  transitionTarget,
} from '../../../kernel/engine/transitions.js';
import { TASK_STATES, type TaskState } from '../../../kernel/task-states.js';

/**
 * SPEC §3.2's rows, copied (from, trigger, condition, to), each with the events the engine applies
 * to carry it out, in order. A row whose `to` is "origin" returns to the state it started from.
 */
interface SpecRow {
  from: TaskState[];
  trigger: string;
  to: TaskState | 'origin';
  events: TaskEvent[];
}

const SPEC_3_2: SpecRow[] = [
  { from: ['queued'], trigger: 'scheduler: a slot is free', to: 'running', events: ['admit'] },
  // The admission checks run once admitted, in the runner: queued → running → blocked.
  { from: ['queued'], trigger: 'admission check fails', to: 'blocked', events: ['admit', 'fail'] },
  { from: ['queued'], trigger: 'wait elapses', to: 'running', events: ['admit'] },
  {
    from: ['running'],
    trigger: 'agent input request',
    to: 'awaiting_input',
    events: ['request_input'],
  },
  { from: ['awaiting_input'], trigger: 'answer', to: 'running', events: ['answer'] },
  { from: ['running'], trigger: 'manual step reached', to: 'awaiting_gate', events: ['gate'] },
  { from: ['awaiting_gate'], trigger: 'approve', to: 'queued', events: ['approve'] },
  { from: ['awaiting_gate'], trigger: 'reject', to: 'blocked', events: ['reject'] },
  { from: ['awaiting_gate', 'blocked'], trigger: 'skip', to: 'queued', events: ['skip'] },
  { from: ['running'], trigger: 'attempt fails, retries remain', to: 'running', events: [] },
  { from: ['running'], trigger: 'attempt fails, backoff', to: 'queued', events: ['backoff'] },
  { from: ['running'], trigger: 'attempt fails, retries spent', to: 'blocked', events: ['fail'] },
  { from: ['running'], trigger: 'usage quota, waits', to: 'queued', events: ['usage_wait'] },
  { from: ['running'], trigger: 'usage quota, never', to: 'blocked', events: ['fail'] },
  { from: ['running'], trigger: 'over a cost cap', to: 'blocked', events: ['fail'] },
  {
    from: ['running'],
    trigger: 'fan_out spawns lanes',
    to: 'awaiting_children',
    events: ['spawn_children'],
  },
  // "running (join)": through admission, the join waits for a slot (decisions 017, 221).
  {
    from: ['awaiting_children'],
    trigger: 'every lane settled',
    to: 'running',
    events: ['children_settled', 'admit'],
  },
  { from: ['running'], trigger: 'all steps succeeded', to: 'done', events: ['complete'] },
  // "after the current step finishes": the request is recorded, the runner parks at the boundary.
  { from: ['running'], trigger: 'pause', to: 'paused', events: ['pause', 'park'] },
  { from: ['queued'], trigger: 'pause', to: 'paused', events: ['pause'] },
  { from: ['paused'], trigger: 'resume', to: 'queued', events: ['resume'] },
  { from: ['blocked'], trigger: 'retry', to: 'queued', events: ['retry'] },
  { from: ['blocked'], trigger: 'retry, held', to: 'paused', events: ['retry_held'] },
  { from: ['blocked'], trigger: 'retry with override', to: 'queued', events: ['retry'] },
  {
    from: ['awaiting_children'],
    trigger: 'retry',
    to: 'awaiting_children',
    events: ['retry'],
  },
  {
    from: ['blocked'],
    trigger: 'repair',
    to: 'blocked',
    events: ['repair', 'admit', 'repair_done'],
  },
  {
    from: [
      'queued',
      'running',
      'awaiting_input',
      'awaiting_gate',
      'awaiting_children',
      'blocked',
      'paused',
    ],
    trigger: 'cancel',
    to: 'aborted',
    events: ['cancel'],
  },
  { from: ['done', 'aborted'], trigger: 'archive', to: 'archived', events: ['archive'] },
  { from: ['done', 'aborted'], trigger: 'follow_up', to: 'queued', events: ['follow_up'] },
  {
    from: ['done', 'aborted'],
    trigger: 'follow_up, held',
    to: 'paused',
    events: ['follow_up_held'],
  },
  {
    from: ['done', 'aborted'],
    trigger: 'follow_up, the round ends',
    to: 'origin',
    events: ['follow_up', 'admit', 'followup_return'],
  },
  {
    from: ['done', 'aborted'],
    trigger: 'cancel (follow-up running)',
    to: 'aborted',
    events: ['follow_up', 'admit', 'cancel'],
  },
  {
    from: ['done', 'aborted'],
    trigger: 'retry (follow-up blocked)',
    to: 'queued',
    events: ['follow_up', 'admit', 'fail', 'retry'],
  },
  {
    from: ['done', 'aborted'],
    trigger: 'repair (follow-up blocked)',
    to: 'blocked',
    events: ['follow_up', 'admit', 'fail', 'repair', 'admit', 'repair_done'],
  },
  // Skip abandons the follow-up: the engine applies the follow-up's return, not a skip.
  {
    from: ['done', 'aborted'],
    trigger: 'skip (follow-up blocked)',
    to: 'origin',
    events: ['follow_up', 'admit', 'fail', 'followup_return'],
  },
];

/** Moves the table has beyond SPEC §3.2, each designed by a decision. */
const BEYOND_SPEC: SpecRow[] = [
  // Decision 192: "merge what finished" at a fan-out join, queued (paused when held).
  {
    from: ['awaiting_children', 'blocked'],
    trigger: 'merge_finished',
    to: 'queued',
    events: ['merge_finished'],
  },
  {
    from: ['awaiting_children', 'blocked'],
    trigger: 'merge_finished, held',
    to: 'paused',
    events: ['merge_finished_held'],
  },
  // Decision 183: a waiting task whose worktree vanished blocks worktree_missing.
  {
    from: ['awaiting_gate', 'awaiting_input', 'paused'],
    trigger: 'worktree lost',
    to: 'blocked',
    events: ['worktree_lost'],
  },
  // Decision 193: a parent's retry re-admits a cancelled lane.
  { from: ['aborted'], trigger: 'lane re-admitted', to: 'queued', events: ['readmit_lane'] },
  // Decision 046: an input wait that times out hands the agent its denial; the attempt goes on.
  { from: ['awaiting_input'], trigger: 'input timeout', to: 'running', events: ['input_timeout'] },
  // Decision 009: a restart (or shutdown) re-admits what held a slot.
  {
    from: ['running', 'awaiting_input'],
    trigger: 'interrupted',
    to: 'queued',
    events: ['interrupt'],
  },
  // Decisions 180, 181: a crash or a full disk while an agent waits for an answer blocks it.
  { from: ['awaiting_input'], trigger: 'crash', to: 'blocked', events: ['fail'] },
  // Decision 010: the scheduler parks a queued task whose pause was requested (a held trigger).
  { from: ['queued'], trigger: 'pause requested', to: 'paused', events: ['park'] },
];

/** Walks `events` from `start`; every step must be declared. Returns the end and the steps taken. */
function walk(start: TaskState, events: TaskEvent[]): { end: TaskState; steps: string[] } {
  let state = start;
  let origin: TaskState | undefined;
  const steps: string[] = [];
  for (const event of events) {
    const target = transitionTarget(state, event);
    if (target === undefined) throw new Error(`${event} is not declared from ${state}`);
    steps.push(`${state}|${event}`);
    if (event === 'follow_up' || event === 'follow_up_held') origin = state;
    if (target === 'origin') {
      if (!origin) throw new Error(`${event} from ${state} returns to no origin`);
      state = origin;
    } else if (target !== 'same') state = target;
  }
  return { end: state, steps };
}

// SPEC §3.2's human rows, copied as data: action → states it is legal from.
const SPEC_ROWS: Record<string, string[]> = {
  cancel: [
    'queued',
    'running',
    'awaiting_input',
    'awaiting_gate',
    'awaiting_children',
    'blocked',
    'paused',
  ],
  pause: ['running', 'queued'],
  resume: ['paused'],
  skip: ['awaiting_gate', 'blocked'],
  approve: ['awaiting_gate'],
  reject: ['awaiting_gate'],
  retry: ['blocked', 'awaiting_children'],
  repair: ['blocked'],
  answer: ['awaiting_input'],
  archive: ['done', 'aborted'],
  follow_up: ['done', 'aborted'],
  // Not a SPEC §3.2 row: "merge what finished" at a fan-out join (decision 192).
  merge_finished: ['awaiting_children', 'blocked'],
};

describe('transition table', () => {
  it('matches SPEC §3.2 for every human action', () => {
    for (const action of HUMAN_ACTIONS)
      expect([...ACTION_FROM[action]].sort(), action).toEqual(
        [...(SPEC_ROWS[action] ?? [])].sort(),
      );
  });

  it('carries out every SPEC §3.2 row, and every move beyond it a decision made', () => {
    for (const row of [...SPEC_3_2, ...BEYOND_SPEC]) {
      for (const from of row.from) {
        const want = row.to === 'origin' ? from : row.to;
        expect(walk(from, row.events).end, `${from} | ${row.trigger}`).toBe(want);
      }
    }
  });

  it('declares no (state, event) pair that no row uses, and refuses every other pair', () => {
    const used = new Set<string>();
    for (const row of [...SPEC_3_2, ...BEYOND_SPEC])
      for (const from of row.from) for (const step of walk(from, row.events).steps) used.add(step);
    const events = Object.keys(TRANSITIONS) as TaskEvent[];
    for (const state of TASK_STATES) {
      for (const event of events) {
        const declared = transitionTarget(state, event) !== undefined;
        expect(declared, `${state} | ${event}`).toBe(used.has(`${state}|${event}`));
      }
    }
  });

  it('resolves the awaiting_children drift through admission (decision 221)', () => {
    expect(transitionTarget('awaiting_children', 'children_settled')).toBe('queued');
    expect(transitionTarget('awaiting_children', 'admit')).toBeUndefined();
    expect(transitionTarget('queued', 'admit')).toBe('running');
  });

  it('derives available_actions from the table, sorted', () => {
    for (const state of TASK_STATES) {
      const expected = HUMAN_ACTIONS.filter((a) => ACTION_FROM[a].includes(state));
      expect(availableActions({ state, chatOpen: false })).toEqual(expected);
      expect(expected).toEqual([...expected].sort());
    }
    expect(availableActions({ state: 'blocked', chatOpen: false })).toEqual([
      'cancel',
      'merge_finished',
      'repair',
      'retry',
      'skip',
    ]);
    expect(availableActions({ state: 'done', chatOpen: false })).toEqual(['archive', 'follow_up']);
    expect(availableActions({ state: 'archived', chatOpen: false })).toEqual([]);
  });

  it('offers only what can succeed: no follow-up without a worktree, resume withdraws a pending pause (decision 209)', () => {
    expect(availableActions({ state: 'aborted', chatOpen: false, hasWorktree: false })).toEqual([
      'archive',
    ]);
    expect(availableActions({ state: 'aborted', chatOpen: false, hasWorktree: true })).toEqual([
      'archive',
      'follow_up',
    ]);
    expect(availableActions({ state: 'running', chatOpen: false, pauseRequested: true })).toEqual([
      'cancel',
      'pause',
      'resume',
    ]);
    expect(availableActions({ state: 'running', chatOpen: false, pauseRequested: false })).toEqual([
      'cancel',
      'pause',
    ]);
  });

  it('leaves out what the task’s situation refuses now (decisions 190, 192)', () => {
    // A blocked command step: no fan-out join for merge_finished.
    expect(
      availableActions({ state: 'blocked', chatOpen: false, withheld: ['merge_finished'] }),
    ).toEqual(['cancel', 'repair', 'retry', 'skip']);
    // A fan-out join blocked mid-merge: skip would run the next step over the conflict.
    expect(availableActions({ state: 'blocked', chatOpen: false, withheld: ['skip'] })).toEqual([
      'cancel',
      'merge_finished',
      'repair',
      'retry',
    ]);
    expect(availableActions({ state: 'awaiting_children', chatOpen: false, withheld: [] })).toEqual(
      ['cancel', 'merge_finished', 'retry'],
    );
  });

  it('narrows to cancel while a linked chat is open (SPEC §2.1)', () => {
    expect(availableActions({ state: 'blocked', chatOpen: true })).toEqual(['cancel']);
    expect(availableActions({ state: 'awaiting_gate', chatOpen: true })).toEqual(['cancel']);
    expect(availableActions({ state: 'done', chatOpen: true })).toEqual([]);
    expect(availableActions({ state: 'aborted', chatOpen: true })).toEqual([]);
  });

  it('offers no repair or skip to a task blocked before it had a worktree (decision 216)', () => {
    expect(availableActions({ state: 'blocked', chatOpen: false, hasWorktree: false })).toEqual([
      'cancel',
      'retry',
    ]);
    // With its worktree, as the view asks for a task at no fan-out join (decision 192).
    expect(
      availableActions({
        state: 'blocked',
        chatOpen: false,
        hasWorktree: true,
        withheld: ['merge_finished'],
      }),
    ).toEqual(['cancel', 'repair', 'retry', 'skip']);
    // Only a blocked task is narrowed: a gate's skip does not need the worktree.
    expect(
      availableActions({ state: 'awaiting_gate', chatOpen: false, hasWorktree: false }),
    ).toContain('skip');
  });
});
