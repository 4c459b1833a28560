// Issue 21 point 4, decision 226: one translation of zod issues into findings, for request
// bodies, config, workflow and trigger files alike. It existed three times and had drifted (an
// empty list was `empty` in a workflow and `out_of_range` in a trigger file); these cases pin the
// one reading every room now shares.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { findingsFromZod, readIssues } from '../../../kernel/input/index.js';

const Step = z.strictObject({
  id: z.string(),
  run: z.string().optional(),
  lanes: z.array(z.string()).min(1).optional(),
  retries: z.number().int().max(5).optional(),
  fields: z
    .record(z.string().regex(/^[a-z]+$/, 'must be lower-case letters'), z.string())
    .optional(),
});
const File = z.strictObject({ steps: z.array(Step) });
const Either = z.union([
  z.strictObject({ kind: z.literal('a'), a: z.string() }),
  z.strictObject({ kind: z.literal('b'), b: z.strictObject({ deep: z.number() }) }),
]);

function read(schema: z.ZodType, value: unknown, withValue = true) {
  const r = schema.safeParse(value);
  if (r.success) throw new Error('expected a refusal');
  return readIssues(r.error.issues, withValue ? { value } : {});
}

describe('readIssues: the one zod-issue translator', () => {
  it('names an unknown key by its whole path', () => {
    expect(read(File, { steps: [{ id: 'x', nope: 1 }] })).toEqual([
      { path: ['steps', 0, 'nope'], code: 'unknown_key', message: 'unknown key "steps[0].nope"' },
    ]);
  });

  it('an empty list that needs an item is `empty`, another bound `out_of_range`', () => {
    expect(read(File, { steps: [{ id: 'x', lanes: [] }] }).map((f) => f.code)).toEqual(['empty']);
    expect(read(File, { steps: [{ id: 'x', retries: 9 }] }).map((f) => f.code)).toEqual([
      'out_of_range',
    ]);
  });

  it('a missing key is required when the value is known, zod’s own words otherwise', () => {
    const known = read(File, { steps: [{}] });
    expect(known).toEqual([
      { path: ['steps', 0, 'id'], code: 'required', message: 'steps[0].id is required' },
    ]);
    const unknown = read(File, { steps: [{}] }, false);
    expect(unknown[0]?.code).toBe('invalid_type');
    expect(unknown[0]?.message).toMatch(/^steps\[0\]\.id: /);
  });

  it('a record key refused by its own schema says that schema’s reason', () => {
    const [f] = read(File, { steps: [{ id: 'x', fields: { BAD: 'v' } }] });
    expect(f?.message).toBe('steps[0].fields.BAD: key must be lower-case letters');
  });

  it('a union whose branches all failed reports the branch that got furthest', () => {
    expect(read(Either, { kind: 'b', b: { deep: 'no' } })).toEqual([
      expect.objectContaining({ path: ['b', 'deep'], code: 'invalid_type' }),
    ]);
  });

  it('a room reads unknown keys its own way when it knows more', () => {
    const r = File.safeParse({ steps: [{ id: 'x', prompt: 'p' }] });
    if (r.success) throw new Error('expected a refusal');
    const [f] = readIssues(r.error.issues, {
      unknownKey: (path, key) => ({
        path: [...path, key],
        code: 'key_not_valid_for_type',
        message: `${key} belongs to agent steps`,
      }),
    });
    expect(f).toEqual({
      path: ['steps', 0, 'prompt'],
      code: 'key_not_valid_for_type',
      message: 'prompt belongs to agent steps',
    });
  });

  it('quotes at most 200 bytes of a client’s key (decision 189)', () => {
    const key = 'k'.repeat(5000);
    const [f] = read(File, { steps: [{ id: 'x', [key]: 1 }] });
    expect(Buffer.byteLength(f?.message ?? '')).toBeLessThan(300);
    expect(f?.message).toContain('(5009 bytes)');
  });

  it('request bodies carry the same codes (findingsFromZod)', () => {
    const r = File.safeParse({ steps: [{ id: 'x', lanes: [] }] });
    if (r.success) throw new Error('expected a refusal');
    expect(findingsFromZod(r.error)).toEqual([
      {
        path: 'steps[0].lanes',
        code: 'empty',
        message: expect.stringMatching(/^steps\[0\]\.lanes: /),
      },
    ]);
  });
});
