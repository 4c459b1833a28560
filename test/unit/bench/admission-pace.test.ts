import { describe, expect, it } from 'vitest';
import { paceFor } from '../../../bench/admission.js';

// The steady admission figure means "slots free slower than the repository can cut worktrees";
// a pace git cannot keep measures git's queue instead (docs/performance.md).
describe('the steady admission pace', () => {
  it('keeps the 0.2–0.5 s steps where git is quick', () => {
    expect(paceFor(10)).toEqual([0.2, 0.3, 0.4, 0.5]);
  });

  it('lengthens the steps where git is slow, so git is busy at most half the run', () => {
    const sleeps = paceFor(60);
    const mean = sleeps.reduce((a, b) => a + b, 0) / sleeps.length;
    // Eight slots: one frees every mean / 8 seconds, at least twice an add's 60 ms.
    expect(mean / 8).toBeGreaterThanOrEqual(0.119);
    expect(sleeps[3] / sleeps[0]).toBeCloseTo(2.5, 1);
  });
});
