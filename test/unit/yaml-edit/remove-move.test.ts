import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { edit, lines, refuse } from './support/edit.js';

const steps = lines(
  'steps:',
  '  # A',
  '  - id: a',
  '    run: x',
  '',
  '  # B',
  '  - id: b',
  '    env:',
  '      K: v # inner',
  '    # note inside b',
  '  - id: c',
  'name: w # the name',
);

describe('remove', () => {
  it('removes a key with its nested block, keeping the comments around it', () => {
    // `# note inside b` is at the key's own column: it belongs to the item, not to `env`.
    expect(edit(steps, { op: 'remove', path: 'steps[1].env' })).toBe(
      steps.replace('    env:\n      K: v # inner\n', ''),
    );
  });

  it('removes a key with its own trailing comment', () => {
    expect(edit(steps, { op: 'remove', path: 'name' })).toBe(
      steps.replace('name: w # the name\n', ''),
    );
  });

  it('removes a sequence item with the comments indented inside it', () => {
    expect(edit(steps, { op: 'remove', path: 'steps[1]' })).toBe(
      lines(
        'steps:',
        '  # A',
        '  - id: a',
        '    run: x',
        '',
        '  # B',
        '  - id: c',
        'name: w # the name',
      ),
    );
  });

  it('removes the first key of an item written on the dash line', () => {
    expect(edit(steps, { op: 'remove', path: 'steps[0].id' })).toBe(
      steps.replace('  - id: a\n    run: x\n', '  - run: x\n'),
    );
    const commented = lines('- id: a', '  # about run', '  run: x');
    expect(edit(commented, { op: 'remove', path: '[0].id' })).toBe(
      lines('-', '  # about run', '  run: x'),
    );
  });

  it('leaves {} or [] when the last entry goes, so the value keeps its type', () => {
    const text = edit(steps, { op: 'remove', path: 'steps[2].id' });
    expect(text).toBe(steps.replace('  - id: c\n', '  - {}\n'));
    expect(parse(text).steps[2]).toEqual({});
    const env = edit(steps, { op: 'remove', path: 'steps[1].env.K' });
    expect(env).toBe(steps.replace('    env:\n      K: v # inner\n', '    env: {}\n'));
    const list = edit(lines('platforms:', '  - linux # only', 'name: x'), {
      op: 'remove',
      path: 'platforms[0]',
    });
    expect(list).toBe(lines('platforms: []', 'name: x'));
    expect(edit(lines('# top', 'only: 1 # c'), { op: 'remove', path: 'only' })).toBe(
      lines('# top', '{} # c'),
    );
  });

  it('re-renders a flow collection it removes from', () => {
    expect(edit(lines('env: {A: 1, B: "two"} # flow'), { op: 'remove', path: 'env.A' })).toBe(
      lines('env: {B: two} # flow'),
    );
  });

  it('refuses what is not there', () => {
    expect(refuse(steps, { op: 'remove', path: 'steps[3]' })).toMatchObject([
      { code: 'index_out_of_range' },
    ]);
    expect(refuse(steps, { op: 'remove', path: 'nope' })).toMatchObject([
      { code: 'path_not_found' },
    ]);
    expect(refuse(steps, { op: 'remove', path: 'nope.deeper' })).toMatchObject([
      { code: 'path_not_found' },
    ]);
    expect(refuse(steps, { op: 'remove', path: '' })).toMatchObject([
      { code: 'root_not_editable' },
    ]);
  });
});

describe('move', () => {
  it('moves an item up, taking the comments written above it', () => {
    expect(edit(steps, { op: 'move', path: 'steps[1]', to: 0 })).toBe(
      lines(
        'steps:',
        '  # B',
        '  - id: b',
        '    env:',
        '      K: v # inner',
        '    # note inside b',
        '  # A',
        '  - id: a',
        '    run: x',
        '',
        '  - id: c',
        'name: w # the name',
      ),
    );
  });

  it('moves an item down, leaving blank lines between other items in place', () => {
    expect(edit(steps, { op: 'move', path: 'steps[0]', to: 2 })).toBe(
      lines(
        'steps:',
        '',
        '  # B',
        '  - id: b',
        '    env:',
        '      K: v # inner',
        '    # note inside b',
        '  - id: c',
        '  # A',
        '  - id: a',
        '    run: x',
        'name: w # the name',
      ),
    );
  });

  it('does nothing when the item is already there', () => {
    expect(edit(steps, { op: 'move', path: 'steps[1]', to: 1 })).toBe(steps);
  });

  it('moves within a flow sequence and within items nested on a dash line', () => {
    expect(
      edit(lines('platforms: [linux, darwin, windows]'), {
        op: 'move',
        path: 'platforms[2]',
        to: 0,
      }),
    ).toBe(lines('platforms: [windows, linux, darwin]'));
    expect(edit(lines('- - a', '  - b'), { op: 'move', path: '[0][1]', to: 0 })).toBe(
      lines('- - b', '  - a'),
    );
  });

  it('refuses targets out of range', () => {
    expect(refuse(steps, { op: 'move', path: 'steps[0]', to: 3 })).toMatchObject([
      { code: 'index_out_of_range' },
    ]);
    expect(refuse(steps, { op: 'move', path: 'steps[5]', to: 0 })).toMatchObject([
      { code: 'index_out_of_range' },
    ]);
    expect(refuse(steps, { op: 'move', path: 'name', to: 0 })).toMatchObject([
      { code: 'bad_path' },
    ]);
    expect(refuse(steps, { op: 'move', path: 'steps[0].id', to: 0 })).toMatchObject([
      { code: 'bad_path' },
    ]);
  });
});
