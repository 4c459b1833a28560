// Issue 22 point 4 (decision 232): command output is encoded a chunk at a time, as bytes, and must
// give exactly the transcript lines the per-line path gave (a streaming TextDecoder, one object
// and one JSON.stringify per line) — invalid UTF-8, \r\n, a byte-order mark, quotes, backslashes
// and control characters included, however the pipe cuts the stream into chunks.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineSplitter, linesText, OutputLines } from '../../../kernel/proc/index.js';
import { cutAt } from '../../support/chunks.js';

const TS = '2026-11-27T19:12:44.142123456Z';

/** The transcript lines and line texts as svc wrote them before: one line at a time. */
function perLine(chunks: Buffer[], phase: string, stream: string) {
  const split = new LineSplitter();
  const out: Buffer[] = [];
  const texts: string[] = [];
  const on = (text: string) => {
    texts.push(text);
    out.push(
      Buffer.from(`${JSON.stringify({ type: 'svc.output', ts: TS, phase, stream, text })}\n`),
    );
  };
  for (const c of chunks) split.push(c, on);
  split.flush(on);
  return { bytes: Buffer.concat(out), texts };
}

/**
 * `lent`: each chunk is handed over as a view of one read buffer that is filled with other bytes
 * once the batch was handled, as the daemon's reads are (decision 254): a batch's text and lines
 * are read before that, as the daemon reads them (the live stream, the result tail); its bytes,
 * which the transcript writer queues, only after.
 */
function batched(chunks: Buffer[], phase: string, stream: string, lent = false) {
  const lines = new OutputLines(phase, stream);
  const out: Buffer[] = [];
  const texts: string[] = [];
  const read = Buffer.alloc(4096);
  for (const given of chunks) {
    let c = given;
    if (lent) {
      read.set(given);
      c = read.subarray(0, given.length);
    }
    const b = lines.push(c, TS);
    if (b) {
      // A result tail decodes a batch's bytes again once the process has ended (decision 246).
      expect(linesText(b.lines)).toBe(b.text);
      texts.push(...b.text.split('\n'));
    }
    if (lent) read.fill(0x58);
    if (b) out.push(b.bytes);
  }
  const last = lines.end(TS);
  if (last) {
    expect(linesText(last.lines)).toBe(last.text);
    out.push(last.bytes);
    texts.push(last.text);
  }
  return { bytes: Buffer.concat(out), texts };
}

const TOKENS: number[][] = [
  [0x61],
  [0x7a, 0x20],
  [0x0a],
  [0x0a],
  [0x0d],
  [0x0d, 0x0a],
  [0x22],
  [0x5c],
  [0x5c, 0x6e],
  [0x09],
  [0x00],
  [0x1f],
  [0x7f],
  [0xef, 0xbb, 0xbf], // a byte-order mark
  [0xc3, 0xa9], // é
  [0xe2, 0x82, 0xac], // €
  [0xf0, 0x9f, 0x98, 0x80], // 😀
  [0xe2, 0x80, 0xa8], // U+2028
  [0x80], // a lone continuation byte
  [0xc3], // a lead byte cut short
  [0xe2, 0x82], // three-byte sequence cut short
  [0xf0, 0x9f, 0x98], // four-byte sequence cut short
  [0xed, 0xa0, 0x80], // a surrogate, which UTF-8 may not carry
  [0xff],
  [0xc0, 0xaf], // an overlong encoding
];

/** Output that needs no JSON escaping: the path that frames lines as bytes (decision 239). */
const CLEAN: number[][] = [
  [0x61],
  [0x7a, 0x20],
  [0x0a],
  [0x0a],
  [0x0d, 0x0a],
  [0x7f],
  [0xef, 0xbb, 0xbf],
  [0xc3, 0xa9],
  [0xe2, 0x82, 0xac],
  [0xf0, 0x9f, 0x98, 0x80],
  [0xe2, 0x80, 0xa8],
  [0xc2, 0x85], // a C1 control (NEL), which JSON.stringify does not escape
];

const streamOf = (tokens: number[][]) =>
  fc
    .tuple(
      fc.array(fc.constantFrom(...tokens), { maxLength: 120 }),
      fc.array(fc.nat(), { maxLength: 8 }),
    )
    .map(([tokens, cuts]) => {
      const bytes = Buffer.from(tokens.flat());
      return cutAt(bytes, cuts);
    });
const stream = streamOf(TOKENS);

describe('command output encoded a chunk at a time', () => {
  it('gives the same transcript bytes and texts as one line at a time, however the stream is cut', () => {
    fc.assert(
      fc.property(stream, fc.constantFrom('stdout', 'stderr'), (chunks, s) => {
        const want = perLine(chunks, 'run', s);
        const got = batched(chunks, 'run', s);
        expect(got.bytes.equals(want.bytes)).toBe(true);
        expect(got.texts).toEqual(want.texts);
      }),
      { numRuns: 3000 },
    );
  });

  it('gives the same bytes when every chunk is lent from one read buffer, refilled after each', () => {
    fc.assert(
      fc.property(stream, (chunks) => {
        const want = perLine(chunks, 'run', 'stdout');
        const got = batched(chunks, 'run', 'stdout', true);
        expect(got.bytes.equals(want.bytes)).toBe(true);
        expect(got.texts).toEqual(want.texts);
      }),
      { numRuns: 2000 },
    );
  });

  it('gives the same bytes for output that needs no escaping, framed without a string', () => {
    fc.assert(
      fc.property(streamOf(CLEAN), (chunks) => {
        const want = perLine(chunks, 'run', 'stdout');
        const got = batched(chunks, 'run', 'stdout');
        expect(got.bytes.equals(want.bytes)).toBe(true);
        expect(got.texts).toEqual(want.texts);
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps a byte-order mark past the start of the stream, and drops one only there', () => {
    const bom = '\ufeff';
    const chunks = [Buffer.from(`${bom}first\n${bom}second\n`)];
    expect(batched(chunks, 'run', 'stdout').texts).toEqual(['first', `${bom}second`]);
    expect(
      batched(chunks, 'run', 'stdout').bytes.equals(perLine(chunks, 'run', 'stdout').bytes),
    ).toBe(true);
  });

  it('joins only the line a chunk finishes: its own lines are framed where they lie', () => {
    const lines = new OutputLines('run', 'stdout');
    expect(lines.push(Buffer.from('begun in one chunk, '), TS)).toBeNull();
    const chunk = Buffer.from(`finished in the next\n${'abc\n'.repeat(1000)}and begun again`);
    const b = lines.push(chunk, TS);
    expect(b?.lines.map((part) => part.toString())).toEqual([
      'begun in one chunk, finished in the next\n',
      'abc\n'.repeat(1000),
    ]);
    // The chunk's own lines are a view of the chunk, not a copy of it joined to the earlier part.
    expect(b?.lines[1]?.buffer).toBe(chunk.buffer);
    expect(b?.text).toBe(
      ['begun in one chunk, finished in the next', ...Array(1000).fill('abc')].join('\n'),
    );
  });

  it('encodes large chunks of plain and base64 lines identically', () => {
    const text = `${'lorem ipsum dolor sit amet, '.repeat(143).slice(0, 3999)}\n`.repeat(40);
    const b64 = Buffer.from(Array.from({ length: 48 * 1024 }, (_, i) => (i * 7919) % 251))
      .toString('base64')
      .replace(/(.{60})/g, '$1\n');
    const data = Buffer.from(`${text}${b64}\n\xff tail without newline`, 'latin1');
    const chunks: Buffer[] = [];
    for (let i = 0; i < data.length; i += 65_536) chunks.push(data.subarray(i, i + 65_536));
    const want = perLine(chunks, 'check', 'stdout');
    const got = batched(chunks, 'check', 'stdout');
    expect(got.bytes.equals(want.bytes)).toBe(true);
    expect(got.texts).toEqual(want.texts);
  });
});
