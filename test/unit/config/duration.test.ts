import { describe, expect, it } from 'vitest';
import { formatDuration, tryParseDuration } from '../../../kernel/config/duration.js';
import { tryParseSize } from '../../../kernel/config/size.js';
import { workflowDurationMs } from '../../../kernel/plugin/step-keys.js';

describe('durations', () => {
  it.each([
    ['45m', 2_700_000],
    ['1h30m', 5_400_000],
    ['90s', 90_000],
    ['250ms', 250],
    ['24h', 86_400_000],
    ['1.5h', 5_400_000],
    ['0', 0],
    ['0s', 0],
  ])('parses %s', (text, ms) => expect(tryParseDuration(text)).toBe(ms));

  it.each(['', '45', 'm', '1x', '-5m', '1h 30m', 'abc'])('refuses %j', (text) =>
    expect(tryParseDuration(text)).toBeNull(),
  );

  it('formats canonically', () => {
    expect(formatDuration(5_400_000)).toBe('1h30m');
    expect(formatDuration(0)).toBe('0s');
    expect(formatDuration(1500)).toBe('1s500ms');
  });
});

describe('workflow durations', () => {
  it.each([
    ['1h30m', 5_400_000],
    ['250ms', 250],
    ['1500us', 1.5],
    ['1500\u00b5s', 1.5],
    ['2000ns', 0.002],
  ])('parses %s', (text, ms) => expect(workflowDurationMs(text)).toBeCloseTo(ms, 9));
});

describe('sizes', () => {
  it.each([
    ['512MB', 512 * 1024 ** 2],
    ['1KB', 1024],
    ['2GiB', 2 * 1024 ** 3],
    ['100', 100],
    [0, 0],
    [4096, 4096],
  ] as const)('parses %j', (v, bytes) => expect(tryParseSize(v)).toBe(bytes));
  it.each(['12XB', 'MB', '-1', -1, 1.5])('refuses %j', (v) => expect(tryParseSize(v)).toBeNull());
});
