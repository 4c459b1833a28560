import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { applyEdits, MAX_EDIT_OPS } from '../../../lib/yaml-edit/index.js';
import { edit, lines, refuse } from './support/edit.js';

const crlf = (...content: string[]) => content.join('\r\n') + '\r\n';

describe('line endings, BOM and document markers', () => {
  it('writes new lines with CRLF in a CRLF file and keeps the rest byte for byte', () => {
    const source = crlf('# c', 'steps:', '  - id: a', '    run: x', 'name: n');
    const text = edit(
      source,
      { op: 'set', path: 'steps[0].prompt', value: 'one\ntwo\n', block: true },
      { op: 'insert', path: 'steps[1]', item: [{ key: 'id', value: 'b' }] },
      { op: 'set', path: 'name', value: 'm' },
    );
    expect(text).toBe(
      crlf(
        '# c',
        'steps:',
        '  - id: a',
        '    run: x',
        '    prompt: |',
        '      one',
        '      two',
        '  - id: b',
        'name: m',
      ),
    );
    expect(parse(text).steps[0].prompt).toBe('one\ntwo\n');
  });

  it('keeps a byte order mark in front', () => {
    const source = `\uFEFF${lines('name: a', 'x: 1')}`;
    expect(edit(source, { op: 'set', path: 'name', value: 'b' })).toBe(
      `\uFEFF${lines('name: b', 'x: 1')}`,
    );
    expect(edit(source, { op: 'remove', path: 'name' })).toBe(`\uFEFF${lines('x: 1')}`);
  });

  it('edits a document that starts with --- and ends with ...', () => {
    const source = lines('%YAML 1.2', '---', '# c', 'name: a', '...');
    expect(edit(source, { op: 'set', path: 'name', value: 'b' })).toBe(
      lines('%YAML 1.2', '---', '# c', 'name: b', '...'),
    );
    expect(edit(source, { op: 'set', path: 'x', value: 1 })).toBe(
      lines('%YAML 1.2', '---', '# c', 'name: a', 'x: 1', '...'),
    );
  });

  it('keeps a file without a final line break without one', () => {
    const source = 'name: a\nsteps:\n  - id: s';
    expect(edit(source, { op: 'set', path: 'name', value: 'b' })).toBe(
      'name: b\nsteps:\n  - id: s',
    );
    expect(edit(source, { op: 'set', path: 'x', value: 1 })).toBe(
      'name: a\nsteps:\n  - id: s\nx: 1',
    );
    expect(edit(source, { op: 'remove', path: 'steps' })).toBe('name: a');
    expect(edit(source, { op: 'move', path: 'steps[0]', to: 0 })).toBe(source);
  });

  it('ends the file with a line break when a block scalar ending there needs it', () => {
    const source = 'name: a\nrun: x';
    expect(edit(source, { op: 'set', path: 'run', value: 'make\n', block: true })).toBe(
      'name: a\nrun: |\n  make\n',
    );
    expect(edit(source, { op: 'set', path: 'run', value: 'make', block: true })).toBe(
      'name: a\nrun: |-\n  make',
    );
  });

  it('starts an empty or comment-only document', () => {
    expect(edit('', { op: 'set', path: 'name', value: 'a' })).toBe('name: a\n');
    expect(edit('# only a comment\n', { op: 'set', path: 'steps[0].id', value: 'a' })).toBe(
      lines('# only a comment', 'steps:', '  - id: a'),
    );
    expect(edit('{}\n', { op: 'set', path: 'a.b', value: 1 })).toBe(lines('a:', '  b: 1'));
  });
});

describe('anchors and aliases', () => {
  const source = lines(
    'base: &base',
    '  agent: claude',
    'one:',
    '  <<: *base',
    'two: *base',
    'free: &free 1',
    'name: x',
  );

  it('edits around them', () => {
    expect(edit(source, { op: 'set', path: 'name', value: 'renamed' })).toBe(
      source.replace('name: x', 'name: renamed'),
    );
    expect(edit(source, { op: 'set', path: 'two', value: 'plain' })).toBe(
      source.replace('two: *base', 'two: plain'),
    );
    expect(edit(source, { op: 'set', path: 'free', value: 2 })).toBe(
      source.replace('free: &free 1', 'free: 2'),
    );
  });

  it('refuses to edit inside an anchored node an alias copies', () => {
    expect(refuse(source, { op: 'set', path: 'base.agent', value: 'codex' })).toMatchObject([
      { code: 'aliased_node' },
    ]);
    expect(refuse(source, { op: 'set', path: 'two.agent', value: 'codex' })).toMatchObject([
      { code: 'aliased_node' },
    ]);
  });

  it('moves items past anchors only when the aliases still follow them', () => {
    const list = lines('- &x a', '- *x', '- c');
    expect(edit(list, { op: 'move', path: '[2]', to: 0 })).toBe(lines('- c', '- &x a', '- *x'));
    expect(refuse(list, { op: 'move', path: '[1]', to: 0 })).toMatchObject([
      { code: 'anchor_in_use' },
    ]);
    expect(refuse(list, { op: 'move', path: '[0]', to: 2 })).toMatchObject([
      { code: 'anchor_in_use' },
    ]);
  });

  it('refuses to drop an anchor that is still referred to', () => {
    expect(refuse(source, { op: 'remove', path: 'base' })).toMatchObject([
      { code: 'anchor_in_use' },
    ]);
    expect(refuse(source, { op: 'set', path: 'base', value: 1 })).toMatchObject([
      { code: 'anchor_in_use' },
    ]);
  });
});

describe('the op list', () => {
  const source = lines('name: a', 'steps:', '  - id: s');

  it('applies ops in order, each to the result of the one before', () => {
    const text = edit(
      source,
      { op: 'insert', path: 'steps[0]', item: [{ key: 'id', value: 'first' }] },
      { op: 'set', path: 'steps[1].run', value: 'x' },
      { op: 'move', path: 'steps[1]', to: 0 },
      { op: 'remove', path: 'steps[1]' },
    );
    expect(text).toBe(lines('name: a', 'steps:', '  - id: s', '    run: x'));
  });

  it('returns findings and no text when any op fails', () => {
    const result = applyEdits(source, [
      { op: 'set', path: 'name', value: 'b' },
      { op: 'remove', path: 'steps[4]' },
    ]);
    expect(result).toEqual({
      ok: false,
      findings: [
        {
          op_index: 1,
          path: 'steps[4]',
          code: 'index_out_of_range',
          message: 'index 4 in steps[4] is out of range (at most 0)',
        },
      ],
    });
  });

  it('validates op shapes and the 512-op bound', () => {
    expect(refuse(source, { op: 'rename', path: 'x' } as never)).toMatchObject([
      { op_index: 0, code: 'invalid_op' },
    ]);
    expect(refuse(source, { op: 'set', path: 'x' } as never)).toMatchObject([
      { op_index: 0, code: 'invalid_op' },
    ]);
    expect(refuse(source, { op: 'move', path: 'steps[0]', to: -1 })).toMatchObject([
      { code: 'invalid_op' },
    ]);
    const many = Array.from({ length: MAX_EDIT_OPS + 1 }, () => ({
      op: 'set' as const,
      path: 'name',
      value: 'b',
    }));
    expect(refuse(source, ...many)).toMatchObject([{ op_index: -1, code: 'too_many_ops' }]);
    expect(edit(source, ...many.slice(1))).toBe(source.replace('name: a', 'name: b'));
  });

  it('refuses a source that does not parse or holds several documents', () => {
    expect(refuse('a: [\n', { op: 'set', path: 'a', value: 1 })).toMatchObject([
      { op_index: -1, code: 'source_unparseable' },
    ]);
    expect(refuse('a: 1\n---\nb: 2\n', { op: 'set', path: 'a', value: 2 })).toMatchObject([
      { code: 'source_unparseable' },
    ]);
    expect(refuse('a: 1\na: 2\n', { op: 'set', path: 'a', value: 2 })).toMatchObject([
      { code: 'source_unparseable' },
    ]);
  });

  it('refuses values YAML cannot hold and files that are not plain data', () => {
    const long = 'k'.repeat(1100);
    expect(refuse(source, { op: 'set', path: `["${long}"]`, value: 1 })).toMatchObject([
      { code: 'unrepresentable_value' },
    ]);
    expect(
      refuse(lines('%YAML 1.1', '---', 'when: 2001-12-14'), { op: 'set', path: 'x', value: 1 }),
    ).toMatchObject([
      {
        code: 'source_unparseable',
        message: 'the file does not parse: a timestamp scalar is not plain data',
      },
    ]);
  });

  it('refuses layouts it cannot splice safely rather than guessing', () => {
    expect(
      refuse(lines('? complex', ': value', 'b: 1'), { op: 'set', path: 'b', value: 2 }),
    ).toMatchObject([{ code: 'unsupported_layout' }]);
  });
});
