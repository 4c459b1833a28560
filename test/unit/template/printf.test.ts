import { describe, expect, it } from 'vitest';
import { render } from './helpers.js';

// Each case is fmt.Sprintf(format, args...) as Go prints it; args reach printf through .A.

function printf(format: string, ...args: unknown[]): string {
  const refs = args.map((_, i) => `(index .A ${i})`).join(' ');
  return render(`{{printf .F ${refs}}}`, { F: format, A: args });
}

type Case = readonly [format: string, args: readonly unknown[], want: string];

function table(cases: readonly Case[]) {
  it.each(cases)('%j %j', (format, args, want) => {
    expect(printf(format, ...args)).toBe(want);
  });
}

describe('strings', () => {
  table([
    ['%s|%v', ['a', 'b'], 'a|b'],
    ['%5s|%-5s|%.2s|%5.1s', ['abc', 'abc', 'abc', 'abc'], '  abc|abc  |ab|    a'],
    ['%q', ['a"b\n\t\\'], '"a\\"b\\n\\t\\\\"'],
    ['%q', ['é\u0001\u007f\u200b'], '"é\\x01\\x7f\\u200b"'],
    ['%+q', ['é'], '"\\u00e9"'],
    ['%#q|%#q', ['ab', 'a`b'], '`ab`|"a`b"'],
    ['%x|%X|% x|%#x|% #x', ['hi', 'hi', 'hi', 'hi', 'hi'], '6869|6869|68 69|0x6869|0x68 0x69'],
    ['%x', ['é'], 'c3a9'],
    ['%5s', ['日本'], '   日本'],
  ]);
});

describe('integers', () => {
  table([
    ['%d|%v', [42, -7], '42|-7'],
    ['%5d|%-5d|%05d|%+d|% d', [42, 42, -42, 42, 42], '   42|42   |-0042|+42| 42'],
    ['%.3d|%6.3d|%.0d', [7, -7, 0], '007|  -007|'],
    ['%x|%X|%o|%O|%b', [255, 255, 8, 8, 5], 'ff|FF|10|0o10|101'],
    ['%#x|%#X|%#o|%#b|%08b', [255, 255, 8, 5, 5], '0xff|0XFF|010|0b101|00000101'],
    ['%x', [-255], '-ff'],
    ['%c|%c|%q|%+q', [65, 0x1f600, 97, 0xe9], "A|😀|'a'|'\\u00e9'"],
    ['%U|%#U', [0x1f600, 65], "U+1F600|U+0041 'A'"],
    ['%d|%d', [2 ** 53, -(2 ** 62)], '9007199254740992|-4611686018427387904'],
  ]);
});

describe('floats', () => {
  table([
    [
      '%f|%.2f|%8.3f|%-8.2f|%08.3f',
      [1.23456, 2.675, 1.23456, 1.5, -1.23456],
      '1.234560|2.67|   1.235|1.50    |-001.235',
    ],
    ['%.2f|%.2f|%.0f|%.0f|%.1f', [0.125, 0.375, 2.5, 3.5, 0.05], '0.12|0.38|2|4|0.1'],
    ['%e|%E|%.2e', [123456.789, 123456.789, 0.000123], '1.234568e+05|1.234568E+05|1.23e-04'],
    [
      '%g|%g|%g|%g',
      [123456.789, 1e21, 0.00001234, 100000.5],
      '123456.789|1e+21|1.234e-05|100000.5',
    ],
    ['%.3g|%.3g|%.10g|%G', [1234.5678, 1.0, 0.1, 1e-7], '1.23e+03|1|0.1|1E-07'],
    ['%v|%v|%v', [1.5, 2.0, 1e100], '1.5|2|1e+100'],
    // %+v moves + to plusV (struct field names), so a number gets no sign.
    ['%+.1f|% .1f|%+v', [1.25, 1.25, 1.5], '+1.2| 1.2|1.5'],
    ['%f|%v|%5.1f|%08.2f', [Infinity, Number.NaN, -Infinity, Infinity], '+Inf|NaN| -Inf|    +Inf'],
    ['%#g|%#.3g|%#.0f', [1.0, 2.5, 3.0], '1.00000|2.50|3.'],
    ['%.1f', [1e22], '10000000000000000000000.0'],
    ['%.20f', [0.1], '0.10000000000000000555'],
  ]);
  it('an integral number accepts float verbs (JS has no separate int type)', () => {
    expect(printf('%.2f|%e', 3, 3)).toBe('3.00|3.000000e+00');
  });
});

describe('booleans, nil and composites', () => {
  table([
    ['%t|%v|%6t', [true, false, true], 'true|false|  true'],
    ['%v|%s|%d', [null, null, null], '<nil>|%!s(<nil>)|%!d(<nil>)'],
    ['%v', [[1, 'a', null]], '[1 a <nil>]'],
    ['%d', [[1, 2]], '[1 2]'],
    ['%s', [[1, 'a']], '[%!s(int=1) a]'],
    ['%q', [['a', 'b']], '["a" "b"]'],
    ['%3d', [[1, 2]], '[  1   2]'],
    ['%v', [{ b: [1], a: { c: null } }], 'map[a:map[c:<nil>] b:[1]]'],
    ['%#v', [{ b: 'x', a: 1 }], 'map[string]interface {}{"a":1, "b":"x"}'],
    [
      '%#v|%#v|%#v',
      [[1, 'a', null], 'q', 1.5],
      '[]interface {}{1, "a", interface {}(nil)}|"q"|1.5',
    ],
    [
      '%T|%T|%T|%T|%T|%T|%T',
      ['a', 1, 1.5, true, [], {}, null],
      'string|int|float64|bool|[]interface {}|map[string]interface {}|<nil>',
    ],
  ]);
});

describe("Go's in-band complaints", () => {
  table([
    ['%d', ['x'], '%!d(string=x)'],
    ['%s', [5], '%!s(int=5)'],
    ['%d', [1.5], '%!d(float64=1.5)'],
    ['%z', [1], '%!z(int=1)'],
    ['%t', [1], '%!t(int=1)'],
    ['%5d', ['ab'], '%!d(string=   ab)'],
    ['%d %d', [1], '1 %!d(MISSING)'],
    ['%d', [1, 'x', null], '1%!(EXTRA string=x, <nil>)'],
    ['100%', [], '100%!(NOVERB)'],
    ['100%%', [], '100%'],
    ['%[2]d %[1]d', [1, 2], '2 1'],
    ['%[2]d %d', [1, 2], '2 %!d(MISSING)'],
    ['%[3]d', [1], '%!d(BADINDEX)'],
    ['%[x]d', [1], '%!d(BADINDEX)'],
    ['%*d|%-*d', [5, 42, 4, 7], '   42|7   '],
    ['%.*f', [2, 1.23456], '1.23'],
    ['%*d', ['x', 1], '%!(BADWIDTH)1'],
  ]);
});
