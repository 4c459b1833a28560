// Issue 3 points 2 and 3: fields[] declarations (every rule of the fields table, defaults checked
// at load) and validateTaskFields, the four rules of SPEC §2.8 for task creation.
import { describe, expect, it } from 'vitest';
import { type FieldDecl, validateTaskFields } from '../../../kernel/workflows/index.js';
import { deepFreeze } from '../../support/step-tester.js';
import { check, codes, yaml } from './support.js';

const STEPS = ['steps:', '  - type: command', '    run: make'];

async function declare(...lines: string[]) {
  return check(yaml('name: f', 'fields:', ...lines, ...STEPS));
}

describe('field declarations', () => {
  it('normalizes valid declarations with every default filled in', async () => {
    const r = await declare(
      '  - name: ticket',
      '  - name: count',
      '    label: How many',
      '    description: Items to make',
      '    type: integer',
      '    required: true',
      '    default: 3',
      '  - name: kind',
      '    type: enum',
      '    values: [bug, feature, 2]',
      '    default: bug',
      '  - name: areas',
      '    type: enum',
      '    values: [api, web, cli]',
      '    multiple: true',
      '    default: [cli, api]',
      '  - name: ref',
      '    pattern: "^[A-Z]+-[0-9]+$"',
      '  - name: ratio',
      '    type: number',
      '  - name: dry',
      '    type: boolean',
      '    default: false',
    );
    expect(r.errors).toEqual([]);
    expect(r.fields).toEqual([
      { name: 'ticket', label: 'ticket', type: 'string', required: false, multiple: false },
      {
        name: 'count',
        label: 'How many',
        description: 'Items to make',
        type: 'integer',
        required: true,
        multiple: false,
        default: '3',
      },
      {
        name: 'kind',
        label: 'kind',
        type: 'enum',
        required: false,
        multiple: false,
        values: ['bug', 'feature', '2'],
        default: 'bug',
      },
      {
        name: 'areas',
        label: 'areas',
        type: 'enum',
        required: false,
        multiple: true,
        values: ['api', 'web', 'cli'],
        default: 'api,cli',
      },
      {
        name: 'ref',
        label: 'ref',
        type: 'string',
        required: false,
        multiple: false,
        pattern: '^[A-Z]+-[0-9]+$',
      },
      { name: 'ratio', label: 'ratio', type: 'number', required: false, multiple: false },
      {
        name: 'dry',
        label: 'dry',
        type: 'boolean',
        required: false,
        multiple: false,
        default: 'false',
      },
    ]);
  });

  it.each([
    [['  - name: Bad Name'], 'fields[0].name invalid_format'],
    [['  - label: no name'], 'fields[0].name required'],
    [['  - name: a', '  - name: a'], 'fields[1].name duplicate_field'],
    [['  - name: a', '    type: date'], 'fields[0].type invalid_value'],
    [
      ['  - name: a', '    type: integer', '    pattern: "x"'],
      'fields[0].pattern pattern_not_string',
    ],
    [['  - name: a', '    pattern: "(unclosed"'], 'fields[0].pattern invalid_pattern'],
    [
      ['  - name: a', '    type: enum', '    values: [x]', '    pattern: "x"'],
      'fields[0].pattern pattern_with_enum',
    ],
    [['  - name: a', '    type: enum'], 'fields[0].values values_required'],
    [['  - name: a', '    values: [x]'], 'fields[0].values values_not_enum'],
    [['  - name: a', '    type: enum', '    values: []'], 'fields[0].values empty'],
    [
      ['  - name: a', '    type: enum', '    values: [x, x]'],
      'fields[0].values[1] duplicate_value',
    ],
    [['  - name: a', '    type: enum', '    values: [x, ""]'], 'fields[0].values[1] empty'],
    [
      ['  - name: a', '    type: enum', '    values: ["x,y"]'],
      'fields[0].values[0] comma_in_value',
    ],
    [['  - name: a', '    type: enum', '    values: [[x]]'], 'fields[0].values[0] invalid_type'],
    [['  - name: a', '    multiple: true'], 'fields[0].multiple multiple_not_enum'],
    [['  - name: a', '    type: integer', '    default: 1.5'], 'fields[0].default invalid_default'],
    [
      ['  - name: a', '    type: boolean', '    default: "yes"'],
      'fields[0].default invalid_default',
    ],
    [
      ['  - name: a', '    type: enum', '    values: [x]', '    default: y'],
      'fields[0].default invalid_default',
    ],
    [
      [
        '  - name: a',
        '    type: enum',
        '    values: [x, y]',
        '    multiple: true',
        '    default: [x, z]',
      ],
      'fields[0].default invalid_default',
    ],
    [['  - name: a', '    default: [x]'], 'fields[0].default invalid_default'],
    [
      ['  - name: a', '    pattern: "^[0-9]+$"', '    default: abc'],
      'fields[0].default invalid_default',
    ],
    [['  - name: a', '    required: "yes"'], 'fields[0].required invalid_type'],
    [['  - name: a', '    colour: red'], 'fields[0].colour unknown_key'],
    [['  - just-a-name'], 'fields[0] invalid_type'],
  ])('refuses %j (%s)', async (lines, expected) => {
    const r = await declare(...lines);
    expect(codes(r)).toEqual([expected]);
    expect(r.errors[0]?.line).toBeGreaterThan(2);
  });
});

const decl = (d: Partial<FieldDecl> & { name: string }): FieldDecl => ({
  label: d.name,
  type: 'string',
  required: false,
  multiple: false,
  ...d,
});

describe('validateTaskFields', () => {
  const areas = decl({
    name: 'areas',
    type: 'enum',
    values: ['api', 'web', 'cli'],
    multiple: true,
  });

  it('rule 1: an optional field absent or empty skips type and pattern checks', () => {
    const decls = deepFreeze([
      decl({ name: 'n', type: 'integer' }),
      decl({ name: 'ref', pattern: '^X' }),
    ]);
    expect(validateTaskFields(decls, {})).toEqual({ ok: true, fields: {}, defaulted: [] });
    expect(validateTaskFields(decls, { n: '', ref: '  ' })).toEqual({
      ok: true,
      fields: { n: '', ref: '  ' },
      defaulted: [],
    });
    expect(validateTaskFields(decls, { n: 'x' })).toMatchObject({
      ok: false,
      errors: [{ path: 'fields.n', code: 'invalid_field' }],
    });
  });

  it('rule 2: a multiple enum is split, trimmed, deduplicated, reordered and rejoined', () => {
    expect(validateTaskFields([areas], { areas: ' cli , api,,cli, ' })).toEqual({
      ok: true,
      fields: { areas: 'api,cli' },
      defaulted: [],
    });
    const bad = validateTaskFields([areas], { areas: 'api, desktop' });
    expect(bad).toMatchObject({
      ok: false,
      errors: [{ path: 'fields.areas', code: 'invalid_field' }],
    });
    expect(!bad.ok && bad.errors[0]?.message).toContain('"desktop"');
  });

  it('rule 3: a required default fills an omitted key (recorded), never an empty one or an optional field', () => {
    const decls = [
      decl({ name: 'env', required: true, default: 'staging' }),
      decl({ name: 'note', default: 'none' }),
    ];
    expect(validateTaskFields(decls, {})).toEqual({
      ok: true,
      fields: { env: 'staging' },
      defaulted: ['env'],
    });
    expect(validateTaskFields(decls, { env: '' })).toMatchObject({
      ok: false,
      errors: [{ path: 'fields.env', code: 'required' }],
    });
    expect(validateTaskFields(decls, { env: 'prod' })).toEqual({
      ok: true,
      fields: { env: 'prod' },
      defaulted: [],
    });
  });

  it('rule 4: only declared names are checked; others pass through', () => {
    const r = validateTaskFields([decl({ name: 'n', type: 'integer' })], {
      n: '5',
      extra: 'anything',
    });
    expect(r).toEqual({ ok: true, fields: { n: '5', extra: 'anything' }, defaulted: [] });
  });

  it('refuses a missing or whitespace-only required value', () => {
    const decls = [decl({ name: 'title', required: true })];
    for (const fields of [{}, { title: '   ' }] as Array<Record<string, string>>) {
      expect(validateTaskFields(decls, fields)).toMatchObject({
        ok: false,
        errors: [{ path: 'fields.title', code: 'required' }],
      });
    }
    const multiple = decl({ ...areas, required: true });
    expect(validateTaskFields([multiple], { areas: ' , ' })).toMatchObject({
      ok: false,
      errors: [{ code: 'required' }],
    });
  });

  it.each([
    ['integer', '42', true],
    ['integer', '-7', true],
    ['integer', '4.0', false],
    ['integer', '0x10', false],
    ['integer', '99999999999999999999', false],
    ['number', '3.25', true],
    ['number', '-1e3', true],
    ['number', '.5', true],
    ['number', 'NaN', false],
    ['number', 'Infinity', false],
    ['number', '1,5', false],
    ['boolean', 'true', true],
    ['boolean', 'false', true],
    ['boolean', 'True', false],
    ['boolean', '1', false],
  ] as const)('type %s: %s is %s', (type, value, ok) => {
    expect(validateTaskFields([decl({ name: 'v', type })], { v: value }).ok).toBe(ok);
  });

  it('matches a pattern unanchored, and an enum exactly', () => {
    expect(validateTaskFields([decl({ name: 'r', pattern: '[0-9]+' })], { r: 'abc-12' }).ok).toBe(
      true,
    );
    expect(validateTaskFields([decl({ name: 'r', pattern: '^[0-9]+$' })], { r: 'abc-12' }).ok).toBe(
      false,
    );
    const kind = decl({ name: 'k', type: 'enum', values: ['bug', 'feature'] });
    expect(validateTaskFields([kind], { k: 'bug' }).ok).toBe(true);
    expect(validateTaskFields([kind], { k: 'bug,feature' }).ok).toBe(false);
  });

  it('reports every failing field in declaration order and leaves its inputs alone', () => {
    const decls = deepFreeze([
      decl({ name: 'a', required: true }),
      decl({ name: 'b', type: 'integer' }),
    ]);
    const fields = deepFreeze({ b: 'x' });
    const r = validateTaskFields(decls, fields);
    expect(r).toMatchObject({ ok: false, errors: [{ path: 'fields.a' }, { path: 'fields.b' }] });
  });
});
