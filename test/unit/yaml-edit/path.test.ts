import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatPath, PathSyntaxError, parsePath } from '../../../lib/yaml-edit/index.js';

describe('parsePath', () => {
  it('reads dotted keys and indices', () => {
    expect(parsePath('steps[2].lanes[0].merge.on_conflict')).toEqual([
      'steps',
      2,
      'lanes',
      0,
      'merge',
      'on_conflict',
    ]);
    expect(parsePath('fields[1].values')).toEqual(['fields', 1, 'values']);
    expect(parsePath('defaults.max-retries_2')).toEqual(['defaults', 'max-retries_2']);
  });

  it('reads bracket-quoted keys with JSON escapes', () => {
    expect(parsePath('env["A B"].x')).toEqual(['env', 'A B', 'x']);
    expect(parsePath('["a.b"]')).toEqual(['a.b']);
    expect(parsePath('x["q\\"uote"]["\\u00e9"]')).toEqual(['x', 'q"uote', 'é']);
    expect(parsePath('[3]')).toEqual([3]);
  });

  it('reads the empty path as the root', () => {
    expect(parsePath('')).toEqual([]);
  });

  it.each([
    'a..b',
    '.a',
    'a.',
    'a[01]',
    'a[',
    'a[x]',
    'a b',
    'a["x]',
    'a["x"',
    '[1]a',
    'a.é',
    'a[-1]',
  ])('refuses %j', (path) => {
    expect(() => parsePath(path)).toThrow(PathSyntaxError);
  });
});

describe('formatPath', () => {
  it('writes bare keys where it can and quotes the rest', () => {
    expect(formatPath(['steps', 2, 'prompt'])).toBe('steps[2].prompt');
    expect(formatPath(['env', 'A B', 'a.b'])).toBe('env["A B"]["a.b"]');
    expect(formatPath([0, 'x'])).toBe('[0].x');
  });

  it('round-trips through parsePath', () => {
    const segment = fc.oneof(fc.nat(), fc.string(), fc.stringMatching(/^[a-z_-]{1,6}$/));
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 6 }), (segments) => {
        expect(parsePath(formatPath(segments))).toEqual(segments);
      }),
    );
  });
});
