// Issue 12 point 1: a new-task form built from the workflow's fields[] declarations (SPEC §2.8),
// checked by the rules the daemon applies, whose body also feeds /v1/resolve.
import { describe, expect, it } from 'vitest';
import {
  type FormState,
  fieldProblem,
  formKey,
  formRows,
  initialForm,
  previewLines,
  taskBody,
  usableWorkflows,
  validate,
  withDecls,
  withWorkflows,
} from '../../../cli/tui/form.js';
import type { Keystroke } from '../../../cli/tui/keys.js';
import type { FieldDecl, WorkflowRow } from '../../../shared/wire-types.js';

const projects = [
  { id: 1, name: 'api', path: '/src/api', default_branch: 'main', default_workflow: 'review' },
  { id: 2, name: 'web', path: '/src/web', default_branch: 'main' },
];
const workflows: WorkflowRow[] = [
  { name: 'adhoc', scope: 'builtin', status: 'ok' },
  { name: 'broken', scope: 'project', status: 'invalid' },
  { name: 'mac-only', scope: 'project', status: 'unsupported', platform_supported: false },
  { name: 'review', scope: 'project', status: 'ok' },
];
const decls: FieldDecl[] = [
  { name: 'ticket', required: true, pattern: '^[A-Z]+-\\d+$', description: 'the issue key' },
  { name: 'size', type: 'enum', values: ['s', 'm', 'l'], default: 'm' },
  { name: 'areas', type: 'enum', values: ['ui', 'db', 'api'], multiple: true },
  { name: 'urgent', type: 'boolean' },
  { name: 'count', type: 'integer', label: 'How many' },
  { name: 'ratio', type: 'number' },
];

const key = (input: string, k: Keystroke['key'] = {}): Keystroke => ({ input, key: k });
function keys(f: FormState, ...ks: Keystroke[]): FormState {
  let s = f;
  for (const k of ks) {
    const ev = formKey(s, k);
    if (ev.kind === 'state') s = ev.state;
  }
  return s;
}

const ready = () => withDecls(withWorkflows(initialForm(projects, 1), workflows), decls);

describe('the form', () => {
  it('offers usable workflows only and starts on the project default', () => {
    expect(usableWorkflows(workflows).map((w) => w.name)).toEqual(['adhoc', 'review']);
    expect(withWorkflows(initialForm(projects, 1), workflows).values.workflow).toBe('review');
    expect(withWorkflows(initialForm(projects, 2), workflows).values.workflow).toBe('adhoc');
  });

  it('has a row per declaration, with a control for its type, after the task basics', () => {
    const rows = formRows(ready());
    expect(rows.map((r) => [r.key, r.control, r.required])).toEqual([
      ['project', 'select', true],
      ['workflow', 'select', true],
      ['title', 'text', true],
      ['description', 'text', false],
      ['field:ticket', 'text', true],
      ['field:size', 'select', false],
      ['field:areas', 'multi', false],
      ['field:urgent', 'toggle', false],
      ['field:count', 'text', false],
      ['field:ratio', 'text', false],
      ['branch_name', 'text', false],
      ['agent', 'text', false],
      ['model', 'text', false],
      ['effort', 'text', false],
    ]);
    expect(rows.find((r) => r.key === 'field:count')?.label).toBe('How many');
    expect(rows.find((r) => r.key === 'field:size')?.options).toEqual(['', 's', 'm', 'l']);
    expect(rows.find((r) => r.key === 'field:ticket')?.help).toBe(
      'the issue key · pattern ^[A-Z]+-\\d+$',
    );
  });

  it('starts fields at their declared defaults and keeps typed values across a workflow change', () => {
    const f = ready();
    expect(f.values['field:size']).toBe('m');
    const typed = { ...f, values: { ...f.values, 'field:ticket': 'AB-1' } };
    const again = withDecls(typed, [decls[0] as FieldDecl]);
    expect(again.values['field:ticket']).toBe('AB-1');
    expect(again.values['field:size']).toBeUndefined();
  });

  it('edits rows by key: text in place, selects and toggles cycle, multi ticks in declared order', () => {
    let f = keys(
      ready(),
      key('', { downArrow: true }),
      key('', { downArrow: true }),
      key('Fix login'),
    );
    expect(f.values.title).toBe('Fix login');
    f = keys(f, key('', { upArrow: true }), key('', { rightArrow: true }));
    expect(f.values.workflow).toBe('adhoc');
    f = keys(
      f,
      key('', { tab: true }),
      key('', { tab: true }),
      key('', { tab: true }),
      key('', { tab: true }),
    );
    expect(formRows(f)[f.focus]?.key).toBe('field:size');
    f = keys(f, key('', { rightArrow: true }));
    expect(f.values['field:size']).toBe('l');
    f = keys(
      f,
      key('', { downArrow: true }),
      key('', { rightArrow: true }),
      key('', { rightArrow: true }),
      key(' '),
    );
    f = keys(f, key('', { leftArrow: true }), key('', { leftArrow: true }), key(' '));
    expect(f.values['field:areas']).toBe('ui,api');
    f = keys(f, key('', { downArrow: true }), key(' '));
    expect(f.values['field:urgent']).toBe('true');
    expect(formKey(f, key('s', { ctrl: true }))).toEqual({ kind: 'submit' });
    expect(formKey(f, key('', { escape: true }))).toEqual({ kind: 'cancel' });
  });

  it('reports which row changed, so the board reloads what depends on it', () => {
    const f = ready();
    const ev = formKey(f, key('', { rightArrow: true }));
    expect(ev).toMatchObject({ kind: 'state', changed: 'project' });
    expect(formKey(f, key('', { downArrow: true }))).not.toHaveProperty('changed');
  });

  it('submits from the last row on enter', () => {
    let f = ready();
    const last = formRows(f).length - 1;
    for (let i = 0; i < last; i++) f = keys(f, key('', { return: true }));
    expect(f.focus).toBe(last);
    expect(formKey(f, key('', { return: true }))).toEqual({ kind: 'submit' });
  });
});

describe('field rules (SPEC §2.8)', () => {
  it.each([
    [{ name: 'n', required: true }, ' ', 'n is required'],
    [{ name: 'n' }, '', null],
    [{ name: 'n', type: 'integer' }, '12', null],
    [{ name: 'n', type: 'integer' }, '1.5', 'n must be a whole number'],
    [{ name: 'n', type: 'number' }, '-1.5e3', null],
    [{ name: 'n', type: 'number' }, 'NaN', 'n must be a number'],
    [{ name: 'n', type: 'boolean' }, 'yes', 'n must be true or false'],
    [{ name: 'n', type: 'enum', values: ['a', 'b'] }, 'c', 'n: c is not one of a, b'],
    [{ name: 'n', type: 'enum', values: ['a', 'b'], multiple: true }, 'b, a', null],
    [{ name: 'n', pattern: '^x' }, 'yz', 'n must match ^x'],
    [{ name: 'n', pattern: '(' }, 'anything', null],
  ] as Array<[FieldDecl, string, string | null]>)('%j with %j', (d, v, want) =>
    expect(fieldProblem(d, v)).toBe(want),
  );

  it('validates the whole form', () => {
    const f = ready();
    expect(validate(f)).toEqual({
      title: 'Title is required',
      'field:ticket': 'ticket is required',
    });
  });
});

describe('the body', () => {
  it('is the POST /v1/tasks body: trimmed, empties left out, fields by name', () => {
    const f = ready();
    const filled = {
      ...f,
      values: {
        ...f.values,
        title: ' Fix login ',
        'field:ticket': 'AB-1',
        'field:count': '',
        agent: 'claude',
      },
    };
    expect(taskBody(filled)).toEqual({
      project_id: 1,
      workflow: 'review',
      title: 'Fix login',
      agent: 'claude',
      fields: { ticket: 'AB-1', size: 'm' },
    });
  });

  it('previews the resolve answer: the branch and each agent step with sources', () => {
    expect(previewLines(null)).toEqual([]);
    expect(previewLines('unavailable')).toEqual([
      'preview unavailable: this daemon has no POST /v1/resolve',
    ]);
    expect(previewLines(null, 'agent nope is not registered')).toEqual([
      'preview: agent nope is not registered',
    ]);
    expect(
      previewLines({
        steps: [
          {
            index: 0,
            id: 'plan',
            agent: { value: 'claude', source: 'task' },
            model: { value: '', source: 'adapter' },
            effort: { value: 'high', source: 'workflow' },
          },
          { index: 1, id: 'test', agent: null, model: null, effort: null },
        ],
        branch: { value: 'svc/<id>-fix-login', source: 'default', placeholder: true },
      }),
    ).toEqual([
      'branch svc/<id>-fix-login (default)',
      'step plan: claude (task) · model: CLI default (adapter) · high (workflow)',
    ]);
  });
});
