// Decision 252: a running transcript's last writes are kept for its follower. A page from them is
// exactly the page the file gives (start at the offset, at most the limit, cut after the last
// complete line); nothing is kept until a follower asks, nothing below where it last asked, never
// more than the bound, and nothing once it stops asking.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RecentBytes } from '../../../kernel/proc/index.js';

/** The page the file would give: the contract of kernel/http/transcript.ts. */
function filePage(file: Buffer, offset: number, limit: number) {
  if (offset >= file.length) return { body: '', nextOffset: offset };
  const range = file.subarray(offset, offset + limit);
  const end = range.lastIndexOf(0x0a) + 1;
  return { body: range.subarray(0, end).toString('latin1'), nextOffset: offset + end };
}

const lines = fc
  .array(fc.integer({ min: 1, max: 30 }), { minLength: 1, maxLength: 6 })
  .map((ns) =>
    Buffer.from(ns.map((n, i) => `${String.fromCharCode(97 + i)}${'y'.repeat(n)}\n`).join('')),
  );

describe('the bytes kept for a follower', () => {
  it('gives the file’s page for every offset and limit it holds', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 50 }),
        fc.array(lines, { minLength: 1, maxLength: 12 }),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 200 })), { maxLength: 20 }),
        (at, writes, asks) => {
          const r = new RecentBytes(at, 10_000);
          const file = Buffer.concat([Buffer.alloc(at, 0x0a), ...writes]);
          r.page(at, 0);
          for (const w of writes) r.append([w]);
          let served = 0;
          for (const [o, limit] of asks) {
            const offset = at + (o % (file.length - at + 1));
            const page = r.page(offset, limit);
            // The window holds from the last offset asked: an ask below it reads the file.
            if (!page) continue;
            served++;
            expect({
              body: Buffer.concat(page.chunks).toString('latin1'),
              nextOffset: page.nextOffset,
            }).toEqual(filePage(file, offset, limit));
            expect(page.length).toBe(page.nextOffset - offset);
            expect(page.size).toBe(file.length);
          }
          // The first ask is always inside: everything since the writer opened is held.
          if (asks.length > 0) expect(served).toBeGreaterThan(0);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('keeps nothing until a follower asks, and only what it has not read once it has', () => {
    const r = new RecentBytes(0, 1000);
    const chunk = Buffer.from(`${'z'.repeat(99)}\n`);
    r.append([chunk, chunk]);
    expect(r.held).toBe(0);
    // Behind the window: read the file; from now on what is written is kept.
    expect(r.page(0, 4096)).toBeNull();
    r.append([chunk, chunk, chunk]);
    expect(r.held).toBe(300);
    // The follower caught up with the file and asks from the window: it is served from memory.
    expect(r.page(300, 4096)?.length).toBe(200);
    expect(r.held).toBe(200);
    // Past the bound, the oldest chunks go: the follower reads the file until it catches up.
    for (let i = 0; i < 15; i++) r.append([chunk]);
    expect(r.held).toBeLessThanOrEqual(1000);
    expect(r.page(300, 4096)).toBeNull();
  });

  it('forgets a follower that stopped asking', () => {
    const r = new RecentBytes(0, 1000);
    const chunk = Buffer.from(`${'z'.repeat(99)}\n`);
    r.page(0, 0);
    r.append([chunk]);
    expect(r.held).toBe(100);
    for (let i = 0; i < 21; i++) r.append([chunk]);
    expect(r.held).toBe(0);
    expect(r.page(100, 4096)).toBeNull();
  });
});
