import { describe, expect, it } from 'vitest';
import {
  checkTemplate,
  isTemplateError,
  MAX_TEMPLATE_DEPTH,
  parseTemplate,
  TemplateError,
} from '../../../lib/template/index.js';
import { render, renderError } from './helpers.js';

describe('parse errors: message, line, column', () => {
  it.each([
    // [source, line, col, detail]
    ['{{.X', 1, 1, 'unclosed action'],
    ['ok\n  {{ .X\n', 2, 3, 'unclosed action'],
    ['a\n  {{if .X}}b', 2, 3, 'unexpected EOF: {{if}} has no matching {{end}}'],
    ['{{range .}}{{with .}}x{{end}}', 1, 1, 'unexpected EOF: {{range}} has no matching {{end}}'],
    ['{{define "d"}}x', 1, 1, 'unexpected EOF: {{define}} has no matching {{end}}'],
    ['x\n{{end}}', 2, 1, 'unexpected {{end}}'],
    ['{{else}}', 1, 1, 'unexpected {{else}}'],
    ['x{{foo}}', 1, 4, 'function "foo" not defined'],
    ['line1\nline2 {{.X | nope}}', 2, 14, 'function "nope" not defined'],
    ['{{$x}}', 1, 3, 'undefined variable "$x"'],
    ['{{if}}{{end}}', 1, 5, 'missing value for if'],
    ['{{}}', 1, 3, 'missing value for command'],
    ['{{range $k, .}}{{end}}', 1, 13, 'range can only initialize variables'],
    ['{{$a, $b := 1}}', 1, 3, 'too many declarations in command'],
    ['{{.X .Y | 1}}', 1, 11, 'non executable command in pipeline stage 2'],
    ['{{(1}}', 1, 3, 'unclosed left paren'],
    ['{{1)}}', 1, 4, 'unexpected right paren'],
    ['{{ .X }', 1, 7, 'unexpected "}" in operand'],
    ['{{.X}', 1, 3, "bad character U+007D '}'"],
    ['{{.X-}}', 1, 3, "bad character U+002D '-'"],
    ['{{$x=1}}', 1, 3, "bad character U+003D '='"],
    ['{{a#}}', 1, 3, "bad character U+0023 '#'"],
    ['{{.X : 1}}', 1, 6, 'expected :='],
    ['{{\u0001}}', 1, 3, 'unrecognized character in action: U+0001'],
    ['{{if .X}}a{{else}}b{{else}}c{{end}}', 1, 20, 'expected end; found {{else}}'],
    ['{{template .X}}', 1, 12, 'unexpected ".X" in template clause'],
    ['{{define 1}}{{end}}', 1, 10, 'unexpected "1" in define clause'],
    ['{{end 1}}', 1, 7, 'unexpected "1" in end'],
    ['{{"a".X}}', 1, 3, 'unexpected . after term "\\"a\\""'],
    ['{{/* x */ .a}}', 1, 1, 'comment ends before closing delimiter'],
    ['{{/* open', 1, 1, 'unclosed comment'],
    ['{{printf "%s" "a very long string here" | nope}}', 1, 43, 'function "nope" not defined'],
    ['{{printf (1 | "x")}}', 1, 15, 'non executable command in pipeline stage 2'],
  ])('%j → %i:%i %s', (source, line, col, detail) => {
    const e = renderError(source);
    expect(e.kind).toBe('parse');
    expect(e.detail).toBe(detail);
    expect([e.line, e.col]).toEqual([line, col]);
    expect(e.message).toBe(`template: t:${line}:${col}: ${detail}`);
  });

  it('offset is the string index the line and column describe', () => {
    const source = 'ab\ncd {{nope}}';
    const e = renderError(source);
    expect(e.offset).toBe(source.indexOf('nope'));
    expect([e.line, e.col]).toEqual([2, 6]);
  });
  it('a long token is cut to ten characters in messages, like Go', () => {
    expect(renderError('{{define "x" "abcdefghijkl"}}{{end}}').detail).toBe(
      'unexpected "\\"abcdefghi"... in define clause',
    );
    expect(renderError('{{template "x" | y}}').detail).toBe('unexpected "|" in template clause');
  });
});

describe('execution errors: message, line, column', () => {
  it('names the template, position and node like Go', () => {
    const e = renderError('a\nb {{index .L 5}}', { L: [1] });
    expect(e.kind).toBe('exec');
    expect([e.line, e.col]).toEqual([2, 5]);
    expect(e.message).toBe(
      'template: t:2:5: executing "t" at <index .L 5>: error calling index: index out of range: 5',
    );
  });
  it('inside a definition, executing names the definition', () => {
    const e = renderError('{{define "d"}}{{.X.Y}}{{end}}{{template "d" .}}', { X: 's' });
    expect(e.message).toBe(
      'template: t:1:17: executing "d" at <.X.Y>: can\'t evaluate field Y in type string',
    );
  });
  it('a missing key points at the whole field chain', () => {
    const e = renderError('Title: {{.Task.Fields.NAME}}', { Task: { Fields: {} } });
    expect(e.message).toBe(
      'template: t:1:10: executing "t" at <.Task.Fields.NAME>: map has no entry for key "NAME"',
    );
    expect(e.offset).toBe(9);
  });
  it('a wrong argument count points at the function', () => {
    const e = renderError('{{ len }}');
    expect(e.message).toBe(
      'template: t:1:4: executing "t" at <len>: wrong number of args for len: want 1 got 0',
    );
  });
  it('an error in a piped stage names that stage', () => {
    const e = renderError('{{.N | printf "%d" | len | slug}}', { N: 1 });
    expect(e.detail).toBe('wrong type for value; expected string; got int');
    expect(e.message).toContain('at <slug>');
  });
});

describe('missingKey', () => {
  const data = { Task: { Fields: { kind: 'bug' } } };
  it.each([
    ['error', null],
    ['zero', ''],
    ['default', '<no value>'],
  ] as const)('%s', (missingKey, want) => {
    const source = '{{.Task.Fields.NAME}}';
    if (want === null) {
      expect(renderError(source, data, { missingKey }).detail).toBe(
        'map has no entry for key "NAME"',
      );
    } else {
      expect(render(source, data, { missingKey })).toBe(want);
    }
    // index never fails on a missing key: it yields the zero value.
    expect(render('[{{index .Task.Fields "NAME"}}]', data, { missingKey })).toBe('[]');
  });
  it('defaults to error', () => {
    expect(renderError('{{.Nope}}', {}).detail).toBe('map has no entry for key "Nope"');
  });
  it('no data at all', () => {
    expect(renderError('{{.X}}').detail).toBe('nil data; no entry for key "X"');
    expect(renderError('{{.X}}', null).detail).toBe('nil data; no entry for key "X"');
    expect(render('{{.X}}', undefined, { missingKey: 'default' })).toBe('<no value>');
  });
  it('default lets a chain run through missing keys', () => {
    expect(render('{{.A.B.C}}', {}, { missingKey: 'default' })).toBe('<no value>');
    expect(render('{{if .A.B}}y{{else}}n{{end}}', {}, { missingKey: 'default' })).toBe('n');
  });
  it('a present key holding null is not missing', () => {
    expect(render('{{.A}}', { A: null })).toBe('<no value>');
  });
});

describe('runaway guards', () => {
  it('recursion stops at the template depth limit', () => {
    const e = renderError('{{define "loop"}}{{template "loop" .}}{{end}}{{template "loop" .}}');
    expect(e.kind).toBe('exec');
    expect(e.detail).toBe(`exceeded maximum template depth (${MAX_TEMPLATE_DEPTH})`);
    expect(MAX_TEMPLATE_DEPTH).toBe(100);
  });
  it('recursion just under the limit still renders, even through nested blocks', () => {
    const list = Array.from({ length: MAX_TEMPLATE_DEPTH - 1 }, () => 'x');
    const simple =
      '{{define "R"}}{{if .}}{{index . 0}}{{template "R" (slice . 1)}}{{end}}{{end}}{{template "R" .}}';
    expect(render(simple, list)).toBe('x'.repeat(MAX_TEMPLATE_DEPTH - 1));
    const nested =
      '{{define "R"}}{{range .}}{{if .}}{{with .}}{{.}}{{template "R" (slice $ 1)}}{{end}}{{end}}{{break}}{{end}}{{end}}{{template "R" .}}';
    expect(render(nested, list)).toBe('x'.repeat(MAX_TEMPLATE_DEPTH - 1));
  });
  it('output can be capped', () => {
    const source = '{{range 100}}abcdefghij{{end}}';
    expect(render(source, undefined, { maxOutput: 1000 })).toHaveLength(1000);
    const e = renderError(source, undefined, { maxOutput: 999 });
    expect(e.kind).toBe('exec');
    expect(e.detail).toBe('output exceeds the limit of 999 characters');
  });
  it('deeply nested parentheses are a parse error, not a stack overflow', () => {
    const deep = `{{${'(print '.repeat(201)}1${')'.repeat(201)}}}`;
    expect(renderError(deep).detail).toBe('max expression depth exceeded');
    expect(render(`{{${'(print '.repeat(200)}1${')'.repeat(200)}}}`)).toBe('1');
  });
  it('deeply nested blocks are a parse error, not a stack overflow', () => {
    const deep = `${'{{if 1}}'.repeat(501)}x${'{{end}}'.repeat(501)}`;
    expect(renderError(deep).detail).toBe('max nesting depth exceeded');
    let list: unknown = ['x'];
    for (let i = 1; i < 500; i++) list = [list];
    expect(render(`${'{{range .}}'.repeat(500)}{{.}}${'{{end}}'.repeat(500)}`, list)).toBe('x');
  });
});

describe('API', () => {
  it('parse once, execute many times', () => {
    const t = parseTemplate('{{.A}}-{{len .L}}', { name: 'p' });
    expect(t.name).toBe('p');
    expect(t.source).toBe('{{.A}}-{{len .L}}');
    expect(t.execute({ A: 1, L: [] })).toBe('1-0');
    expect(t.execute({ A: 2, L: [1, 2] })).toBe('2-2');
    expect(() => t.execute({ L: [] })).toThrow(/map has no entry for key "A"/);
  });
  it('executions do not share variables', () => {
    const t = parseTemplate('{{$x := .}}{{range .}}{{$x = .}}{{end}}{{$x}}');
    expect(t.execute([1, 2])).toBe('2');
    expect(t.execute([3])).toBe('3');
  });
  it('parse errors are TemplateError of kind parse, with the default name', () => {
    let caught: unknown;
    try {
      parseTemplate('{{if}}');
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(TemplateError);
    expect(isTemplateError(caught)).toBe(true);
    const e = caught as TemplateError;
    expect(e.kind).toBe('parse');
    expect(e.templateName).toBe('template');
    expect(e.name).toBe('TemplateError');
    expect(e.message).toBe('template: template:1:5: missing value for if');
  });
  it('isTemplateError matches the brand, not the class', () => {
    expect(isTemplateError(new Error('x'))).toBe(false);
    expect(isTemplateError(null)).toBe(false);
    expect(isTemplateError('template: x')).toBe(false);
    expect(isTemplateError({ [Symbol.for('svc.workflows.template.error')]: true })).toBe(true);
  });
  it('checkTemplate returns the parse error or null, and executes nothing', () => {
    expect(checkTemplate('{{.Anything.Missing}}')).toBeNull();
    expect(checkTemplate('{{template "undefined"}}')).toBeNull();
    const e = checkTemplate('{{nope}}', { name: 'steps[1].prompt' });
    expect(e?.kind).toBe('parse');
    expect(e?.message).toBe('template: steps[1].prompt:1:3: function "nope" not defined');
    expect(checkTemplate('{{nope}}', { funcs: { nope: () => 1 } })).toBeNull();
  });
  it('rejects invalid options', () => {
    expect(() => parseTemplate('x', { missingKey: 'invalid' as 'error' })).toThrow(TypeError);
    expect(() => parseTemplate('x', { maxOutput: -1 })).toThrow(TypeError);
  });
});
