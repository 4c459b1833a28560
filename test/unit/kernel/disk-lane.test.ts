// Decision 251: transcript writes take turns on a lane of a given width, first come first served.
import { describe, expect, it } from 'vitest';
import { DiskLane } from '../../../kernel/proc/index.js';

describe('disk lane', () => {
  it('runs at most its width at once, the rest in the order they came', () => {
    const lane = new DiskLane(2);
    const started: number[] = [];
    const dones: Array<() => void> = [];
    for (let i = 0; i < 5; i++)
      lane.take((done) => {
        started.push(i);
        dones.push(done);
      });
    expect(started).toEqual([0, 1]);
    expect(lane.busy).toBe(2);
    expect(lane.queued).toBe(3);
    dones[1]?.();
    // A second call of the same done frees nothing more.
    dones[1]?.();
    expect(started).toEqual([0, 1, 2]);
    expect(lane.queued).toBe(2);
    dones[0]?.();
    dones[2]?.();
    expect(started).toEqual([0, 1, 2, 3, 4]);
    dones[3]?.();
    dones[4]?.();
    expect(lane.busy).toBe(0);
    expect(lane.queued).toBe(0);
  });
});
