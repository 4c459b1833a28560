// Decision 014: values from users reach shell text only through their printer.
import { describe, expect, it } from 'vitest';
import { renderTemplate, taint } from '../../../kernel/workflows/template/index.js';

const env = (v: string) => `$[${v}]`;

describe('tainted strings', () => {
  const data = {
    Task: {
      Title: taint('x"; rm -rf ~', env),
      Fields: { kind: taint('bug', env), empty: taint('', env) },
    },
    Steps: { plan: { Result: taint('line1\nline2', env) } },
    List: [taint('a b', env), 'plain'],
    Plain: 'author text',
  };

  it('print through their printer, never raw', () => {
    expect(renderTemplate('echo {{.Task.Title}}', data)).toBe('echo $[x"; rm -rf ~]');
    expect(renderTemplate('{{.Plain}}', data)).toBe('author text');
  });

  it('compare, test and measure as their plain value', () => {
    expect(renderTemplate('{{if eq .Task.Fields.kind "bug"}}fix{{else}}build{{end}}', data)).toBe(
      'fix',
    );
    expect(renderTemplate('{{if .Task.Fields.empty}}y{{else}}n{{end}}', data)).toBe('n');
    expect(renderTemplate('{{len .Task.Title}}', data)).toBe('12');
    expect(renderTemplate('{{if ne .Task.Fields.kind "feature"}}ok{{end}}', data)).toBe('ok');
  });

  it('stay tainted through functions and variables', () => {
    expect(renderTemplate('{{printf "%s-x" .Task.Fields.kind}}', data)).toBe('$[bug-x]');
    expect(renderTemplate('{{slug .Task.Title}}', data)).toBe('$[x-rm-rf]');
    expect(renderTemplate('{{$k := .Task.Fields.kind}}{{$k}}', data)).toBe('$[bug]');
    expect(renderTemplate('{{index .Task.Fields "kind"}}', data)).toBe('$[bug]');
    expect(renderTemplate('{{range .List}}[{{.}}]{{end}}', data)).toBe('[$[a b]][plain]');
  });

  it('taint a whole collection printed at once', () => {
    expect(renderTemplate('{{.List}}', data)).toBe('$[[a b plain]]');
  });

  it('refuse field access on a tainted string like on any string', () => {
    expect(() => renderTemplate('{{.Task.Title.Foo}}', data)).toThrow(
      /can't evaluate field Foo in type string/,
    );
  });
});
