// Issue 22 point 4 (decision 239): output read from pipes is queued and handled in turns, so a
// burst of chunks (libuv reads a busy pipe up to 32 times in one go, for every running process)
// never holds the event loop until all of it is encoded: other callbacks run between slices; a
// process's pipes are held while its queue is long and read again once it is worked down; chunks
// are handled in the order they were read, stdout and stderr interleaved as they came. A chunk
// read while nothing of its process waits is handled at once within a turn's budget, and one that
// must wait is copied, since its read buffer is lent (decision 254).
import { describe, expect, it } from 'vitest';
import { OutputQueue, QUEUE_HOLD, SLICE_MS } from '../../../kernel/proc/index.js';

/** Busy for longer than one slice: each chunk then takes a turn of its own. */
function busy(): void {
  const until = performance.now() + SLICE_MS + 1;
  while (performance.now() < until) {}
}

/**
 * Spends this turn's budget for chunks handled as they are read: a chunk handled at once, slowly,
 * by a queue of its own. Chunks pushed after it in the same turn wait in their queues.
 */
function spendTurn(): void {
  new OutputQueue(busy, () => {}).push('stdout', Buffer.from('.'));
}

describe('output handled in turns', () => {
  it('lets other callbacks run while a burst of chunks waits, and keeps their order', async () => {
    const seen: string[] = [];
    const q = new OutputQueue(
      (stream, chunk) => {
        busy();
        seen.push(`${stream}:${chunk.toString()}`);
      },
      () => {},
    );
    const burst = Array.from({ length: 12 }, (_, i) => i);
    for (const i of burst) q.push(i % 3 === 2 ? 'stderr' : 'stdout', Buffer.from(String(i)));
    let handledWhenOtherRan = -1;
    setImmediate(() => {
      handledWhenOtherRan = seen.length;
    });
    await q.idle();
    expect(handledWhenOtherRan).toBeGreaterThanOrEqual(0);
    expect(handledWhenOtherRan).toBeLessThan(burst.length);
    expect(seen).toEqual(burst.map((i) => `${i % 3 === 2 ? 'stderr' : 'stdout'}:${i}`));
  });

  it('shares turns between processes instead of finishing one first', async () => {
    const order: string[] = [];
    const queues = ['a', 'b'].map(
      (name) =>
        new OutputQueue(
          () => {
            busy();
            order.push(name);
          },
          () => {},
        ),
    );
    // Chunks read while the turn's budget is spent wait in their queues (decision 254).
    spendTurn();
    for (let i = 0; i < 4; i++) queues[0]?.push('stdout', Buffer.from('x'));
    for (let i = 0; i < 4; i++) queues[1]?.push('stdout', Buffer.from('y'));
    await Promise.all(queues.map((q) => q.idle()));
    expect(order).toEqual(['a', 'b', 'a', 'b', 'a', 'b', 'a', 'b']);
  });

  it('holds the pipes while more than QUEUE_HOLD bytes wait, and reads them again after', async () => {
    const holds: boolean[] = [];
    let handled = 0;
    const q = new OutputQueue(
      (_s, c) => {
        handled += c.length;
      },
      (on) => holds.push(on),
    );
    // A chunk read while the turn's budget is spent waits (decision 254): spend it first.
    spendTurn();
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const chunks = Math.ceil(QUEUE_HOLD / chunk.length) + 2;
    for (let i = 0; i < chunks; i++) q.push('stdout', chunk);
    expect(holds).toEqual([true]);
    expect(q.bytes).toBe(chunks * chunk.length);
    await q.idle();
    expect(holds).toEqual([true, false]);
    expect(handled).toBe(chunks * chunk.length);
    expect(q.bytes).toBe(0);
  });

  it('handles a chunk at once while nothing of its process waits and the turn has time', async () => {
    await new Promise((r) => setImmediate(r));
    const seen: string[] = [];
    const q = new OutputQueue(
      (_s, c) => seen.push(c.toString()),
      () => {},
    );
    q.push('stdout', Buffer.from('a'));
    q.push('stderr', Buffer.from('b'));
    // Handled before push returned: nothing was queued, so no copy of the chunk was made.
    expect(seen).toEqual(['a', 'b']);
    expect(q.bytes).toBe(0);
    await q.idle();
  });

  it('copies a chunk it must queue: the read buffer it was lent is filled again at once', async () => {
    const seen: string[] = [];
    const q = new OutputQueue(
      (_s, c) => seen.push(c.toString()),
      () => {},
    );
    spendTurn();
    const read = Buffer.from('first');
    q.push('stdout', read);
    read.write('XXXXX');
    q.push('stdout', read.subarray(0, 3));
    read.write('YYYYY');
    expect(seen).toEqual([]);
    await q.idle();
    expect(seen).toEqual(['first', 'XXX']);
  });
});
