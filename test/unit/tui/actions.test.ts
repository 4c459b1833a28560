// Issue 12 point 1: approve, reject, answer, retry with override, pause, resume, cancel, archive,
// follow-up and open chat, each offered only when the task's state allows it.
import { describe, expect, it } from 'vitest';
import {
  type Prompt,
  planAction,
  readAnswer,
  retryModes,
  submitAnswer,
  submitText,
} from '../../../cli/tui/actions.js';
import { emptyLine } from '../../../cli/tui/line-edit.js';
import type { TaskDetail } from '../../../shared/wire-types.js';
import { row } from './fixtures.js';

const gate = row(7, {
  state: 'awaiting_gate',
  available_actions: ['approve', 'cancel', 'reject', 'skip'],
});
const blocked = row(8, {
  state: 'blocked',
  block_reason: 'step_failed',
  current_step: 1,
  available_actions: ['cancel', 'repair', 'retry', 'skip'],
});
const detail = (type: string, over: Partial<TaskDetail> = {}): TaskDetail => ({
  ...blocked,
  workflow_steps: [
    { index: 0, id: 'a', name: 'a', type: 'agent' },
    { index: 1, id: 'b', name: 'b', type },
  ],
  steps: [],
  ...over,
});

describe('planAction', () => {
  it('calls plain actions directly, and refuses what the state does not allow', () => {
    expect(planAction('approve', gate)).toEqual({
      kind: 'call',
      call: { taskId: 7, op: 'approve', path: '/v1/tasks/7/approve' },
    });
    expect(planAction('reject', gate)).toMatchObject({
      kind: 'call',
      call: { path: '/v1/tasks/7/reject' },
    });
    expect(planAction('resume', gate)).toEqual({
      kind: 'unavailable',
      message: 'resume does not apply to #7: it is awaiting_gate',
    });
    expect(planAction('pause', row(1, { available_actions: ['cancel', 'pause'] }))).toMatchObject({
      kind: 'call',
      call: { path: '/v1/tasks/1/pause' },
    });
  });

  it('names an open chat as the reason an action is refused', () => {
    const locked = row(3, { state: 'blocked', open_chat_id: 12, available_actions: ['cancel'] });
    expect(planAction('retry', locked)).toEqual({
      kind: 'unavailable',
      message: 'retry does not apply to #3: chat #12 is open on it',
    });
    expect(planAction('chat', locked)).toMatchObject({
      kind: 'unavailable',
      message: expect.stringMatching(/already open/),
    });
  });

  it('asks before cancel and archive', () => {
    expect(planAction('cancel', gate)).toMatchObject({
      kind: 'prompt',
      prompt: { kind: 'confirm', call: { path: '/v1/tasks/7/cancel' } },
    });
    const done = row(9, { state: 'done', available_actions: ['archive', 'follow_up'] });
    expect(planAction('archive', done)).toMatchObject({
      kind: 'prompt',
      prompt: { kind: 'confirm', call: { path: '/v1/tasks/9/archive', body: {} } },
    });
  });

  it('offers retry with an override fitting the blocked step, once the detail is known', () => {
    expect(planAction('retry', blocked)).toEqual({ kind: 'needs_detail' });
    const agent = planAction('retry', blocked, detail('agent'));
    expect(agent).toMatchObject({ kind: 'prompt', prompt: { kind: 'text', op: 'retry' } });
    const p = (agent as { prompt: Extract<Prompt, { kind: 'text' }> }).prompt;
    expect(p.modes.map((m) => m.field)).toEqual(['prompt_override', 'branch_override']);
    expect(retryModes(blocked, detail('command')).map((m) => m.field)).toEqual([
      'run_override',
      'branch_override',
    ]);
    // A branch collision puts the rename first; a follow-up row takes no override (SPEC §4.4).
    expect(
      retryModes({ ...blocked, block_reason: 'branch_exists' }, detail('command')).map(
        (m) => m.field,
      ),
    ).toEqual(['branch_override', 'run_override']);
    expect(
      retryModes({ ...blocked, current_step: 3 }, detail('agent')).map((m) => m.field),
    ).toEqual(['branch_override']);
    // From awaiting_children a retry re-admits blocked lanes, no override.
    expect(
      planAction(
        'retry',
        row(4, { state: 'awaiting_children', available_actions: ['cancel', 'retry'] }),
      ),
    ).toMatchObject({ kind: 'call', call: { path: '/v1/tasks/4/retry', body: {} } });
  });

  it('asks for the text of repair and follow-up', () => {
    expect(planAction('repair', blocked)).toMatchObject({
      kind: 'prompt',
      prompt: { kind: 'text', modes: [{ field: 'prompt', required: true }] },
    });
    const done = row(9, { state: 'done', available_actions: ['archive', 'follow_up'] });
    const fu = planAction('follow_up', done) as { prompt: Extract<Prompt, { kind: 'text' }> };
    expect(fu.prompt.modes.map((m) => m.field)).toEqual(['prompt', 'run', 'workflow']);
  });

  it('opens a chat only on a stopped task with a worktree', () => {
    expect(planAction('chat', gate)).toMatchObject({
      kind: 'call',
      call: { path: '/v1/tasks/7/chat', body: {} },
    });
    expect(planAction('chat', row(1))).toMatchObject({ kind: 'unavailable' });
    expect(planAction('chat', { ...gate, worktree_path: null })).toMatchObject({
      kind: 'unavailable',
      message: '#7 has no worktree to chat in',
    });
  });

  it('answers from the pending input the list row carries', () => {
    const asking = row(5, {
      state: 'awaiting_input',
      available_actions: ['answer', 'cancel'],
      pending_input: {
        kind: 'question',
        questions: [{ text: 'Colour?', options: ['red', 'blue'] }],
      },
    });
    expect(planAction('answer', asking)).toMatchObject({
      kind: 'prompt',
      prompt: { kind: 'answer', index: 0 },
    });
    expect(planAction('answer', { ...asking, pending_input: null })).toEqual({
      kind: 'needs_detail',
    });
  });
});

describe('submitting text', () => {
  const prompt = (value: string, mode = 0): Extract<Prompt, { kind: 'text' }> => ({
    kind: 'text',
    taskId: 8,
    op: 'retry',
    modes: [
      { field: 'prompt_override', label: 'prompt override', required: false },
      { field: 'branch_override', label: 'new branch name', required: false },
    ],
    mode,
    line: emptyLine(value),
  });
  it('sends the override in the chosen field, or none when empty', () => {
    expect(submitText(prompt('  try harder '))).toEqual({
      taskId: 8,
      op: 'retry',
      path: '/v1/tasks/8/retry',
      body: { prompt_override: 'try harder' },
    });
    expect(submitText(prompt('fix/again', 1))).toMatchObject({
      body: { branch_override: 'fix/again' },
    });
    expect(submitText(prompt(''))).toMatchObject({ body: {} });
    expect(
      submitText({
        ...prompt(''),
        op: 'repair',
        modes: [{ field: 'prompt', label: 'repair prompt', required: true }],
      }),
    ).toEqual({ error: 'repair prompt is required' });
  });
});

describe('answering', () => {
  const ask = (questions: Array<{ text: string; options?: string[]; multi_select?: boolean }>) =>
    ({
      kind: 'answer',
      taskId: 5,
      pending: { kind: 'question', questions },
      index: 0,
      answers: {},
      line: emptyLine(),
    }) as Extract<Prompt, { kind: 'answer' }>;

  it('reads option numbers, several for a multi-select, and free text', () => {
    const q = { options: ['red', 'green', 'blue'] };
    expect(readAnswer('2', q)).toBe('green');
    expect(readAnswer('1,3', { ...q, multi_select: true })).toEqual(['red', 'blue']);
    expect(readAnswer('1,3', q)).toEqual({ error: 'pick one option' });
    expect(readAnswer('7', q)).toEqual({ error: 'pick a number from 1 to 3' });
    expect(readAnswer('teal please', q)).toBe('teal please');
    expect(readAnswer(' ', q)).toEqual({ error: 'type an answer' });
  });

  it('walks the questions, then answers them all keyed by their text', () => {
    const p = ask([{ text: 'Colour?', options: ['red', 'blue'] }, { text: 'Why?' }]);
    const first = submitAnswer({ ...p, line: emptyLine('2') });
    expect(first).toMatchObject({ next: { index: 1, answers: { 'Colour?': 'blue' } } });
    const second = submitAnswer({
      ...(first as { next: Extract<Prompt, { kind: 'answer' }> }).next,
      line: emptyLine('it is calm'),
    });
    expect(second).toEqual({
      call: {
        taskId: 5,
        op: 'answer',
        path: '/v1/tasks/5/answer',
        body: { answers: { 'Colour?': 'blue', 'Why?': 'it is calm' } },
      },
    });
  });

  it('answers a permission request with allow', () => {
    const p: Extract<Prompt, { kind: 'answer' }> = {
      ...ask([]),
      pending: { kind: 'permission', permission: { tool: 'Bash', summary: 'rm -rf build' } },
    };
    expect(submitAnswer({ ...p, line: emptyLine('n') })).toMatchObject({
      call: { body: { allow: false } },
    });
    expect(submitAnswer({ ...p, line: emptyLine('y') })).toMatchObject({
      call: { body: { allow: true } },
    });
    expect(submitAnswer({ ...p, line: emptyLine('maybe') })).toEqual({
      error: 'answer y to allow or n to deny',
    });
  });
});
