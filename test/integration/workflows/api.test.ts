// Issue 3 point 6 (SPEC §4.3): every workflow route and refusal through the real app. PATCH has
// its own file (patch.test.ts).
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../../support/app.js';
import { list, project, wf, writeGlobal, writeProject } from './support.js';

describe('GET /v1/workflows/definition', () => {
  it('serves the winner with steps as authored and defaults separate', async () => {
    const t = await buildTestApp();
    const text = `name: review
description: Review gate
defaults:
  agent: claude
  max_retries: 0
steps:
  - type: agent
    prompt: Implement
  - id: gate
    type: manual
    instructions: Look
`;
    const file = writeGlobal(t, 'review.yaml', text);
    const def = await t.json<Record<string, unknown>>(
      'GET',
      '/v1/workflows/definition?name=review',
    );
    expect(def).toMatchObject({
      name: 'review',
      scope: 'global',
      project_id: null,
      file,
      status: 'ok',
      platforms: [],
      platform_supported: true,
      errors: [],
      warnings: [],
      definition: {
        name: 'review',
        description: 'Review gate',
        defaults: { agent: 'claude', max_retries: 0 },
        steps: [
          { type: 'agent', prompt: 'Implement' },
          { id: 'gate', type: 'manual', instructions: 'Look' },
        ],
      },
    });
    expect(def.version).toMatch(/^[0-9a-f]{32}$/);
  });

  it('answers 404 for a name the view does not have, and 400 without a name', async () => {
    const t = await buildTestApp();
    const res = await t.api('GET', '/v1/workflows/definition?name=nope');
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('not_found');
    expect((await t.api('GET', '/v1/workflows/definition')).statusCode).toBe(400);
  });

  it('serves built-ins read from the compiled-in text', async () => {
    const t = await buildTestApp();
    const def = await t.json<{ scope: string; file: null; definition: { steps: unknown[] } }>(
      'GET',
      '/v1/workflows/definition?name=update-workflows',
    );
    expect(def.scope).toBe('builtin');
    expect(def.file).toBeNull();
    expect(def.definition.steps).toHaveLength(1);
  });
});

describe('POST /v1/workflows/validate', () => {
  it('judges a text: valid with name, or findings with paths and lines', async () => {
    const t = await buildTestApp();
    expect(await t.json('POST', '/v1/workflows/validate', { yaml: wf('ok') })).toEqual({
      valid: true,
      name: 'ok',
      errors: [],
      warnings: [],
    });
    const bad = await t.json<{
      valid: boolean;
      errors: Array<{ path: string; line: number; code: string }>;
    }>('POST', '/v1/workflows/validate', {
      yaml: 'name: bad\nsteps:\n  - type: loop\n    count: 99\n    steps:\n      - type: command\n        run: x\n',
    });
    expect(bad.valid).toBe(false);
    expect(bad.errors.map((e) => [e.path, e.code, e.line])).toEqual([
      ['steps[0].count', 'count_over_ceiling', 4],
    ]);
  });

  it('uses the live configuration ceilings', async () => {
    const t = await buildTestApp({ config: 'loop:\n  max_iterations: 100\n' });
    const r = await t.json<{ valid: boolean }>('POST', '/v1/workflows/validate', {
      yaml: 'name: big\nsteps:\n  - type: loop\n    count: 99\n    steps:\n      - type: command\n        run: x\n',
    });
    expect(r.valid).toBe(true);
  });

  it('refuses shell: pwsh when the daemon pins a container image', async () => {
    const t = await buildTestApp({ config: 'container:\n  image: node:22\n' });
    const r = await t.json<{ errors: Array<{ code: string }> }>('POST', '/v1/workflows/validate', {
      yaml: 'name: w\nsteps:\n  - type: command\n    run: dir\n    shell: pwsh\n',
    });
    expect(r.errors.map((e) => e.code)).toEqual(['shell_with_container']);
  });

  it('warns when the name context differs or another file of the scope has the name', async () => {
    const t = await buildTestApp();
    const file = writeGlobal(t, 'taken.yaml', wf('taken'));
    const r = await t.json<{ warnings: Array<{ code: string }> }>(
      'POST',
      '/v1/workflows/validate',
      {
        yaml: wf('taken'),
        name: 'other',
        scope: 'global',
      },
    );
    expect(r.warnings.map((w) => w.code)).toEqual(['name_mismatch', 'duplicate_name']);
    const self = await t.json<{ warnings: unknown[] }>('POST', '/v1/workflows/validate', {
      yaml: wf('taken'),
      scope: 'global',
      file,
    });
    expect(self.warnings).toEqual([]);
  });

  it('refuses an empty yaml (400), yaml over 1 MiB (413) and bodies over 4 MiB (413)', async () => {
    const t = await buildTestApp();
    expect((await t.api('POST', '/v1/workflows/validate', { yaml: '  ' })).statusCode).toBe(400);
    expect((await t.api('POST', '/v1/workflows/validate', {})).statusCode).toBe(400);
    const big = await t.api('POST', '/v1/workflows/validate', {
      yaml: `${wf('x')}#${'x'.repeat(1024 * 1024)}`,
    });
    expect(big.statusCode).toBe(413);
    expect(big.json().error.code).toBe('payload_too_large');
    expect(big.json().error.message).toMatch(/1 MiB/);
    const huge = await t.api('POST', '/v1/workflows/validate', {
      yaml: 'x'.repeat(5 * 1024 * 1024),
    });
    expect(huge.statusCode).toBe(413);
  });
});

describe('POST /v1/workflows', () => {
  it('writes a starter file 0644 in the global scope that validates', async () => {
    const t = await buildTestApp();
    const res = await t.api('POST', '/v1/workflows', { scope: 'global', name: 'fresh' });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    const file = join(t.paths.workflowsDir, 'fresh.yaml');
    expect(body).toEqual({
      name: 'fresh',
      scope: 'global',
      project_id: null,
      file,
      version: expect.stringMatching(/^[0-9a-f]{32}$/),
      errors: [],
      warnings: [],
    });
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o644);
    expect(readFileSync(file, 'utf8')).toContain('name: fresh');
    expect((await list(t)).find((r) => r.name === 'fresh')?.version).toBe(body.version);
    const events = t.kernel.services.events.query({
      afterId: 0,
      limit: 10,
      kinds: ['workflow.registry_changed'],
    });
    expect(events.map((e) => e.payload)).toEqual([
      { scope: 'global', project_id: null, files: ['workflows/fresh.yaml'] },
    ]);
  });

  it('quotes a name YAML would read as something else', async () => {
    const t = await buildTestApp();
    const res = await t.json<{ name: string; errors: unknown[] }>('POST', '/v1/workflows', {
      scope: 'global',
      name: '1.0',
    });
    expect(res).toMatchObject({ name: '1.0', errors: [] });
  });

  it('creates the project directory and copies an entry byte for byte with from, keeping its name', async () => {
    const t = await buildTestApp();
    const { id, repo } = await project(t);
    const res = await t.json<{ name: string; file: string; scope: string; project_id: number }>(
      'POST',
      '/v1/workflows',
      {
        scope: 'project',
        project_id: id,
        from: 'adhoc',
      },
    );
    expect(res).toMatchObject({
      name: 'adhoc',
      scope: 'project',
      project_id: id,
      file: join(repo.path, '.svc', 'workflows', 'adhoc.yaml'),
    });
    const builtin = await t.json<{ digest: string }>('GET', '/v1/workflows/definition?name=adhoc');
    const copy = (await list(t, id)).filter((r) => r.name === 'adhoc');
    expect(copy.map((r) => [r.scope, r.status])).toEqual([
      ['project', 'ok'],
      ['builtin', 'shadowed'],
    ]);
    expect(copy[0]?.digest).toBe(builtin.digest);
    // A different file name keeps the source's own name: (and so shadows it too), and a copy in
    // the source's own scope is a name another file declares.
    writeGlobal(t, 'g.yaml', wf('from-global'));
    const renamed = await t.json<{ name: string; file: string }>('POST', '/v1/workflows', {
      scope: 'project',
      project_id: id,
      name: 'copy-of-g',
      from: 'from-global',
    });
    expect(renamed).toMatchObject({
      name: 'from-global',
      file: join(repo.path, '.svc', 'workflows', 'copy-of-g.yaml'),
    });
    const same = await t.api('POST', '/v1/workflows', {
      scope: 'global',
      name: 'copy-of-g',
      from: 'from-global',
    });
    expect(same.statusCode).toBe(409);
    expect(same.json().error.details.reason).toBe('name_taken');
  });

  it('copies from a project view with from_project_id, broken sources included (with errors)', async () => {
    const t = await buildTestApp();
    const { id, repo } = await project(t);
    writeProject(repo, 'broken.yaml', 'name: broken\nsteps: []\n');
    const res = await t.json<{ errors: Array<{ code: string }>; name: string }>(
      'POST',
      '/v1/workflows',
      {
        scope: 'global',
        name: 'rescued',
        from: 'broken',
        from_project_id: id,
      },
    );
    expect(res.name).toBe('broken');
    expect(res.errors.map((e) => e.code)).toEqual(['empty']);
  });

  it('answers 409 when the destination exists or another file declares the name, writing nothing', async () => {
    const t = await buildTestApp();
    writeGlobal(t, 'exists.yaml', wf('something-else'));
    const dest = await t.api('POST', '/v1/workflows', { scope: 'global', name: 'exists' });
    expect(dest.statusCode).toBe(409);
    expect(dest.json().error).toMatchObject({
      code: 'invalid_state',
      details: { reason: 'destination_exists' },
    });
    writeGlobal(t, 'x.yaml', wf('declared'));
    const taken = await t.api('POST', '/v1/workflows', { scope: 'global', name: 'declared' });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().error.details.reason).toBe('name_taken');
    expect((await list(t)).filter((r) => r.name === 'declared')).toHaveLength(1);
  });

  it.each([
    [{ scope: 'builtin', name: 'x' }, 'scope'],
    [{ scope: 'global', name: 'Bad Name' }, 'name'],
    [{ scope: 'global', name: '-x' }, 'name'],
    [{ scope: 'global' }, 'name'],
    [{ scope: 'project', name: 'x' }, 'project_id'],
    [{ scope: 'global', name: 'x', project_id: 1 }, 'project_id'],
    [{ scope: 'global', name: 'x', extra: 1 }, 'extra'],
  ])('refuses %j with 400 naming %s', async (body, field) => {
    const t = await buildTestApp();
    const res = await t.api('POST', '/v1/workflows', body);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details.field).toBe(field);
  });

  it('answers 404 for an unknown project or from', async () => {
    const t = await buildTestApp();
    expect(
      (await t.api('POST', '/v1/workflows', { scope: 'project', project_id: 5, name: 'x' }))
        .statusCode,
    ).toBe(404);
    expect(
      (await t.api('POST', '/v1/workflows', { scope: 'global', name: 'x', from: 'ghost' }))
        .statusCode,
    ).toBe(404);
  });
});

describe('GET /v1/workflows/schema', () => {
  it('serves every section with controls, the step types, contexts and value sets', async () => {
    const t = await buildTestApp();
    const doc = await t.json<
      Record<string, unknown> & {
        step_types: Array<{
          type: string;
          rows: Array<{ key: string; control: string }>;
          contexts: string[];
        }>;
        contexts: Record<string, string[]>;
        values: { agents: string[]; models: Record<string, string[]> };
        top_level: Array<{ key: string; control: string }>;
        lane: Array<{ key: string; control: string }>;
        merge: Array<{ key: string; control: string }>;
        common: Array<{ key: string; control: string; values?: string[] }>;
        fields: Array<{ key: string; control: string }>;
        defaults: Array<{ key: string; control: string }>;
      }
    >('GET', '/v1/workflows/schema');
    expect(Object.keys(doc).sort()).toEqual([
      'common',
      'contexts',
      'defaults',
      'fields',
      'lane',
      'merge',
      'sections',
      'step_types',
      'template_context',
      'top_level',
      'values',
    ]);
    expect(doc.step_types.map((s) => s.type)).toEqual([
      'agent',
      'break',
      'command',
      'condition',
      'fan_out',
      'include',
      'loop',
      'manual',
      'parallel',
    ]);
    const controls = new Set(
      [
        doc.top_level,
        doc.common,
        doc.fields,
        doc.defaults,
        ...doc.step_types.map((s) => s.rows),
        doc.lane,
        doc.merge,
      ]
        .flat()
        .map((r) => r.control),
    );
    for (const c of [
      'string',
      'text',
      'enum',
      'bool',
      'int',
      'duration',
      'list',
      'map',
      'agent',
      'model',
      'effort',
      'steps',
      'lanes',
      'lane',
      'merge',
      'workflow',
      'fields',
      'template',
    ])
      expect(controls, c).toContain(c);
    expect(doc.contexts).toEqual({
      body: ['agent', 'command', 'condition', 'fan_out', 'include', 'loop', 'manual', 'parallel'],
      parallel: ['agent', 'command', 'include'],
      loop: ['agent', 'break', 'command', 'condition', 'include'],
      merge: ['agent'],
    });
    const vars = doc.template_context as Record<string, Array<{ name: string }>>;
    expect(vars.loop?.map((v) => v.name)).toEqual(
      expect.arrayContaining(['.Task', '.Steps', '.Loop', '.Item', '.Iteration']),
    );
    expect(vars.merge?.map((v) => v.name)).toContain('.Conflicts');
    expect(vars.body?.map((v) => v.name)).not.toContain('.Loop');
    expect(doc.lane.map((r) => r.key)).toContain('workflow');
    expect(doc.merge.map((r) => r.key)).toEqual(['on_conflict', 'agent']);
    expect(doc.common.find((r) => r.key === 'type')?.values).toHaveLength(9);
    expect(doc.values.agents).toEqual(['claude', 'codex', 'cursor']);
    expect(doc.values.models.claude?.length).toBeGreaterThan(0);
  });
});

describe('task creation uses the registry', () => {
  it('freezes a snapshot with includes spliced and workflow_origin, and refuses a cycle with 400', async () => {
    const t = await buildTestApp();
    const { id, repo } = await project(t);
    writeProject(
      repo,
      'main.yaml',
      'name: main-flow\nsteps:\n  - type: include\n    workflow: shared\n',
    );
    writeGlobal(
      t,
      'shared.yaml',
      'name: shared\nsteps:\n  - id: gate\n    type: manual\n    instructions: ok?\n',
    );
    const res = await t.api('POST', '/v1/tasks', {
      project_id: id,
      title: 'T',
      workflow: 'main-flow',
      paused: true,
    });
    expect(res.statusCode).toBe(201);
    const task = res.json();
    expect(task.workflow_origin).toMatchObject({
      scope: 'project',
      file: '.svc/workflows/main.yaml',
    });
    const detail = await t.json<{
      workflow_steps: Array<{ id: string; resolved_from?: string[] }>;
    }>('GET', `/v1/tasks/${task.id}`);
    expect(detail.workflow_steps.map((s) => [s.id, s.resolved_from])).toEqual([
      ['gate', ['shared']],
    ]);
    writeProject(
      repo,
      'loop.yaml',
      'name: loopy\nsteps:\n  - type: include\n    workflow: loopy\n',
    );
    const refused = await t.api('POST', '/v1/tasks', {
      project_id: id,
      title: 'T',
      workflow: 'loopy',
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.message).toContain('workflow cycle: loopy → loopy');
  });
});
