// Issue 3 point 1: a step type from a plugin outside the kernel is validated and listed without
// kernel changes: one written into a temp directory (bundling its own zod), and the example in
// examples/step-types loaded through the config's plugins: key.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../../support/app.js';
import { tempDir } from '../../support/tmp.js';
import { list, writeGlobal } from './support.js';

const zodUrl = pathToFileURL(createRequire(import.meta.url).resolve('zod')).href;

/** A plugin as a user would ship it: plain JS, its own zod, only data on meta. */
function writeCustomPlugin(): string {
  const dir = join(tempDir(), 'deploy-plugin');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'index.js'),
    `import { z } from '${zodUrl}';
const schema = z.strictObject({
  type: z.literal('deploy'),
  id: z.string().optional(),
  name: z.string().optional(),
  if: z.string().optional(),
  environment: z.enum(['staging', 'production']),
  notes: z.string().optional(),
});
export default {
  name: 'acme:deploy',
  svc: '^2.0.0',
  setup(api) {
    api.registerStepType({
      meta: {
        type: 'deploy',
        schema,
        common: ['if'],
        rows: [
          { key: 'environment', control: 'enum', values: ['staging', 'production'], required: true, description: 'Where to deploy.' },
          { key: 'notes', control: 'template', description: 'Release notes.' },
        ],
        docs: { summary: 'Deploy the branch somewhere.', url: 'https://acme.test/deploy' },
        reasons: ['deploy_failed'],
        contexts: ['body', 'loop'],
        templates: ['notes', 'if'],
      },
      validate(def) {
        return def.environment === 'production' && !def.if
          ? [{ path: ['environment'], code: 'unguarded_production', message: 'guard production deploys with if:' }]
          : [];
      },
    });
  },
};
`,
  );
  return dir;
}

const EXAMPLE = fileURLToPath(
  new URL('../../../examples/step-types/wait_for_http', import.meta.url),
);

describe('a step type from a plugin', () => {
  it('is validated through its own schema, rules, templates and contexts', async () => {
    const t = await buildTestApp({ config: `plugins:\n  - ${writeCustomPlugin()}\n` });
    const validate = (yaml: string) =>
      t.json<{ valid: boolean; errors: Array<{ path: string; code: string }> }>(
        'POST',
        '/v1/workflows/validate',
        { yaml },
      );
    expect(
      await validate(
        'name: ship\nsteps:\n  - type: deploy\n    environment: staging\n    notes: "{{.Task.Title}}"\n',
      ),
    ).toMatchObject({ valid: true, errors: [] });
    const bad = await validate(
      [
        'name: ship',
        'steps:',
        '  - type: deploy',
        '    environment: moon',
        '  - type: deploy',
        '    environment: production',
        '    notes: "{{.Task.Title"',
        '    prompt: x',
        '  - type: parallel',
        '    steps:',
        '      - type: deploy',
        '        environment: staging',
        '',
      ].join('\n'),
    );
    expect(bad.errors.map((e) => [e.path, e.code])).toEqual([
      ['steps[0].environment', 'invalid_value'],
      ['steps[1].notes', 'template_syntax'],
      ['steps[1].prompt', 'key_not_valid_for_type'],
      ['steps[2].steps[0].type', 'not_allowed_here'],
    ]);
    const rule = await validate(
      'name: ship\nsteps:\n  - type: deploy\n    environment: production\n',
    );
    expect(rule.errors.map((e) => [e.path, e.code])).toEqual([
      ['steps[0].environment', 'unguarded_production'],
    ]);
  });

  it('is listed by the schema route and in registry rows', async () => {
    const t = await buildTestApp({ config: `plugins:\n  - ${writeCustomPlugin()}\n` });
    const doc = await t.json<{
      step_types: Array<{ type: string; rows: Array<{ key: string }> }>;
      contexts: Record<string, string[]>;
    }>('GET', '/v1/workflows/schema');
    expect(doc.step_types.find((s) => s.type === 'deploy')?.rows.map((r) => r.key)).toEqual([
      'environment',
      'notes',
    ]);
    expect(doc.contexts.body).toContain('deploy');
    expect(doc.contexts.loop).toContain('deploy');
    expect(doc.contexts.parallel).not.toContain('deploy');
    writeGlobal(t, 'ship.yaml', 'name: ship\nsteps:\n  - type: deploy\n    environment: staging\n');
    const row = (await list(t)).find((r) => r.name === 'ship');
    expect(row).toMatchObject({
      status: 'ok',
      steps: [{ id: 'deploy-1', name: 'deploy-1', type: 'deploy' }],
    });
  });

  it('loads the example from examples/ through the plugins: key', async () => {
    const t = await buildTestApp({ config: `plugins:\n  - ${EXAMPLE}\n` });
    const r = await t.json<{ valid: boolean }>('POST', '/v1/workflows/validate', {
      yaml: 'name: up\nsteps:\n  - type: wait_for_http\n    url: http://127.0.0.1:8080/health\n',
    });
    expect(r.valid).toBe(true);
    const bad = await t.json<{ errors: Array<{ code: string }> }>(
      'POST',
      '/v1/workflows/validate',
      {
        yaml: 'name: up\nsteps:\n  - type: wait_for_http\n    url: gopher://x\n',
      },
    );
    expect(bad.errors.map((e) => e.code)).toEqual(['invalid_url']);
  });

  it('is turned away at start-up when its meta is incomplete', async () => {
    const dir = join(tempDir(), 'half');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'index.js'),
      "export default { name: 'half', svc: '^2.0.0', setup(api) { api.registerStepType({ meta: { type: 'half', schema: { safeParse() {} }, rows: [], common: [], templates: [], reasons: [], contexts: ['nowhere'], docs: { summary: 'x' } } }); } };\n",
    );
    await expect(buildTestApp({ config: `plugins:\n  - ${dir}\n` })).rejects.toThrow(
      /plugin half registered a step type that "half" declares meta.contexts outside/,
    );
  });
});
