// Decisions 244 and 250: a list body is written text by text into a scratch buffer kept between
// bodies, and sent straight from it. Whatever the texts (one-byte, two-byte, surrogate pairs,
// larger than the scratch), however the bodies follow each other (one that throws half-way, one
// built inside another, one still being sent when the next is built), each body is exactly
// `JSON.stringify` of its elements, and a scratch is reused only once its body is released.
import { describe, expect, it } from 'vitest';
import { type ArrayBody, jsonArrayBody } from '../../../kernel/http/json-array.js';

const body = (rows: unknown[]) =>
  jsonArrayBody((push) => {
    for (const row of rows) push(JSON.stringify(row));
  });
const expectBytes = (got: ArrayBody, rows: unknown[]) =>
  expect(got.bytes.equals(Buffer.from(JSON.stringify(rows), 'utf8'))).toBe(true);

describe('jsonArrayBody', () => {
  it("is JSON.stringify's bytes for any text and any size", () => {
    const cases: unknown[][] = [
      [],
      [1],
      ['plain', { a: 'b' }, null],
      [{ t: 'café — déjà vu' }, { t: 'emoji 🚀 and 中文' }, { t: '\u2028 \u0001 " \\' }],
      // Larger than the first scratch, then than what is kept between bodies.
      Array.from({ length: 300 }, (_, i) => ({ i, t: `${'x'.repeat(1000)} — ${i}` })),
      [{ t: '中'.repeat(3_000_000) }, { t: 'after the big one' }],
      Array.from({ length: 2000 }, (_, i) => ({ i, t: i % 7 ? 'ascii row' : 'row — wide' })),
    ];
    for (const rows of cases) {
      const b = body(rows);
      expectBytes(b, rows);
      b.release();
    }
  });

  it('a body still held is never written over; a released one lends its memory to the next', () => {
    const held = body([{ a: 'first' }]);
    const other = body([{ a: 'second, and longer' }]);
    expect(held.bytes.toString('utf8')).toBe('[{"a":"first"}]');
    expect(other.bytes.buffer).not.toBe(held.bytes.buffer);
    held.release();
    // Released twice (finish, then a late close) it is still one scratch in the pool.
    held.release();
    const next = body([{ a: 'third' }]);
    expect(next.bytes.buffer).toBe(held.bytes.buffer);
    const another = body([{ a: 'fourth' }]);
    expect(another.bytes.buffer).not.toBe(next.bytes.buffer);
    expect(next.bytes.toString('utf8')).toBe('[{"a":"third"}]');
    expect(other.bytes.toString('utf8')).toBe('[{"a":"second, and longer"}]');
    for (const b of [other, next, another]) b.release();
  });

  it('a body that throws half-way leaves the next one whole, and one built inside another is its own', () => {
    expect(() =>
      jsonArrayBody((push) => {
        push('"half"');
        throw new Error('boom');
      }),
    ).toThrow('boom');
    const after = body(['next']);
    expectBytes(after, ['next']);
    after.release();
    let inner: ArrayBody | undefined;
    const outer = jsonArrayBody((push) => {
      push('"outer 1"');
      inner = body(['inner', '中']);
      push('"outer 2"');
    });
    expectBytes(outer, ['outer 1', 'outer 2']);
    expectBytes(inner as ArrayBody, ['inner', '中']);
  });
});
