// Decision 244: a list body is written text by text into one scratch buffer kept between bodies.
// Whatever the texts (one-byte, two-byte, surrogate pairs, larger than the scratch), however the
// bodies follow each other (one that throws half-way, one built inside another), each body is
// exactly `JSON.stringify` of its elements.
import { describe, expect, it } from 'vitest';
import { jsonArrayBody } from '../../../kernel/http/json-array.js';

const body = (rows: unknown[]) =>
  jsonArrayBody((push) => {
    for (const row of rows) push(JSON.stringify(row));
  });
const expectBytes = (got: Buffer, rows: unknown[]) =>
  expect(got.equals(Buffer.from(JSON.stringify(rows), 'utf8'))).toBe(true);

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
    for (const rows of cases) expectBytes(body(rows), rows);
    // Bodies handed out earlier are not written over by later ones.
    const kept = body([{ a: 'first' }]);
    body([{ a: 'second, and longer' }]);
    expect(kept.toString('utf8')).toBe('[{"a":"first"}]');
  });

  it('a body that throws half-way leaves the next one whole, and one built inside another is its own', () => {
    expect(() =>
      jsonArrayBody((push) => {
        push('"half"');
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expectBytes(body(['next']), ['next']);
    let inner: Buffer | undefined;
    const outer = jsonArrayBody((push) => {
      push('"outer 1"');
      inner = body(['inner', '中']);
      push('"outer 2"');
    });
    expectBytes(outer, ['outer 1', 'outer 2']);
    expectBytes(inner as Buffer, ['inner', '中']);
  });
});
