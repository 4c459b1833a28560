import { describe, expect, it } from 'vitest';
import { slug } from '../../../lib/template/index.js';
import { render, renderError } from './helpers.js';

// Expected outputs and messages are Go's (text/template funcs.go), except where a test says not.

type Case = readonly [source: string, data: unknown, want: string];

function table(cases: readonly Case[]) {
  it.each(cases)('%s', (source, data, want) => {
    expect(render(source, data)).toBe(want);
  });
}

function errors(cases: readonly (readonly [source: string, data: unknown, detail: string])[]) {
  it.each(cases)('%s fails', (source, data, detail) => {
    const e = renderError(source, data);
    expect(e.kind).toBe('exec');
    expect(e.detail).toBe(detail);
  });
}

describe('and, or, not', () => {
  table([
    ['{{and 1 0 2}}', undefined, '0'],
    ['{{and 1 2}}', undefined, '2'],
    ['{{and "" 1}}', undefined, ''],
    ['{{or 0 "" "x" "y"}}', undefined, 'x'],
    ['{{or 0 ""}}', undefined, ''],
    ['{{or .A .B}}', { A: [], B: 'b' }, 'b'],
    ['{{1 | and 2}}', undefined, '1'],
    ['{{0 | or 2}}', undefined, '2'],
    ['{{0 | or ""}}', undefined, '0'],
    ['{{not 0}} {{not "x"}} {{not .L}}', { L: [] }, 'true false true'],
    ['{{if and .A (not .B)}}yes{{end}}', { A: 1, B: 0 }, 'yes'],
  ]);

  it('and stops at the first false argument', () => {
    expect(render('{{and false (index .L 5)}}', { L: [] })).toBe('false');
  });
  it('or stops at the first true argument', () => {
    const boom = () => {
      throw new Error('evaluated');
    };
    expect(render('{{or "yes" (boom)}}', undefined, { funcs: { boom } })).toBe('yes');
  });
  errors([
    ['{{and}}', undefined, 'wrong number of args for and: want at least 1 got 0'],
    ['{{not 1 2}}', undefined, 'wrong number of args for not: want 1 got 2'],
  ]);
});

describe('comparisons', () => {
  table([
    ['{{eq 1 1}} {{eq 1 2}}', undefined, 'true false'],
    ['{{eq 1 2 3 1}}', undefined, 'true'],
    ['{{eq "a" "b" "c"}}', undefined, 'false'],
    ['{{eq .X "bug" "fix"}}', { X: 'fix' }, 'true'],
    ['{{eq true true}} {{eq true false}}', undefined, 'true false'],
    ['{{eq .X nil}} {{eq .X "a"}} {{eq nil nil}}', { X: null }, 'true false true'],
    ['{{eq .L nil}}', { L: [] }, 'false'],
    ['{{ne 1 2}} {{ne "a" "a"}}', undefined, 'true false'],
    ['{{lt 1 2}} {{lt 2 1}} {{lt 1.5 2}}', undefined, 'true false true'],
    ['{{le 2 2}} {{gt "b" "a"}} {{ge 1 2}}', undefined, 'true true false'],
    ['{{lt "B" "a"}}', undefined, 'true'],
    ['{{gt .A .B}}', { A: '\u{1F600}', B: '\uFFFF' }, 'true'],
  ]);
  it('JS numbers are one kind: an integer compares with a fraction (Go would refuse)', () => {
    expect(render('{{eq 2 2.0}} {{lt 1 1.5}}')).toBe('true true');
  });
  errors([
    [
      '{{eq "a" 1}}',
      undefined,
      'error calling eq: incompatible types for comparison: string and int',
    ],
    [
      '{{lt "1" 2}}',
      undefined,
      'error calling lt: incompatible types for comparison: string and int',
    ],
    ['{{lt true false}}', undefined, 'error calling lt: invalid type for comparison'],
    ['{{lt nil 1}}', undefined, 'error calling lt: invalid type for comparison'],
    ['{{gt .L 1}}', { L: [1] }, 'error calling gt: invalid type for comparison'],
    ['{{eq 1}}', undefined, 'error calling eq: missing argument for comparison'],
    ['{{eq .L .L}}', { L: [1, 2] }, 'error calling eq: non-comparable type [1 2]: []interface {}'],
    [
      '{{eq .L "x"}}',
      { L: [1] },
      'error calling eq: incompatible types for comparison: []interface {} and string',
    ],
    ['{{ne 1}}', undefined, 'wrong number of args for ne: want 2 got 1'],
  ]);
});

describe('len, index, slice', () => {
  table([
    ['{{len "héllo"}}', undefined, '6'],
    ['{{len .L}} {{len .M}}', { L: [1, 2, 3], M: { a: 1 } }, '3 1'],
    ['{{index .L 1}}', { L: ['a', 'b'] }, 'b'],
    ['{{index .M "a" 1 "k"}}', { M: { a: [0, { k: 'deep' }] } }, 'deep'],
    ['[{{index .M "missing"}}]', { M: { a: 1 } }, '[]'],
    ['{{index "abc" 1}}', undefined, '98'],
    ['{{index .L}}', { L: [1] }, '[1]'],
    ['{{slice "abcdef" 1 3}}', undefined, 'bc'],
    ['{{slice "abcdef" 2}}', undefined, 'cdef'],
    ['{{slice .L 1}} {{slice .L}} {{slice .L 0 1 2}}', { L: ['a', 'b', 'c'] }, '[b c] [a b c] [a]'],
  ]);
  errors([
    ['{{len 3}}', undefined, 'error calling len: len of type int'],
    ['{{len .X}}', { X: null }, 'error calling len: len of nil pointer'],
    ['{{index .L 5}}', { L: [1] }, 'error calling index: index out of range: 5'],
    ['{{index .L 1}}', { L: [1] }, 'error calling index: reflect: slice index out of range'],
    ['{{index .L -1}}', { L: [1] }, 'error calling index: index out of range: -1'],
    [
      '{{index .L "x"}}',
      { L: [1] },
      'error calling index: cannot index slice/array with type string',
    ],
    [
      '{{index .L 1.5}}',
      { L: [1] },
      'error calling index: cannot index slice/array with type float64',
    ],
    ['{{index nil 1}}', undefined, 'error calling index: index of untyped nil'],
    ['{{index .M 1}}', { M: {} }, 'error calling index: value has type int; should be string'],
    ['{{index .M "a" "b"}}', { M: { a: null } }, 'error calling index: index of nil pointer'],
    ['{{index 5 1}}', undefined, "error calling index: can't index item of type int"],
    ['{{slice .L 2 1}}', { L: [1, 2, 3] }, 'error calling slice: invalid slice index: 2 > 1'],
    ['{{slice .L 0 4}}', { L: [1, 2, 3] }, 'error calling slice: index out of range: 4'],
    ['{{slice "abc" 0 1 2}}', undefined, 'error calling slice: cannot 3-index slice a string'],
    ['{{slice 3 1}}', undefined, "error calling slice: can't slice item of type int"],
    ['{{slice .L 1 2 3 4}}', { L: [] }, 'error calling slice: too many slice indexes: 4'],
  ]);
});

describe('print, println, printf', () => {
  table([
    ['{{print "a" "b" 1 2 "c" 3}}', undefined, 'ab1 2c3'],
    ['{{print}}', undefined, ''],
    ['{{print nil}}', undefined, '<nil>'],
    ['{{println "a" 1}}', undefined, 'a 1\n'],
    ['{{printf "%s=%d" "k" 7}}', undefined, 'k=7'],
    ['{{.N | printf "%03d"}}', { N: 7 }, '007'],
  ]);
  errors([
    ['{{printf 1}}', undefined, 'expected string; found 1'],
    ['{{printf .N}}', { N: 1 }, 'wrong type for value; expected string; got int'],
    ['{{printf nil}}', undefined, 'cannot assign nil to string'],
    ['{{printf}}', undefined, 'wrong number of args for printf: want at least 1 got 0'],
  ]);
});

describe('html, js, urlquery', () => {
  table([
    [
      `{{html "<a href='x'>&\\"</a>"}}`,
      undefined,
      '&lt;a href=&#39;x&#39;&gt;&amp;&#34;&lt;/a&gt;',
    ],
    ['{{html "a" 1 "b"}}', undefined, 'a1b'],
    ['{{html 1 2}}', undefined, '1 2'],
    ['{{"<b>" | html}}', undefined, '&lt;b&gt;'],
    [
      `{{js "a'b\\"c<d>&=\\\\\\n\\x01"}}`,
      undefined,
      'a\\\'b\\"c\\u003Cd\\u003E\\u0026\\u003D\\\\\\u000A\\u0001',
    ],
    ['{{js "é\\u200b"}}', undefined, 'é\\u200B'],
    ['{{urlquery "a b&c=d/é~_.-"}}', undefined, 'a+b%26c%3Dd%2F%C3%A9~_.-'],
  ]);
  it('a nil argument renders as <no value>, as Go evalArgs does', () => {
    expect(render('{{html .X}}', {}, { missingKey: 'default' })).toBe('&lt;no value&gt;');
  });
});

describe('call', () => {
  const data = {
    Add: (a: unknown, b: unknown) => (a as number) + (b as number),
    Boom: () => {
      throw new Error('boom');
    },
    S: 'not a function',
  };
  table([
    ['{{call .Add 2 3}}', data, '5'],
    ['{{3 | call .Add 4}}', data, '7'],
  ]);
  errors([
    ['{{call .Boom}}', data, 'error calling call: boom'],
    ['{{call .S}}', data, 'error calling call: non-function .S of type string'],
    ['{{call .N}}', { N: null }, 'error calling call: call of nil'],
  ]);
});

describe('slug', () => {
  it.each([
    ['Hello, World!', 'hello-world'],
    ['  --Fix   the BUG__now--  ', 'fix-the-bug-now'],
    ['Ünïcode Títle', 'n-code-t-tle'],
    ['İstanbul', 'istanbul'],
    ['!!!', ''],
    ['', ''],
    ['a'.repeat(45), 'a'.repeat(40)],
    [`${'a'.repeat(39)} b`, 'a'.repeat(39)],
    [`${'a'.repeat(38)}--b`, `${'a'.repeat(38)}-b`],
  ])('%j → %j', (input, want) => {
    expect(slug(input)).toBe(want);
    expect(render('{{slug .}}', input)).toBe(want);
  });
  it('takes exactly one string', () => {
    expect(renderError('{{slug 1}}').detail).toBe('expected string; found 1');
    expect(renderError('{{slug .}}', 5).detail).toBe(
      'wrong type for value; expected string; got int',
    );
    expect(renderError('{{slug "a" "b"}}').detail).toBe(
      'wrong number of args for slug: want 1 got 2',
    );
  });
});

describe('caller functions (opts.funcs)', () => {
  const funcs = {
    upper: (s: unknown) => String(s).toUpperCase(),
    join: (...parts: unknown[]) => parts.join('+'),
    fail: () => {
      throw new Error('nope');
    },
    later: () => Promise.resolve('x'),
  };
  it('receive evaluated arguments, the piped value last', () => {
    expect(
      render('{{.X | upper}} {{join 1 .X "z"}} {{"p" | join 1}}', { X: 'ab' }, { funcs }),
    ).toBe('AB 1+ab+z 1+p');
  });
  it('may be used as arguments', () => {
    expect(render('{{printf "%s" (upper "q")}}', undefined, { funcs })).toBe('Q');
  });
  it('a throw is an execution error naming the function', () => {
    const e = renderError('{{fail}}', undefined, { funcs });
    expect(e.kind).toBe('exec');
    expect(e.detail).toBe('error calling fail: nope');
  });
  it('must be synchronous', () => {
    expect(renderError('{{later}}', undefined, { funcs }).detail).toBe(
      'error calling later: returned a Promise; template functions must be synchronous',
    );
  });
  it('an unknown function is a parse error', () => {
    const e = renderError('{{.X | nope}}', { X: 1 });
    expect(e.kind).toBe('parse');
    expect(e.detail).toBe('function "nope" not defined');
  });
  it('may replace a builtin', () => {
    expect(render('{{len "abc"}}', undefined, { funcs: { len: () => 42 } })).toBe('42');
  });
  it('a function named break turns the keyword into a call', () => {
    expect(render('{{break}}', undefined, { funcs: { break: () => 'called' } })).toBe('called');
  });
  it('names must be identifiers and values functions', () => {
    expect(() => render('x', undefined, { funcs: { 'a-b': () => 1 } })).toThrow(TypeError);
    const notFn = { f: 'x' } as unknown as Record<string, () => unknown>;
    expect(() => render('x', undefined, { funcs: notFn })).toThrow(TypeError);
  });
});
