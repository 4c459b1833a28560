import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { edit, lines, refuse } from './support/edit.js';

const workflow = lines(
  '# Deploy workflow',
  'name: deploy',
  '',
  'defaults:',
  '  agent: claude # default agent',
  '  model: opus',
  '  # effort: high',
  '',
  'steps:',
  '  - id: plan',
  '    prompt: |',
  '      Plan it.',
  '  - id: ship',
  '    run: make ship',
);

describe('set on an existing key', () => {
  it('replaces only the value and keeps the comment after it', () => {
    expect(edit(workflow, { op: 'set', path: 'defaults.agent', value: 'codex' })).toBe(
      workflow.replace('agent: claude # default agent', 'agent: codex # default agent'),
    );
  });

  it('writes an empty string as "" (an empty value is not an absent key)', () => {
    const text = edit(workflow, { op: 'set', path: 'defaults.model', value: '' });
    expect(text).toBe(workflow.replace('  model: opus', '  model: ""'));
    expect(parse(text).defaults).toEqual({ agent: 'claude', model: '' });
  });

  it('replaces a block scalar with a plain value and back', () => {
    const plain = edit(workflow, { op: 'set', path: 'steps[0].prompt', value: 'Plan it again.' });
    expect(plain).toBe(
      workflow.replace('    prompt: |\n      Plan it.\n', '    prompt: Plan it again.\n'),
    );
    const block = edit(plain, {
      op: 'set',
      path: 'steps[0].prompt',
      value: 'Plan it.\n',
      block: true,
    });
    expect(block).toBe(workflow);
  });

  it('renders an object as a block mapping at the right indentation', () => {
    const text = edit(workflow, {
      op: 'set',
      path: 'steps[1].env',
      value: { CI: '1', LIST: ['a', 'b'], NESTED: { deep: true }, EMPTY: {} },
    });
    expect(text).toBe(
      workflow +
        lines(
          '    env:',
          '      CI: "1"',
          '      LIST:',
          '        - a',
          '        - b',
          '      NESTED:',
          '        deep: true',
          '      EMPTY: {}',
        ),
    );
  });

  it('renders a list of mappings as compact items', () => {
    const text = edit(lines('name: x', 'fields: []'), {
      op: 'set',
      path: 'fields',
      value: [
        { name: 'ticket', required: true },
        { name: 'risk', type: 'enum', values: ['low', 'high'] },
      ],
    });
    expect(text).toBe(
      lines(
        'name: x',
        'fields:',
        '  - name: ticket',
        '    required: true',
        '  - name: risk',
        '    type: enum',
        '    values:',
        '      - low',
        '      - high',
      ),
    );
  });

  it('replaces a whole block value with a scalar, dropping what was inside it', () => {
    const text = edit(workflow, { op: 'set', path: 'defaults', value: 'none' });
    expect(text).toBe(
      lines(
        '# Deploy workflow',
        'name: deploy',
        '',
        'defaults: none',
        '',
        'steps:',
        '  - id: plan',
        '    prompt: |',
        '      Plan it.',
        '  - id: ship',
        '    run: make ship',
      ),
    );
  });

  it('keeps a comment written after the key of a block value', () => {
    const source = lines('env: # for the build', '  A: 1', 'z: 0');
    expect(edit(source, { op: 'set', path: 'env', value: 'x' })).toBe(
      lines('env: x # for the build', 'z: 0'),
    );
    expect(edit(source, { op: 'set', path: 'env', value: { B: 2 } })).toBe(
      lines('env: # for the build', '  B: 2', 'z: 0'),
    );
  });

  it('replaces a sequence item in place', () => {
    const text = edit(workflow, {
      op: 'set',
      path: 'steps[1]',
      value: { id: 'deploy', run: 'make deploy' },
    });
    expect(text).toBe(
      workflow.replace(
        '  - id: ship\n    run: make ship\n',
        '  - id: deploy\n    run: make deploy\n',
      ),
    );
  });

  it('replaces a multi-line plain scalar', () => {
    const source = lines('description: first line', '  second line', '  third line', 'name: x');
    expect(edit(source, { op: 'set', path: 'description', value: 'short' })).toBe(
      lines('description: short', 'name: x'),
    );
  });

  it('leaves the file untouched when the value is already there', () => {
    expect(edit(workflow, { op: 'set', path: 'defaults.model', value: 'opus' })).toBe(workflow);
  });
});

describe('set on a missing key', () => {
  it('adds the key at the end of its mapping with the siblings indentation', () => {
    expect(edit(workflow, { op: 'set', path: 'defaults.effort', value: 'high' })).toBe(
      workflow.replace('  model: opus\n', '  model: opus\n  effort: high\n'),
    );
  });

  it('adds a top-level key after the last one', () => {
    expect(edit(workflow, { op: 'set', path: 'description', value: 'Ships it.' })).toBe(
      `${workflow}description: Ships it.\n`,
    );
  });

  it('adds a key to a mapping that starts on a dash line', () => {
    expect(edit(workflow, { op: 'set', path: 'steps[0].timeout', value: '45m' })).toBe(
      workflow.replace('      Plan it.\n', '      Plan it.\n    timeout: 45m\n'),
    );
  });

  it('creates missing intermediate mappings', () => {
    const text = edit(workflow, { op: 'set', path: 'defaults.container.image', value: 'node:20' });
    expect(text).toBe(
      workflow.replace('  model: opus\n', '  model: opus\n  container:\n    image: node:20\n'),
    );
  });

  it('creates a mapping under a key that holds nothing', () => {
    const source = lines('env:', 'name: x');
    expect(edit(source, { op: 'set', path: 'env.A', value: 1 })).toBe(
      lines('env:', '  A: 1', 'name: x'),
    );
    expect(edit(lines('env: ~ # later'), { op: 'set', path: 'env.A', value: 1 })).toBe(
      lines('env: # later', '  A: 1'),
    );
  });

  it('writes a block scalar for a new key', () => {
    const text = edit(workflow, {
      op: 'set',
      path: 'steps[1].check',
      value: 'make test\nmake lint\n',
      block: true,
    });
    expect(text).toBe(`${workflow}    check: |\n      make test\n      make lint\n`);
  });
});

describe('set on sequence indices', () => {
  it('appends when the index equals the length', () => {
    const text = edit(workflow, {
      op: 'set',
      path: 'steps[2]',
      value: { id: 'notify', run: 'echo done' },
    });
    expect(text).toBe(`${workflow}  - id: notify\n    run: echo done\n`);
  });

  it('creates a sequence at index 0 of a missing key', () => {
    expect(edit(lines('name: x'), { op: 'set', path: 'platforms[0]', value: 'linux' })).toBe(
      lines('name: x', 'platforms:', '  - linux'),
    );
  });

  it('refuses an index past the end', () => {
    expect(refuse(workflow, { op: 'set', path: 'steps[3]', value: 1 })).toMatchObject([
      { op_index: 0, path: 'steps[3]', code: 'index_out_of_range' },
    ]);
  });
});

describe('set refusals', () => {
  it('does not set the root', () => {
    expect(refuse(workflow, { op: 'set', path: '', value: {} })).toMatchObject([
      { code: 'root_not_editable' },
    ]);
  });

  it('does not descend into a scalar', () => {
    expect(refuse(workflow, { op: 'set', path: 'name.first', value: 1 })).toMatchObject([
      { code: 'not_a_mapping', path: 'name.first' },
    ]);
    expect(refuse(workflow, { op: 'set', path: 'defaults[0]', value: 1 })).toMatchObject([
      { code: 'not_a_sequence' },
    ]);
  });

  it('reports a malformed path', () => {
    expect(refuse(workflow, { op: 'set', path: 'steps[x]', value: 1 })).toMatchObject([
      { code: 'bad_path' },
    ]);
  });
});
