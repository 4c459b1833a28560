// The spawner's record of launches the daemon gave up on (kernel/launch/spawner-dropped.ts): a
// late stream of one is recognised while it can still arrive, and the record does not grow for
// the spawner's whole life, as the set it replaced did.
import { describe, expect, it } from 'vitest';
import { DroppedLaunches } from '../../../kernel/launch/spawner-dropped.js';

describe('the launches a spawner was told to drop', () => {
  it('recognises a dropped launch while a stream of it could still arrive', () => {
    let now = 1_000;
    const dropped = new DroppedLaunches(60_000, () => now);
    dropped.add('a');
    now += 59_000;
    expect(dropped.has('a')).toBe(true);
    expect(dropped.has('b')).toBe(false);
    now += 2_000;
    expect(dropped.has('a')).toBe(false);
  });

  it('forgets old ids as new ones come, however many launches are dropped', () => {
    let now = 0;
    const dropped = new DroppedLaunches(60_000, () => now);
    for (let i = 0; i < 10_000; i++) {
      dropped.add(`id${i}`);
      now += 1_000; // one drop a second
    }
    // Only the last minute's ids are kept: about 60, not 10,000.
    expect(dropped.size).toBeLessThanOrEqual(61);
    expect(dropped.has('id9999')).toBe(true);
    expect(dropped.has('id0')).toBe(false);
  });

  it('keeps an id dropped again from its latest drop', () => {
    let now = 0;
    const dropped = new DroppedLaunches(60_000, () => now);
    dropped.add('a');
    now = 50_000;
    dropped.add('a');
    now = 100_000;
    dropped.add('b');
    expect(dropped.has('a')).toBe(true);
  });
});
