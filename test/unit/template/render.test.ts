import { describe, expect, it } from 'vitest';
import { render, renderError } from './helpers.js';

// Expected outputs are what Go's text/template prints for the same template and data.

type Case = readonly [name: string, source: string, data: unknown, want: string];

function table(cases: readonly Case[]) {
  it.each(cases)('%s', (_name, source, data, want) => {
    expect(render(source, data)).toBe(want);
  });
}

describe('text, actions, trim markers and comments', () => {
  table([
    ['plain text', 'just text', undefined, 'just text'],
    ['field', 'hello {{.Name}}!', { Name: 'world' }, 'hello world!'],
    ['dot', '[{{.}}]', 'x', '[x]'],
    ['trim both sides', 'a  {{- "b" -}}  c', undefined, 'abc'],
    ['trim eats newlines and tabs', 'a\n\t {{- "b" -}} \n\tc', undefined, 'abc'],
    ['minus without space is a number', 'a {{-1}} b', undefined, 'a -1 b'],
    ['trim left only', 'a {{- "b"}} c', undefined, 'ab c'],
    ['trim right only', 'a {{"b" -}} c', undefined, 'a bc'],
    ['comment', 'a{{/* note */}}b', undefined, 'ab'],
    ['trimmed comment', 'a {{- /* note */ -}} b', undefined, 'ab'],
    ['multi-line comment', 'a{{/* one\ntwo }} */}}b', undefined, 'ab'],
    ['action spanning lines', '{{ printf "%s-%s"\n  "a"\n  "b" }}', undefined, 'a-b'],
    ['adjacent actions', '{{1}}{{2}}', undefined, '12'],
    ['declaration prints nothing', '{{$x := 5}}', undefined, ''],
    ['braces in text', 'a } b { c', undefined, 'a } b { c'],
  ]);
});

describe('pipelines and operands', () => {
  table([
    ['piped value is the last argument', '{{"x" | printf "%s-%s" "a"}}', undefined, 'a-x'],
    ['multi-stage pipe', '{{.S | printf "%s!" | len}}', { S: 'abc' }, '4'],
    ['parenthesised argument', '{{printf "%s" (print "a" "b")}}', undefined, 'ab'],
    ['parenthesised pipeline', '{{(printf "%d" 12) | len}}', undefined, '2'],
    ['field of a parenthesised pipeline', '{{(index .L 1).Name}}', { L: [{}, { Name: 'n' }] }, 'n'],
    ['field chain', '{{.A.B.C}}', { A: { B: { C: 'deep' } } }, 'deep'],
    ['root variable', '{{range .L}}{{$.Top}}{{.}}{{end}}', { L: [1, 2], Top: '-' }, '-1-2'],
    ['variable field chain', '{{$t := .T}}{{$t.A.B}}', { T: { A: { B: 'ok' } } }, 'ok'],
    ['$ field chain', '{{with .X}}{{$.Y.Z}}{{end}}', { X: 1, Y: { Z: 'z' } }, 'z'],
    ['function as argument is called', '{{len (print 123)}}', undefined, '3'],
  ]);
});

describe('variables and scope', () => {
  table([
    ['declare and use', '{{$x := "v"}}{{$x}}', undefined, 'v'],
    [
      'assign updates the outer variable',
      '{{$x := 1}}{{if true}}{{$x = 2}}{{end}}{{$x}}',
      undefined,
      '2',
    ],
    [
      'shadowing ends with the block',
      '{{$x := 1}}{{with 2}}{{$x := .}}{{$x}}{{end}}{{$x}}',
      undefined,
      '21',
    ],
    ['pipeline variable visible in else', '{{if $x := .A}}yes{{else}}{{$x}}{{end}}', { A: 0 }, '0'],
    ['with binds dot and variable', '{{with $v := .A}}{{$v}}{{.}}{{end}}', { A: 'a' }, 'aa'],
    [
      'range variables per iteration',
      '{{range $i, $e := .L}}{{$i}}{{$e}}{{end}}',
      { L: ['a', 'b'] },
      '0a1b',
    ],
    [
      'range assigning outer variables',
      '{{$i := 0}}{{$e := 0}}{{range $i, $e = .L}}{{end}}{{$i}}{{$e}}',
      { L: ['a', 'b'] },
      '1b',
    ],
    [
      'template call starts with only $',
      '{{define "T"}}{{$}}{{end}}{{$x := 1}}{{template "T" "dot"}}',
      undefined,
      'dot',
    ],
  ]);

  it.each([
    ['used after its block', '{{if true}}{{$y := 1}}{{end}}{{$y}}', 'undefined variable "$y"'],
    ['range variable after range', '{{range $i := .}}{{end}}{{$i}}', 'undefined variable "$i"'],
    [
      'outer variable inside define',
      '{{$x := 1}}{{define "T"}}{{$x}}{{end}}',
      'undefined variable "$x"',
    ],
    ['never declared', '{{$nope}}', 'undefined variable "$nope"'],
  ])('%s is a parse error', (_name, source, detail) => {
    const e = renderError(source);
    expect(e.kind).toBe('parse');
    expect(e.detail).toBe(detail);
  });
});

describe('if, else if, with', () => {
  const chain = '{{if .A}}a{{else if .B}}b{{else}}c{{end}}';
  table([
    ['if true', chain, { A: 1, B: 1 }, 'a'],
    ['else if', chain, { A: 0, B: 1 }, 'b'],
    ['else', chain, { A: 0, B: 0 }, 'c'],
    ['if without else, false', '{{if .A}}x{{end}}', { A: '' }, ''],
    ['with sets dot', '{{with .A}}<{{.}}>{{end}}', { A: 'v' }, '<v>'],
    ['with else', '{{with .A}}{{.}}{{else}}none{{end}}', { A: [] }, 'none'],
    [
      'else with',
      '{{with .A}}a{{else with .B}}b:{{.}}{{else}}none{{end}}',
      { A: 0, B: 'x' },
      'b:x',
    ],
    [
      'else with falls through',
      '{{with .A}}a{{else with .B}}b{{else}}none{{end}}',
      { A: 0, B: 0 },
      'none',
    ],
    [
      'long else-if chain',
      '{{if eq . 1}}one{{else if eq . 2}}two{{else if eq . 3}}three{{end}}',
      3,
      'three',
    ],
  ]);
});

describe('truthiness', () => {
  const t = '{{if .}}T{{else}}F{{end}}';
  it.each([
    [false, 'F'],
    [0, 'F'],
    [null, 'F'],
    [undefined, 'F'],
    ['', 'F'],
    [[], 'F'],
    [{}, 'F'],
    [true, 'T'],
    [1, 'T'],
    [-1, 'T'],
    [0.5, 'T'],
    ['0', 'T'],
    ['false', 'T'],
    [[0], 'T'],
    [{ a: 0 }, 'T'],
    [() => 0, 'T'],
  ])('%j is %s', (value, want) => {
    expect(render(t, value)).toBe(want);
  });
});

describe('range', () => {
  table([
    ['array', '{{range .}}[{{.}}]{{end}}', ['a', 'b'], '[a][b]'],
    ['empty array takes else', '{{range .}}x{{else}}empty{{end}}', [], 'empty'],
    ['nil takes else', '{{range .L}}x{{else}}empty{{end}}', { L: null }, 'empty'],
    [
      'map in sorted key order',
      '{{range $k, $v := .}}{{$k}}={{$v}};{{end}}',
      { b: 2, c: 3, a: 1 },
      'a=1;b=2;c=3;',
    ],
    ['map, one variable is the value', '{{range $v := .}}{{$v}}{{end}}', { b: 2, a: 1 }, '12'],
    ['map, dot is the value', '{{range .}}{{.}}{{end}}', { z: 'Z', y: 'Y' }, 'YZ'],
    ['empty map takes else', '{{range .}}x{{else}}none{{end}}', {}, 'none'],
    ['integer (Go 1.22)', '{{range 3}}{{.}}{{end}}', undefined, '012'],
    ['integer with a variable', '{{range $i := .}}{{$i}},{{end}}', 3, '0,1,2,'],
    ['zero integer takes else', '{{range 0}}x{{else}}none{{end}}', undefined, 'none'],
    ['negative integer takes else', '{{range .}}x{{else}}none{{end}}', -2, 'none'],
    ['break', '{{range .}}{{if eq . 3}}{{break}}{{end}}{{.}}{{end}}', [1, 2, 3, 4], '12'],
    ['continue', '{{range .}}{{if eq . 2}}{{continue}}{{end}}{{.}}{{end}}', [1, 2, 3], '13'],
    [
      'break in a nested range leaves the outer running',
      '{{range .}}{{range .}}{{if eq . 2}}{{break}}{{end}}{{.}}{{end}};{{end}}',
      [[1, 2, 3], [1]],
      '1;1;',
    ],
    [
      'continue from an inner else reaches the outer loop',
      '{{range .}}{{range .}}{{else}}{{continue}}{{end}}x{{end}}',
      [[], []],
      '',
    ],
    [
      'break in an inner else only ends the inner range (as Go)',
      '{{range .}}{{range .}}{{else}}{{break}}{{end}}x{{end}}',
      [[], []],
      'xx',
    ],
    [
      'nested ranges and $',
      '{{range $a := .A}}{{range $.B}}{{$a}}{{.}} {{end}}{{end}}',
      { A: [1, 2], B: ['x', 'y'] },
      '1x 1y 2x 2y ',
    ],
  ]);

  it('cannot iterate a string', () => {
    expect(renderError('{{range .}}{{end}}', 'hello').detail).toBe(
      "range can't iterate over hello",
    );
  });
  it('an integer takes one variable only', () => {
    expect(renderError('{{range $i, $e := 3}}{{end}}').detail).toBe(
      "can't use 3 to iterate over more than one variable",
    );
  });
  it.each([
    ['{{break}}', '{{break}} outside {{range}}'],
    ['{{if true}}{{continue}}{{end}}', '{{continue}} outside {{range}}'],
    ['{{range .}}{{else}}{{break}}{{end}}', '{{break}} outside {{range}}'],
    ['{{range .}}{{block "b" .}}{{break}}{{end}}{{end}}', '{{break}} outside {{range}}'],
  ])('%s is a parse error', (source, detail) => {
    expect(renderError(source).detail).toBe(detail);
  });
});

describe('define, template, block', () => {
  table([
    [
      'define and call',
      '{{define "T"}}Hello {{.}}{{end}}{{template "T" "x"}}',
      undefined,
      'Hello x',
    ],
    [
      'call without a pipeline has no dot',
      '{{define "T"}}[{{.}}]{{end}}{{template "T"}}',
      'ignored',
      '[<no value>]',
    ],
    ['definitions print nothing', '{{define "T"}}x{{end}}', undefined, ''],
    ['block renders its body', '{{block "B" .}}default {{.}}{{end}}', 'd', 'default d'],
    ['called before it is defined', '{{template "T" .}}{{define "T"}}<{{.}}>{{end}}', 1, '<1>'],
    [
      'recursion',
      '{{define "R"}}{{if .}}{{index . 0}}{{template "R" (slice . 1)}}{{end}}{{end}}{{template "R" .}}',
      ['a', 'b', 'c'],
      'abc',
    ],
    ['raw string name', '{{define `T`}}t{{end}}{{template `T`}}', undefined, 't'],
  ]);

  it('an undefined template fails at execution, as in Go', () => {
    const e = renderError('{{template "nope"}}');
    expect(e.kind).toBe('exec');
    expect(e.detail).toBe('template "nope" not defined');
  });
  it('two non-empty definitions of one name are a parse error', () => {
    const e = renderError('{{define "a"}}x{{end}}{{define "a"}}y{{end}}');
    expect(e.detail).toBe('multiple definition of template "a"');
  });
  it('an empty definition may be replaced', () => {
    expect(render('{{define "a"}} {{end}}{{define "a"}}y{{end}}{{template "a"}}')).toBe('y');
  });
  it('define is only allowed at top level', () => {
    expect(renderError('{{if true}}{{define "x"}}{{end}}{{end}}').detail).toBe(
      'unexpected <define> in command',
    );
  });
  it('block needs a pipeline', () => {
    expect(renderError('{{block "b"}}x{{end}}').detail).toBe('missing value for block clause');
  });
});

describe('literals', () => {
  table([
    ['string escapes', '{{"a\\tb\\u00e9\\x41\\101\\\\\\""}}', undefined, 'a\tbéAA\\"'],
    ['byte escapes form UTF-8', '{{"\\xc3\\xa9"}}', undefined, 'é'],
    ['raw string', '{{`a\\nb`}}', undefined, 'a\\nb'],
    ['raw string spans lines, drops CR', '{{`a\r\nb`}}', undefined, 'a\nb'],
    ['char constant is an int', "{{'a'}}", undefined, '97'],
    ['escaped char constant', "{{'\\n'}} {{'\\''}}", undefined, '10 39'],
    ['hex, octal, binary', '{{0x1F}} {{0o17}} {{017}} {{0b101}}', undefined, '31 15 15 5'],
    ['underscores and signs', '{{1_000}} {{-5}} {{+5}} {{0x_ff}}', undefined, '1000 -5 5 255'],
    ['floats', '{{1.5}} {{.5}} {{1e-7}} {{0x1p-2}} {{2.50}}', undefined, '1.5 0.5 1e-07 0.25 2.5'],
    ['booleans', '{{true}} {{false}}', undefined, 'true false'],
  ]);

  it.each([
    ['{{08}}', 'integer overflow: "08"'],
    ['{{99999999999999999999}}', 'integer overflow: "99999999999999999999"'],
    ['{{1__0}}', 'illegal number syntax: "1__0"'],
    ['{{3k}}', 'bad number syntax: "3k"'],
    ['{{1i}}', 'complex numbers are not supported'],
    ['{{"abc}}', 'unterminated quoted string'],
    ['{{`abc}}', 'unterminated raw quoted string'],
    ["{{'a}}", 'unterminated character constant'],
    ['{{"\\q"}}', 'invalid syntax'],
    ["{{'ab'}}", "malformed character constant: 'ab'"],
  ])('%s', (source, detail) => {
    const e = renderError(source);
    expect(e.kind).toBe('parse');
    expect(e.detail).toBe(detail);
  });

  it('an integer beyond int64 but within uint64 fails when used', () => {
    const e = renderError('{{9223372036854775808}}');
    expect(e.kind).toBe('exec');
    expect(e.detail).toBe('9223372036854775808 overflows int');
  });
  it('a constant takes no arguments', () => {
    expect(renderError('{{"a" .X}}').detail).toBe('can\'t give argument to non-function "a"');
  });
  it('nil is not a command', () => {
    expect(renderError('{{nil}}').detail).toBe('nil is not a command');
  });
});

describe('printing values like fmt %v', () => {
  table([
    ['integer', '{{.}}', 42, '42'],
    ['negative zero prints as an int', '{{.}}', -0, '0'],
    ['float', '{{.}}', 0.1 + 0.2, '0.30000000000000004'],
    ['large float uses an exponent', '{{.}}', 1234567.5, '1.2345675e+06'],
    ['small float uses an exponent', '{{.}}', 0.00001, '1e-05'],
    ['integral value beyond int64 is a float', '{{.}}', 1e21, '1e+21'],
    [
      'infinity and NaN',
      '{{.A}} {{.B}} {{.C}}',
      { A: Infinity, B: -Infinity, C: Number.NaN },
      '+Inf -Inf NaN',
    ],
    ['booleans', '{{.}}', true, 'true'],
    ['array', '{{.}}', ['a', 1, null, true], '[a 1 <nil> true]'],
    ['nested array', '{{.}}', [[1, 2], []], '[[1 2] []]'],
    ['map with sorted keys', '{{.}}', { b: 2, a: [1], c: { d: 'x' } }, 'map[a:[1] b:2 c:map[d:x]]'],
    ['null field', '{{.X}}', { X: null }, '<no value>'],
    ['no data', '{{.}}', undefined, '<no value>'],
    ['nil inside print', '{{print .X}}', { X: null }, '<nil>'],
  ]);

  it('a function value cannot be printed', () => {
    expect(renderError('{{.F}}', { F: () => 1 }).detail).toBe(
      "can't print {{.F}} of type func(...interface {}) interface {}",
    );
  });
});

describe('fields and maps', () => {
  it.each([
    ['string', 's', "can't evaluate field B in type string"],
    ['int', 5, "can't evaluate field B in type int"],
    ['float', 1.5, "can't evaluate field B in type float64"],
    ['bool', true, "can't evaluate field B in type bool"],
    ['array', [1], "can't evaluate field B in type []interface {}"],
    ['null', null, 'nil pointer evaluating interface {}.B'],
  ])('a field on a %s is an error', (_name, value, detail) => {
    expect(renderError('{{.A.B}}', { A: value }).detail).toBe(detail);
  });

  it('only own keys count: no prototype members', () => {
    expect(renderError('{{.constructor}}', {}).detail).toBe(
      'map has no entry for key "constructor"',
    );
    expect(renderError('{{.length}}', { L: [] }).detail).toBe('map has no entry for key "length"');
  });
  it('a map value is not a method', () => {
    expect(renderError('{{.M.k 1}}', { M: { k: 'v' } }).detail).toBe(
      'k is not a method but has arguments',
    );
    expect(renderError('{{1 | .M}}', { M: {} }).detail).toBe('M is not a method but has arguments');
  });
  it('a function-valued field is not called without call', () => {
    expect(render('{{if .F}}set{{end}}', { F: () => 'x' })).toBe('set');
  });
});
