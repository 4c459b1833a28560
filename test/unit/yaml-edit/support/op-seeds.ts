import fc from 'fast-check';
import { type GeneratedOp, getPath, isObject, type Json, type Segment } from './reference.js';

/**
 * Random ops are drawn as seeds and turned into ops against the current value, so a sequence of
 * ops stays valid as the value changes under it.
 */
export interface OpSeed {
  kind: 'set' | 'setBlock' | 'setNew' | 'setDeep' | 'append' | 'insert' | 'remove' | 'move';
  a: number;
  b: number;
  value: Json;
  key: string;
  text: string;
  item: Array<{ key: string; value: Json }>;
}

const awkwardStrings = [
  '',
  ' leading',
  'trailing ',
  'yes',
  'on',
  'null',
  '~',
  '1.5',
  '0x1f',
  '1:30',
  '2026-11-21',
  '- a',
  '? x',
  '#hash',
  'a #b',
  'a: b',
  'a:b',
  '[x]',
  '{y}',
  'a, b',
  '*alias',
  '&anchor',
  '!tag',
  '%pct',
  '@at',
  '`tick',
  '|',
  '>',
  '"dq"',
  "'sq'",
  'two\nlines',
  'ends with newline\n',
  '\ttab',
  'tab\tinside',
  'back\\slash',
  'unicode é ✓ 😀',
  '\u0007bell',
  '\u2028sep',
  '---',
  '...',
];

export const stringArb: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...awkwardStrings),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 6 }),
);

export const keyArb: fc.Arbitrary<string> = fc
  .oneof(
    fc.constantFrom(
      'model',
      'effort',
      'timeout',
      'new_key',
      'with space',
      'a.b',
      '1',
      'on',
      '#x',
      'é',
    ),
    fc.string({ minLength: 1, maxLength: 8 }),
  )
  .filter((key) => key !== '__proto__');

const scalarArb: fc.Arbitrary<Json> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  stringArb,
);

export const jsonArb: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalarArb,
    fc.array(tie('value'), { maxLength: 3 }),
    fc
      .uniqueArray(fc.tuple(keyArb, tie('value')), { maxLength: 3, selector: ([k]) => k })
      .map((entries) => Object.fromEntries(entries) as Json),
  ),
})).value;

/** Multi-line text a `|` block scalar can carry: printable characters and line breaks. */
export const blockTextArb: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    '\n',
    'one line',
    'two\nlines\n',
    ' leading space\nx',
    'kept\n\n\n',
    '\n\nlate start',
  ),
  fc.string({
    unit: fc.constantFrom('a', 'b', ' ', '\n', '#', ':', '-', '\t', 'é', '"', "'", '|'),
    maxLength: 30,
  }),
);

export const seedArb: fc.Arbitrary<OpSeed> = fc.record({
  kind: fc.constantFrom(
    'set',
    'setBlock',
    'setNew',
    'setDeep',
    'append',
    'insert',
    'remove',
    'move',
  ),
  a: fc.nat(),
  b: fc.nat(),
  value: jsonArb,
  key: keyArb,
  text: blockTextArb,
  item: fc.uniqueArray(fc.record({ key: keyArb, value: jsonArb }), {
    maxLength: 4,
    selector: (e) => e.key,
  }),
});

interface Shape {
  all: Segment[][];
  maps: Segment[][];
  seqs: Segment[][];
}

function shapeOf(
  value: Json,
  at: Segment[] = [],
  shape: Shape = { all: [], maps: [], seqs: [] },
): Shape {
  if (Array.isArray(value)) {
    shape.seqs.push(at);
    value.forEach((item, i) => {
      shape.all.push([...at, i]);
      shapeOf(item, [...at, i], shape);
    });
  } else if (isObject(value)) {
    shape.maps.push(at);
    for (const [key, child] of Object.entries(value)) {
      shape.all.push([...at, key]);
      shapeOf(child, [...at, key], shape);
    }
  }
  return shape;
}

/** A valid op for `value` chosen by `seed`; falls back to a plain set when the kind has no target. */
export function materialize(seed: OpSeed, value: Json): GeneratedOp {
  const shape = shapeOf(value);
  const pick = <T>(list: T[], n: number): T => list[n % list.length]!;
  // An emptied document still takes a new top-level key.
  const setSome = (): GeneratedOp =>
    shape.all.length === 0
      ? { op: 'set', segments: [seed.key], value: seed.value }
      : { op: 'set', segments: pick(shape.all, seed.a), value: seed.value };
  const seqs = shape.seqs.filter((p) => (getPath(value, p) as Json[]).length > 0);
  switch (seed.kind) {
    case 'set':
      return setSome();
    case 'setBlock':
      if (shape.all.length === 0) return setSome();
      return { op: 'set', segments: pick(shape.all, seed.a), value: seed.text, block: true };
    case 'setNew':
      if (shape.maps.length === 0) return setSome();
      return { op: 'set', segments: [...pick(shape.maps, seed.a), seed.key], value: seed.value };
    case 'setDeep': {
      if (shape.maps.length === 0) return setSome();
      const map = pick(shape.maps, seed.a);
      const owner = getPath(value, map) as { [key: string]: Json };
      if (Object.hasOwn(owner, seed.key)) return setSome();
      return { op: 'set', segments: [...map, seed.key, 'inner', 0], value: seed.value };
    }
    case 'append': {
      if (shape.seqs.length === 0) return setSome();
      const seq = pick(shape.seqs, seed.a);
      return {
        op: 'set',
        segments: [...seq, (getPath(value, seq) as Json[]).length],
        value: seed.value,
      };
    }
    case 'insert': {
      if (shape.seqs.length === 0) return setSome();
      const seq = pick(shape.seqs, seed.a);
      const length = (getPath(value, seq) as Json[]).length;
      return { op: 'insert', segments: [...seq, seed.b % (length + 1)], item: seed.item };
    }
    case 'remove':
      if (shape.all.length === 0) return setSome();
      return { op: 'remove', segments: pick(shape.all, seed.a) };
    case 'move': {
      if (seqs.length === 0) return setSome();
      const seq = pick(seqs, seed.a);
      const length = (getPath(value, seq) as Json[]).length;
      return { op: 'move', segments: [...seq, seed.a % length], to: seed.b % length };
    }
  }
}
