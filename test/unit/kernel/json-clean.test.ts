// Issue 22 point 4 (decision 251): output lines are framed from their bytes when no byte needs a
// JSON escape. The word-at-a-time scan must answer exactly what testing the decoded text did,
// wherever the bytes sit in memory (the scan aligns to four-byte words of the underlying buffer).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { needsJsonEscape } from '../../../kernel/proc/json-clean.js';

/** What the string path tested: the text with one \r dropped before each \n. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding what JSON escapes is the point
const ESCAPED = /[\x00-\x09\x0b-\x1f"\\]/;
const byRegex = (b: Buffer) => ESCAPED.test(b.toString('latin1').replaceAll('\r\n', '\n'));

/** `bytes` placed `shift` bytes into a larger buffer, as a chunk cut from a pipe read is. */
function at(bytes: number[], shift: number): Buffer {
  const big = Buffer.alloc(bytes.length + 8);
  big.set(bytes, shift);
  return big.subarray(shift, shift + bytes.length);
}

describe('the JSON escape scan', () => {
  it('agrees with testing the decoded text, for every byte and every alignment', () => {
    const byte = fc.oneof(
      fc.constantFrom(0x0a, 0x0d, 0x22, 0x5c, 0x09, 0x00, 0x1f, 0x20, 0x7f, 0x80, 0xff, 0x21),
      fc.integer({ min: 0, max: 255 }),
    );
    fc.assert(
      fc.property(fc.array(byte, { maxLength: 40 }), fc.integer({ min: 0, max: 7 }), (bs, s) => {
        const b = at(bs, s);
        expect(needsJsonEscape(b)).toBe(byRegex(b));
      }),
      { numRuns: 20_000 },
    );
  });

  it('finds one escaped byte anywhere in a long clean run', () => {
    const clean = Buffer.from(`${'abcdefghijklmnopqrstuvwxyz0123456789+/='.repeat(30)}\n`);
    expect(needsJsonEscape(clean)).toBe(false);
    for (const bad of [0x22, 0x5c, 0x09, 0x00, 0x1f, 0x0d]) {
      for (const pos of [0, 1, 2, 3, 500, clean.length - 3]) {
        const b = Buffer.from(clean);
        b[pos] = bad;
        expect(needsJsonEscape(b), `0x${bad.toString(16)} at ${pos}`).toBe(true);
      }
    }
    // A \r right before a line's \n is dropped from the text, so it needs no escape.
    expect(needsJsonEscape(Buffer.from('line one\r\nline two\r\n'))).toBe(false);
    expect(needsJsonEscape(Buffer.from('one\r\r\n'))).toBe(true);
    expect(needsJsonEscape(Buffer.from('ends in a lone \r'))).toBe(true);
  });
});
