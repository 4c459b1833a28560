// Decision 014: values from users reach shell text only through their printer.
import { describe, expect, it } from 'vitest';
import { renderTemplate, taint, taintTree } from '../../../lib/template/index.js';

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

// Issue 17 problems 2–3 (decision 185): keys are text too, and depth is no hiding place.
describe('tainted keys and deep values', () => {
  const mark = (v: string) => `$[${v}]`;
  const deep = (n: number, leaf: unknown): unknown => {
    let v = leaf;
    for (let i = 0; i < n; i++) v = { k: v };
    return v;
  };
  const data = (event: unknown) =>
    taintTree(
      { Event: event, Plain: { own: 1 } },
      { printer: mark, plainKeys: (p) => p === '' || p === 'Plain' },
    );

  it('print a map key ranged over through the printer, never raw', () => {
    const d = data({ '$(touch x)': 1, '`id`': 'v' });
    expect(renderTemplate('{{range $k, $v := .Event}}{{$k}} {{end}}', d)).toBe(
      '$[$(touch x)] $[`id`] ',
    );
    expect(renderTemplate('{{range $k, $v := .Event}}{{printf "%s=%v" $k $v}};{{end}}', d)).toBe(
      '$[$(touch x)=1];$[`id`=v];',
    );
  });

  it('taint a map printed whole even when no value is a string', () => {
    const d = data({ '$(touch x)': 1 });
    expect(renderTemplate('{{.Event}}', d)).toBe('$[map[$(touch x):1]]');
    expect(renderTemplate('{{printf "%v" .Event}}', d)).toBe('$[map[$(touch x):1]]');
    expect(renderTemplate('{{range $k, $v := .Plain}}{{$k}}{{end}}', d)).toBe('own');
  });

  it('protect a value nested deeper than any fixed limit', () => {
    for (const depth of [9, 20, 200]) {
      const d = data(deep(depth, '$(touch x)'));
      const out = renderTemplate('{{.Event.k.k.k.k.k.k.k.k.k}}', d);
      expect(out.startsWith('$['), `${depth}`).toBe(true);
      expect(renderTemplate('{{.Event}}', d).startsWith('$['), `${depth}`).toBe(true);
    }
    // Too deep to print at all is an execution error naming no value, never raw text.
    const huge = data(deep(10_000, '$(touch x)'));
    expect(() => renderTemplate('{{.Event}}', huge)).toThrow(/too deep/);
    expect(() => renderTemplate('{{printf "%v" .Event.k}}', huge)).toThrow(/call stack/);
    const d = data(deep(12, 7));
    // Numbers print as they are, but the keys around them are someone else's.
    expect(renderTemplate('{{.Event}}', d).startsWith('$[map[k:')).toBe(true);
  });

  it('keep what index and slice hand back tainted, strings and keys alike', () => {
    const d = data({ a: { b: '$(touch x)', '$(y)': 2 }, list: [{ c: '`z`' }] });
    expect(renderTemplate('{{(index .Event "a").b}}', d)).toBe('$[$(touch x)]');
    expect(renderTemplate('{{range $k, $v := index .Event "a"}}{{$k}};{{end}}', d)).toBe(
      '$[$(y)];$[b];',
    );
    expect(renderTemplate('{{range slice .Event.list 0 1}}{{.c}}{{end}}', d)).toBe('$[`z`]');
    expect(renderTemplate('{{with index .Event.list 0}}{{.c}}{{end}}', d)).toBe('$[`z`]');
  });

  it('copy a __proto__ key as a key, not as the prototype', () => {
    const event = JSON.parse('{"__proto__":{"polluted":"$(touch x)"}}') as unknown;
    const d = data(event) as { Event: Record<string, unknown> };
    expect(Object.keys(d.Event)).toEqual(['__proto__']);
    expect(renderTemplate('{{range $k, $v := .Event}}{{$k}}{{end}}', d)).toBe('$[__proto__]');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
