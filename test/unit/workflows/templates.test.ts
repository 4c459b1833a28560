// Issue 3 point 4: templates are parsed at load with the Go text/template engine; a parse error is
// a finding at the key, on the file line of the error, with the template's line and column. The
// template context types (decision 026) render the built-in prompts.
import { describe, expect, it } from 'vitest';
import {
  BUILTIN_WORKFLOWS,
  NO_LOOP,
  type TemplateContext,
  validateWorkflowText,
} from '../../../kernel/workflows/index.js';
import { collectTemplates } from '../../../kernel/workflows/templates.js';
import { renderTemplate } from '../../../lib/template/index.js';
import { check, options, yaml } from './support.js';

describe('load-time template checks', () => {
  it('point at the line inside a block scalar and name line and column', async () => {
    const r = await check(
      yaml(
        'name: t',
        'steps:',
        '  - id: a',
        '    type: agent',
        '    prompt: |',
        '      Fix {{.Task.Title}}.',
        '',
        '      {{if eq .Task.Fields.kind "bug"}}a bug{{else}}a feature',
        '      done {{ .Task.Title | printf "%q" }}',
      ),
    );
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({ path: 'steps[0].prompt', code: 'template_syntax' });
    expect(r.errors[0]?.message).toMatch(/line \d+, column \d+: unexpected EOF/);
    expect(r.errors[0]?.line).toBeGreaterThanOrEqual(8);
  });

  it('point at the line of a plain scalar', async () => {
    const r = await check(
      yaml(
        'name: t',
        'steps:',
        '  - type: command',
        '    run: echo {{.Task.Title',
        '    check: "ok"',
      ),
    );
    expect(r.errors.map((f) => [f.path, f.code, f.line])).toEqual([
      ['steps[0].run', 'template_syntax', 4],
    ]);
    expect(r.errors[0]?.message).toContain('line 1, column');
  });

  it('accept the language: pipelines, comparisons, range over .Steps, slug, index, len, printf', async () => {
    const r = await check(
      yaml(
        'name: t',
        'steps:',
        '  - type: agent',
        '    prompt: >-',
        '      {{range $id, $s := .Steps}}{{$id}}={{$s.Status}} {{end}}',
        '      {{if and (eq .Task.Fields.kind "bug") (not (eq .Loop.Item ""))}}x{{end}}',
        '      {{.Task.Title | slug}} {{index .Task.Fields "x"}} {{len .Conflicts}} {{printf "%d" .Task.ID}}',
        '      {{if or (lt .Step.Attempt 2) (gt .Iteration 3) (ne .Host.OS "windows")}}y{{end}}',
      ),
    );
    expect(r.errors).toEqual([]);
  });

  it('refuse functions the engine does not know', async () => {
    const r = await check(
      yaml('name: t', 'steps:', '  - type: manual', '    instructions: "{{ upper .Task.Title }}"'),
    );
    expect(r.errors.map((f) => f.code)).toEqual(['template_syntax']);
    expect(r.errors[0]?.message).toMatch(/function "upper" not defined/);
  });

  it('find template strings by the paths step types declare', () => {
    const found = collectTemplates(
      {
        env: { A: 'a', B: 'b' },
        lanes: [{ if: 'x', fields: { f: 'y', n: 3 } }, { id: 'z' }],
        for_each: ['p', 'q'],
        if: 'g',
      },
      ['env.*', 'lanes[].if', 'lanes[].fields.*', 'for_each', 'for_each[]', 'if', 'missing'],
    );
    expect(found.map((t) => [t.path.join('/'), t.source])).toEqual([
      ['env/A', 'a'],
      ['env/B', 'b'],
      ['lanes/0/if', 'x'],
      ['lanes/0/fields/f', 'y'],
      ['for_each/0', 'p'],
      ['for_each/1', 'q'],
      ['if', 'g'],
    ]);
  });
});

const context: TemplateContext = {
  Task: {
    ID: 7,
    Title: 'Add dark mode',
    Description: 'Users asked for it.',
    Prompt: 'Keep the contrast ratio above 4.5.',
    Fields: { workflow_name: 'review' },
    BaseBranch: 'main',
    BranchName: 'svc/7-add-dark-mode',
  },
  Project: { ID: 1, Name: 'app', Path: '/src/app', DefaultBranch: 'main' },
  Workflow: { Name: 'adhoc', Description: '' },
  Step: { ID: 'run', Name: 'run', Index: 0, Attempt: 1 },
  Steps: { plan: { Status: 'succeeded', Result: 'ok', ExitCode: 0 } },
  Loop: NO_LOOP,
  Item: '',
  Iteration: 0,
  Host: { OS: 'linux', Arch: 'amd64' },
  Worktree: { Path: '/data/worktrees/7' },
  LastFailure: { Reason: '', Output: '' },
  Conflicts: [],
  Event: {},
};

describe('template context', () => {
  it('renders every built-in prompt, braces of the format reference kept literal', async () => {
    const opts = await options();
    for (const b of BUILTIN_WORKFLOWS) {
      const def = validateWorkflowText(b.text, opts).definition;
      for (const step of def?.steps ?? []) {
        const text = renderTemplate(step.prompt as string, context);
        expect(text, b.name).toContain('Users asked for it.');
        expect(text).not.toContain('<no value>');
        if (b.name !== 'adhoc') expect(text).toContain('{{.Task.Title}}');
      }
    }
  });

  it('gives adhoc’s agent the title, the description and the prompt (decision 198)', async () => {
    const adhoc = BUILTIN_WORKFLOWS.find((b) => b.name === 'adhoc');
    const def = validateWorkflowText(adhoc?.text ?? '', await options()).definition;
    const text = renderTemplate(def?.steps[0]?.prompt as string, context);
    expect(text).toContain(
      'Task: Add dark mode\n\nUsers asked for it.\n\nKeep the contrast ratio above 4.5.',
    );
    const none = renderTemplate(def?.steps[0]?.prompt as string, {
      ...context,
      Task: { ...context.Task, Prompt: '' },
    });
    expect(none.trimEnd().endsWith('Users asked for it.')).toBe(true);
  });

  it('makes a missing field a render error, and index of one empty', () => {
    expect(() => renderTemplate('{{.Task.Fields.nope}}', context)).toThrow(
      /map has no entry for key "nope"/,
    );
    expect(renderTemplate('[{{index .Task.Fields "nope"}}]', context)).toBe('[]');
  });
});
