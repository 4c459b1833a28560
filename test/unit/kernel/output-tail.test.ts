// Issue 22 point 4 (decision 246): a step's result tails keep the last output batches as bytes and
// decode them when the process ends, instead of holding the last chunks' texts in the heap. The
// tails must be exactly what the whole output's texts give: the last 200 lines cut to 16 KiB, and
// the last 64 Ki units of stderr — multi-byte characters, invalid UTF-8, \r\n and lines longer
// than what is kept included, however the pipe cuts the stream.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineSplitter, OutputLines, OutputTail, tailLines } from '../../../kernel/proc/index.js';
import { cutAt } from '../../support/chunks.js';

const TS = '2026-11-27T19:12:44.142123456Z';

const PIECES: number[][] = [
  [0x61],
  [0x0a],
  [0x0d, 0x0a],
  [0x0d],
  [0x22],
  [0xe2, 0x82, 0xac], // €: three bytes, one unit
  [0xf0, 0x9f, 0x98, 0x80], // 😀: four bytes, two units
  [0xe2, 0x82], // cut short: one U+FFFD for two bytes
  [0xff],
  [0xef, 0xbb, 0xbf],
];

/** Runs of one piece repeated, so streams reach past what a tail keeps (hundreds of KiB). */
const stream = fc
  .tuple(
    fc.array(
      fc.tuple(
        fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 6 }),
        fc.nat(12_000),
      ),
      {
        maxLength: 12,
      },
    ),
    fc.array(fc.nat(), { maxLength: 40 }),
  )
  .map(([runs, cuts]) => {
    const bytes = Buffer.concat(
      runs
        .map(([pieces, n]) => Buffer.from(pieces.flat()).toString('latin1').repeat(n))
        .map((s) => Buffer.from(s, 'latin1')),
    );
    return cutAt(bytes, cuts);
  });

/** The tails kept from `data` (read in pipe-sized chunks unless cut already) are the whole output's. */
function expectWholeOutputTails(data: Buffer | Buffer[]): void {
  const chunks: Buffer[] = Array.isArray(data) ? data : [];
  if (!Array.isArray(data))
    for (let i = 0; i < data.length; i += 65_536) chunks.push(data.subarray(i, i + 65_536));
  const all = texts(chunks);
  const got = tails(chunks);
  expect(got.tail).toBe(tailLines(all.join('\n'), 200));
  expect(got.stderr).toBe(
    all
      .map((t) => `${t}\n`)
      .join('')
      .slice(-64 * 1024),
  );
}

/** Every line's text, as the per-line decoder gives them. */
function texts(chunks: Buffer[]): string[] {
  const split = new LineSplitter();
  const out: string[] = [];
  for (const c of chunks) split.push(c, (l) => out.push(l));
  split.flush((l) => out.push(l));
  return out;
}

function tails(chunks: Buffer[]) {
  const lines = new OutputLines('run', 'stderr');
  const tail = new OutputTail(128 * 1024);
  const errTail = new OutputTail(3 * 64 * 1024);
  const push = (b: ReturnType<OutputLines['end']>) => {
    if (!b) return;
    tail.push(b);
    errTail.push(b);
  };
  for (const c of chunks) push(lines.push(c, TS));
  push(lines.end(TS));
  return {
    tail: tailLines(tail.text(), 200),
    stderr: errTail.empty ? '' : `${errTail.text()}\n`.slice(-64 * 1024),
  };
}

describe('result tails kept as bytes', () => {
  it('are the tails of the whole output, however long its lines and however it is cut', {
    timeout: 120_000,
  }, () => {
    fc.assert(
      fc.property(stream, (chunks) => expectWholeOutputTails(chunks)),
      { numRuns: 60 },
    );
  });

  it('keeps a line longer than its buffer, and the lines after it', () => {
    const long = Buffer.from(`${'y'.repeat(600_000)}\r\n`);
    for (const data of [
      Buffer.concat([Buffer.from('a\n'.repeat(50)), long, Buffer.from('b\n'.repeat(20))]),
      Buffer.concat([Buffer.from('a\n'.repeat(50)), long]),
      Buffer.concat([long, long, Buffer.from('c\r\n'.repeat(70_000)), long.subarray(0, 400_000)]),
    ]) {
      expectWholeOutputTails(data);
    }
  });

  it('keeps enough of output made only of four-byte characters and invalid bytes', () => {
    const line = `${'😀'.repeat(3000)}\n`;
    const bad = Buffer.from(`${'\xff\xe2\x82'.repeat(5000)}\n`, 'latin1');
    const data = Buffer.concat([
      Buffer.from(line.repeat(40)),
      bad,
      Buffer.from(line.repeat(3)),
      bad,
    ]);
    expectWholeOutputTails(data);
  });
});
