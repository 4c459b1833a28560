import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { edit, lines, refuse } from './support/edit.js';

const steps = lines(
  'steps:',
  '  # Planning comes first.',
  '  - id: plan',
  '    prompt: Plan.',
  '',
  '  # Then the build.',
  '  - id: build',
  '    run: make',
  'name: x',
);

const lint = [
  { key: 'id', value: 'lint' },
  { key: 'type', value: 'command' },
  { key: 'run', value: 'npm run lint' },
];

describe('insert', () => {
  it('puts the item before the comments that describe the item now at that index', () => {
    expect(edit(steps, { op: 'insert', path: 'steps[1]', item: lint })).toBe(
      lines(
        'steps:',
        '  # Planning comes first.',
        '  - id: plan',
        '    prompt: Plan.',
        '',
        '  - id: lint',
        '    type: command',
        '    run: npm run lint',
        '  # Then the build.',
        '  - id: build',
        '    run: make',
        'name: x',
      ),
    );
  });

  it('inserts at index 0 right below the key', () => {
    expect(edit(steps, { op: 'insert', path: 'steps[0]', item: lint })).toBe(
      steps.replace('steps:\n', 'steps:\n  - id: lint\n    type: command\n    run: npm run lint\n'),
    );
  });

  it('appends at index length after the last item', () => {
    expect(edit(steps, { op: 'insert', path: 'steps[2]', item: lint })).toBe(
      steps.replace(
        '    run: make\n',
        '    run: make\n  - id: lint\n    type: command\n    run: npm run lint\n',
      ),
    );
  });

  it('follows a sequence written flush with its key', () => {
    const source = lines('steps:', '- id: a', '  run: x', 'name: y');
    expect(edit(source, { op: 'insert', path: 'steps[1]', item: lint })).toBe(
      lines(
        'steps:',
        '- id: a',
        '  run: x',
        '- id: lint',
        '  type: command',
        '  run: npm run lint',
        'name: y',
      ),
    );
  });

  it("follows a wider gap after the dash and the file's indentation step", () => {
    const source = lines('steps:', '    -   id: a', '        run: x');
    expect(
      edit(source, {
        op: 'insert',
        path: 'steps[1]',
        item: [
          { key: 'id', value: 'b' },
          { key: 'env', value: { A: '1' } },
        ],
      }),
    ).toBe(
      lines(
        'steps:',
        '    -   id: a',
        '        run: x',
        '    -   id: b',
        '        env:',
        '            A: "1"',
      ),
    );
  });

  it('renders multi-line text in an item as a literal block', () => {
    const text = edit(steps, {
      op: 'insert',
      path: 'steps[2]',
      item: [
        { key: 'id', value: 'review' },
        { key: 'prompt', value: 'Review the diff.\nReply APPROVE or list problems.\n' },
        { key: 'check', value: 'one\ntwo' },
      ],
    });
    expect(text).toBe(
      steps.replace(
        '    run: make\n',
        '    run: make\n  - id: review\n    prompt: |\n      Review the diff.\n      Reply APPROVE or list problems.\n    check: |-\n      one\n      two\n',
      ),
    );
    expect(parse(text).steps[2].prompt).toBe('Review the diff.\nReply APPROVE or list problems.\n');
  });

  it('renders nested steps, lanes and an empty item', () => {
    const text = edit(lines('steps: []'), {
      op: 'insert',
      path: 'steps[0]',
      item: [
        { key: 'id', value: 'split' },
        { key: 'type', value: 'fan_out' },
        {
          key: 'lanes',
          value: [
            { id: 'api', steps: [{ id: 'a', run: 'x' }] },
            { id: 'web', workflow: 'w' },
          ],
        },
        { key: 'merge', value: { on_conflict: 'block' } },
      ],
    });
    expect(text).toBe(
      lines(
        'steps:',
        '  - id: split',
        '    type: fan_out',
        '    lanes:',
        '      - id: api',
        '        steps:',
        '          - id: a',
        '            run: x',
        '      - id: web',
        '        workflow: w',
        '    merge:',
        '      on_conflict: block',
      ),
    );
    expect(edit(lines('steps: []'), { op: 'insert', path: 'steps[0]', item: [] })).toBe(
      lines('steps:', '  - {}'),
    );
  });

  it('creates a missing sequence', () => {
    expect(
      edit(lines('name: x'), {
        op: 'insert',
        path: 'fields[0]',
        item: [{ key: 'name', value: 'ticket' }],
      }),
    ).toBe(lines('name: x', 'fields:', '  - name: ticket'));
    expect(
      edit(lines('fields:', 'name: x'), {
        op: 'insert',
        path: 'fields[0]',
        item: [{ key: 'name', value: 't' }],
      }),
    ).toBe(lines('fields:', '  - name: t', 'name: x'));
  });

  it('re-renders a flow sequence it inserts into', () => {
    expect(
      edit(lines('lanes: [{id: a}, {id: b}] # two lanes'), {
        op: 'insert',
        path: 'lanes[1]',
        item: [{ key: 'id', value: 'c d' }],
      }),
    ).toBe(lines('lanes: [{id: a}, {id: c d}, {id: b}] # two lanes'));
  });

  it('inserts at the front of a sequence nested on a dash line', () => {
    const source = lines('matrix:', '  - - a', '    - b', '  - - c');
    const text = edit(source, {
      op: 'insert',
      path: 'matrix[0][0]',
      item: [{ key: 'k', value: 1 }],
    });
    expect(text).toBe(lines('matrix:', '  - - k: 1', '    - a', '    - b', '  - - c'));
  });

  it('refuses bad indices and non-sequences', () => {
    expect(refuse(steps, { op: 'insert', path: 'steps[3]', item: lint })).toMatchObject([
      { code: 'index_out_of_range' },
    ]);
    expect(refuse(steps, { op: 'insert', path: 'steps', item: lint })).toMatchObject([
      { code: 'bad_path' },
    ]);
    expect(refuse(steps, { op: 'insert', path: 'name[0]', item: lint })).toMatchObject([
      { code: 'not_a_sequence' },
    ]);
    expect(refuse(steps, { op: 'insert', path: 'missing[1]', item: lint })).toMatchObject([
      { code: 'index_out_of_range' },
    ]);
    expect(
      refuse(steps, {
        op: 'insert',
        path: 'steps[0]',
        item: [
          { key: 'a', value: 1 },
          { key: 'a', value: 2 },
        ],
      }),
    ).toMatchObject([{ code: 'invalid_op', op_index: 0 }]);
  });
});
