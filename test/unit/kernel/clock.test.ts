import { describe, expect, it } from 'vitest';
import { FakeClock, formatNs, SystemClock } from '../../../kernel/clock/index.js';

describe('clock', () => {
  it('a fake clock fires timers in order only when advanced', async () => {
    const clock = new FakeClock(0);
    const fired: string[] = [];
    clock.setTimer(1000, () => fired.push('1s'));
    clock.setTimer(86_400_000, () => fired.push('24h'));
    const t = clock.setTimer(500, () => fired.push('cancelled'));
    t.cancel();
    await clock.advance('999ms');
    expect(fired).toEqual([]);
    await clock.advance('1ms');
    expect(fired).toEqual(['1s']);
    await clock.advance('24h');
    expect(fired).toEqual(['1s', '24h']);
    expect(clock.now()).toBe(1000 + 86_400_000);
  });

  it('sleep rejects on abort', async () => {
    const clock = new FakeClock(0);
    const ac = new AbortController();
    const p = clock.sleep(10_000, ac.signal);
    ac.abort(new Error('stop'));
    await expect(p).rejects.toThrow('stop');
    expect(clock.pending()).toBe(0);
  });

  it('system nanosecond timestamps increase strictly', () => {
    const clock = new SystemClock();
    const a = clock.nowNs();
    const b = clock.nowNs();
    expect(b > a).toBe(true);
    expect(formatNs(a)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/);
  });

  it('formats nanoseconds exactly', () => {
    const ns = BigInt(Date.UTC(2026, 10, 21, 10, 0, 0)) * 1_000_000n + 123_456_789n;
    expect(formatNs(ns)).toBe('2026-11-21T10:00:00.123456789Z');
  });
});
