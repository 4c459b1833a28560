import { describe, expect, it } from 'vitest';
import { parseTemplate } from '../../../lib/template/index.js';
import { render, renderError } from './helpers.js';

// The shapes svc feeds templates (SPEC §2.8 workflow templates, §2.10 branch_template; the Go
// system's context is described in reference/anchor-facts.md §1.9).

const context = {
  Task: {
    ID: 'tsk_42',
    Title: 'Fix: login fails on Safari!',
    Description: 'Users report…',
    Fields: { kind: 'bug', area: 'auth' },
    BaseBranch: 'main',
    BranchName: 'svc/tsk_42-fix-login-fails-on-safari',
  },
  Project: { Name: 'web', Path: '/repos/web', DefaultBranch: 'main' },
  Workflow: { Name: 'fix', Description: '' },
  Step: { ID: 'review', Name: 'Review', Index: 2, Attempt: 1 },
  Steps: {
    plan: { Status: 'succeeded', Result: 'a plan', ExitCode: 0 },
    analyze: { Status: 'skipped', Result: '', ExitCode: 0 },
    build: { Status: 'failed', Result: 'boom', ExitCode: 2 },
  },
  Loop: { Index: 0, Item: 'a.ts', IsFirst: true, IsLast: false },
  Host: { OS: 'linux', Arch: 'amd64' },
  Worktree: { Path: '/data/worktrees/tsk_42' },
  LastFailure: {},
  Conflicts: ['src/a.ts', 'src/b.ts'],
};

describe('workflow templates', () => {
  it.each([
    ['{{.Task.Title}}', 'Fix: login fails on Safari!'],
    ['{{if eq .Task.Fields.kind "bug"}}fix{{else}}build{{end}}', 'fix'],
    [
      '{{range $id, $s := .Steps}}{{$id}}={{$s.Status}} {{end}}',
      'analyze=skipped build=failed plan=succeeded ',
    ],
    ['{{slug .Task.Title}}', 'fix-login-fails-on-safari'],
    ['{{ eq .Step.Attempt 1 }}', 'true'],
    ['{{ and (eq .Host.OS "linux") (ne .Steps.build.ExitCode 0) }}', 'true'],
    ['[{{index .Task.Fields "missing"}}]', '[]'],
    ['{{with .LastFailure}}retry: {{.Reason}}{{else}}first try{{end}}', 'first try'],
    ['{{.Conflicts}}', '[src/a.ts src/b.ts]'],
    ['{{range .Conflicts}}- {{.}}\n{{end}}', '- src/a.ts\n- src/b.ts\n'],
    ['{{len .Steps}} steps, {{.Steps.plan.Result | printf "%q"}}', '3 steps, "a plan"'],
    ['{{if .Loop.IsFirst}}first {{end}}{{.Loop.Item}}', 'first a.ts'],
    [
      'cd {{.Worktree.Path}} && git log {{.Task.BaseBranch}}..HEAD',
      'cd /data/worktrees/tsk_42 && git log main..HEAD',
    ],
  ])('%s', (source, want) => {
    expect(render(source, context)).toBe(want);
  });

  it('the other field kind takes the else branch', () => {
    const feature = { ...context, Task: { ...context.Task, Fields: { kind: 'feature' } } };
    expect(render('{{if eq .Task.Fields.kind "bug"}}fix{{else}}build{{end}}', feature)).toBe(
      'build',
    );
  });
  it('an unset field is an error (missingkey=error)', () => {
    const e = renderError('Area: {{.Task.Fields.NAME}}', context);
    expect(e.kind).toBe('exec');
    expect(e.message).toBe(
      'template: t:1:9: executing "t" at <.Task.Fields.NAME>: map has no entry for key "NAME"',
    );
  });
  it('a step the run has not reached is an error', () => {
    expect(renderError('{{.Steps.deploy.Status}}', context).detail).toBe(
      'map has no entry for key "deploy"',
    );
  });
  it('guards render exactly true or false', () => {
    const guard = parseTemplate('{{ and (eq .Task.Fields.kind "bug") (gt .Step.Attempt 1) }}');
    expect(guard.execute(context).trim()).toBe('false');
    expect(guard.execute({ ...context, Step: { ...context.Step, Attempt: 2 } }).trim()).toBe(
      'true',
    );
  });
});

describe('branch templates', () => {
  const branch = {
    ID: 'tsk_42',
    Title: 'Fix: login fails on Safari!',
    Slug: 'fix-login-fails-on-safari',
    BaseBranch: 'main',
    Fields: { team: 'Web UI' },
    Project: { Name: 'web' },
  };
  it.each([
    ['svc/{{.ID}}-{{slug .Title}}', 'svc/tsk_42-fix-login-fails-on-safari'],
    ['{{.Project.Name}}/{{.Slug}}', 'web/fix-login-fails-on-safari'],
    ['{{slug .Fields.team}}/{{.ID}}', 'web-ui/tsk_42'],
    ['feature/{{.Title | slug}}', 'feature/fix-login-fails-on-safari'],
  ])('%s', (source, want) => {
    expect(render(source, branch)).toBe(want);
  });
  it('an unset field errors', () => {
    expect(renderError('{{.Fields.ticket}}', branch).detail).toBe(
      'map has no entry for key "ticket"',
    );
  });
});
