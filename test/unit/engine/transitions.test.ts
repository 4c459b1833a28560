// Parity: the one transition table drives available_actions (SPEC §3.2; STYLE parity tests).
import { describe, expect, it } from 'vitest';
import {
  ACTION_FROM,
  ACTION_TO,
  availableActions,
  HUMAN_ACTIONS,
} from '../../../kernel/engine/transitions.js';
import { TASK_STATES } from '../../../kernel/task-states.js';

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

  it('names a destination for every legal source state', () => {
    for (const action of HUMAN_ACTIONS) {
      for (const from of ACTION_FROM[action])
        expect(ACTION_TO[action][from], `${action} from ${from}`).toBeDefined();
    }
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
