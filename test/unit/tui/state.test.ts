// Issue 12 point 1: key handling reduced against the state each previous key produced, so a
// burst of keys (a paste, `text⏎`) acts as if typed one by one; effects queued for the App.
import { describe, expect, it } from 'vitest';
import type { Keystroke } from '../../../cli/tui/keys.js';
import {
  initialState,
  type Msg,
  reduce,
  selectedTask,
  splitChunk,
  type TuiState,
} from '../../../cli/tui/state.js';
import { row } from './fixtures.js';

const settings = { group_by: [] as string[], hyperlinks: false, keys: {} };
const k = (input: string, key: Keystroke['key'] = {}): Msg => ({
  type: 'key',
  key: { input, key },
});

function run(s: TuiState, ...msgs: Msg[]): TuiState {
  return msgs.reduce(reduce, s);
}

const tasks = [
  row(3, { state: 'awaiting_gate', available_actions: ['approve', 'cancel', 'reject', 'skip'] }),
  row(2, { state: 'done', available_actions: ['archive', 'follow_up'] }),
  row(1),
];
const ready = () => run(initialState(), { type: 'settings', settings }, { type: 'tasks', tasks });

describe('the reducer', () => {
  it('ignores keys until the settings arrived (a rebind must not be missed), except ctrl+c', () => {
    const s = run(initialState(), { type: 'tasks', tasks }, k('a'));
    expect(s.effects).toEqual([]);
    expect(run(initialState(), k('c', { ctrl: true })).effects).toMatchObject([{ kind: 'quit' }]);
  });

  it('selects the first task and moves with the reserved keys', () => {
    let s = ready();
    expect(s.selectedId).toBe(3);
    s = run(s, k('j'), k('', { downArrow: true }));
    expect(s.selectedId).toBe(1);
    s = run(s, k('', { downArrow: true }));
    expect(s.selectedId).toBe(1);
    s = run(s, k('', { home: true }));
    expect(s.selectedId).toBe(3);
    s = run(s, k('', { end: true }), k('k'));
    expect(s.selectedId).toBe(2);
  });

  it('keeps the selection on its task when the list changes, else on its neighbour', () => {
    let s = run(ready(), k('j'));
    s = run(s, { type: 'tasks', tasks: [row(4), ...tasks] });
    expect(s.selectedId).toBe(2);
    s = run(s, { type: 'tasks', tasks: [row(4), tasks[0], tasks[2]] as never });
    expect(s.selectedId).toBe(1);
  });

  it('queues an action call for the selected task, refusing one the state does not allow', () => {
    let s = run(ready(), k('a'));
    expect(s.effects).toMatchObject([
      { id: 1, kind: 'call', call: { taskId: 3, op: 'approve', path: '/v1/tasks/3/approve' } },
    ]);
    s = run(s, { type: 'done', ids: [1] }, k('u'));
    expect(s.effects).toEqual([]);
    expect(s.flash).toEqual({
      text: 'resume does not apply to #3: it is awaiting_gate',
      tone: 'error',
    });
  });

  it('follows rebinds from tui.keys', () => {
    const s = run(
      ready(),
      { type: 'settings', settings: { ...settings, keys: { approve: 'y', reject: 'N' } } },
      k('a'),
    );
    expect(s.effects).toEqual([]);
    expect(run(s, k('y')).effects).toMatchObject([{ kind: 'call', call: { op: 'approve' } }]);
    expect(run(s, k('N')).effects).toMatchObject([{ kind: 'call', call: { op: 'reject' } }]);
  });

  it('confirms cancel with y, and drops it with n', () => {
    let s = run(ready(), k('c'));
    expect(s.prompt).toMatchObject({ kind: 'confirm' });
    expect(run(s, k('n')).prompt).toBeNull();
    expect(run(s, k('n')).effects).toEqual([]);
    s = run(s, k('y'));
    expect(s.prompt).toBeNull();
    expect(s.effects).toMatchObject([{ kind: 'call', call: { op: 'cancel' } }]);
  });

  it('types a follow-up in one burst: text and enter in a single chunk', () => {
    let s = run(ready(), k('j'), k('f'));
    expect(s.prompt).toMatchObject({ kind: 'text', op: 'follow_up', mode: 0 });
    s = run(s, k('', { tab: true }), k('npm test\r'));
    expect(s.prompt).toBeNull();
    expect(s.effects).toMatchObject([
      { kind: 'call', call: { path: '/v1/tasks/2/follow_up', body: { run: 'npm test' } } },
    ]);
  });

  it('asks for the detail before planning a retry, then offers the override', () => {
    const blocked = row(8, {
      state: 'blocked',
      block_reason: 'step_failed',
      available_actions: ['cancel', 'retry'],
    });
    let s = run(ready(), { type: 'tasks', tasks: [blocked] }, k('r'));
    expect(s.effects).toMatchObject([{ kind: 'plan_with_detail', op: 'retry', task: { id: 8 } }]);
    s = run(s, {
      type: 'planned',
      op: 'retry',
      task: blocked,
      detail: { ...blocked, workflow_steps: [{ index: 0, id: 'x', name: 'x', type: 'command' }] },
    });
    expect(s.prompt).toMatchObject({
      kind: 'text',
      modes: [{ field: 'run_override' }, { field: 'branch_override' }],
    });
  });

  it('opens the detail, acts on the open task there, and goes back', () => {
    let s = run(ready(), k('', { return: true }));
    expect(s).toMatchObject({ view: 'detail', under: 'detail', selectedId: 3 });
    s = run(s, { type: 'detail', detail: { ...tasks[0], steps: [] } as never });
    expect(selectedTask(s)?.id).toBe(3);
    // Movement keys do nothing in the detail pane.
    expect(run(s, k('j')).selectedId).toBe(3);
    s = run(
      s,
      { type: 'output', taskId: 3, lines: ['a', 'b'] },
      { type: 'output', taskId: 9, lines: ['x'] },
    );
    expect(s.output).toEqual(['a', 'b']);
    s = run(s, k('', { escape: true }));
    expect(s).toMatchObject({ view: 'board', detail: null, output: [] });
  });

  it('shows help over the current view and returns to it on any key', () => {
    let s = run(ready(), k('', { return: true }), k('?'));
    expect(s).toMatchObject({ view: 'help', under: 'detail' });
    s = run(s, k('z'));
    expect(s.view).toBe('detail');
  });

  it('opens the new-task form, asking for the project’s workflows', () => {
    let s = run(ready(), k('n'));
    expect(s.effects).toMatchObject([{ kind: 'new_task' }]);
    s = run(s, {
      type: 'form_open',
      projects: [{ id: 1, name: 'app', path: '/app', default_branch: 'main' }],
    });
    expect(s.view).toBe('form');
    expect(s.effects.at(-1)).toMatchObject({ kind: 'form_workflows', projectId: 1 });
    s = run(s, {
      type: 'form_workflows',
      projectId: 1,
      rows: [{ name: 'adhoc', scope: 'builtin', status: 'ok' }],
    });
    expect(s.form?.values.workflow).toBe('adhoc');
    expect(s.effects.at(-1)).toMatchObject({
      kind: 'form_definition',
      projectId: 1,
      workflow: 'adhoc',
    });
    s = run(s, { type: 'form_decls', projectId: 1, workflow: 'adhoc', decls: [] });
    expect(s.effects.at(-1)).toMatchObject({
      kind: 'form_preview',
      body: { project_id: 1, workflow: 'adhoc' },
    });
    // Typing a title asks for a fresh preview; submitting with errors asks for nothing.
    s = run(s, k('', { downArrow: true }), k('', { downArrow: true }), k('Hi'));
    expect(s.effects.at(-1)).toMatchObject({ kind: 'form_preview', body: { title: 'Hi' } });
    const n = s.effects.length;
    s = run(s, k('s', { ctrl: true }));
    expect(s.effects.at(-1)).toMatchObject({ kind: 'form_submit', body: { title: 'Hi' } });
    expect(s.effects.length).toBe(n + 1);
    s = run(s, { type: 'form_error', message: 'title is over 1 KiB', field: 'title' });
    expect(s.form?.errors.title).toBe('title is over 1 KiB');
    s = run(s, k('', { escape: true }));
    expect(s.view).toBe('board');
  });
});

describe('splitChunk', () => {
  it('splits a burst into the keys it holds', () => {
    expect(splitChunk({ input: 'ab\rc', key: {} }, true)).toEqual([
      { input: 'ab', key: {} },
      { input: '', key: { return: true } },
      { input: 'c', key: {} },
    ]);
    expect(splitChunk({ input: 'ax', key: {} }, false)).toEqual([
      { input: 'a', key: {} },
      { input: 'x', key: {} },
    ]);
    expect(splitChunk({ input: '\u0013\u007f', key: {} }, true)).toEqual([
      { input: 's', key: { ctrl: true } },
      { input: '', key: { delete: true } },
    ]);
    const one = { input: 'abc', key: {} };
    expect(splitChunk(one, true)[0]).toBe(one);
  });
});
