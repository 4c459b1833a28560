// Issue 2 point 9: built-in discovery, config `plugins:` paths, and refusals that name the plugin.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  builtinPluginFiles,
  loadPlugins,
  PluginError,
  Registry,
} from '../../../kernel/plugin/index.js';
import { buildTestApp } from '../../support/app.js';
import { tempDir } from '../../support/tmp.js';

function writePlugin(dir: string, file: string, body: string): string {
  mkdirSync(dir, { recursive: true });
  const p = join(dir, file);
  writeFileSync(p, body);
  return p;
}

// A forge is the smallest contract to satisfy, so these plugins register one.
const adapter = (name: string) => `export default {
  name: 'acme-${name}',
  svc: '^2.0.0',
  setup(api) { api.registerForge({ name: '${name}', detect: () => false }); },
};\n`;

describe('plugin discovery', () => {
  it('finds plugins/<kind>/<id>/index and plugins/<id>/index, sorted', () => {
    const root = tempDir();
    for (const p of ['steps/zeta', 'steps/alpha', 'agents/claude'])
      writePlugin(join(root, p), 'index.js', adapter('x'));
    writePlugin(join(root, 'mcp'), 'index.js', adapter('y'));
    mkdirSync(join(root, 'steps', 'empty'));
    expect(builtinPluginFiles(root).map((f) => f.slice(root.length + 1))).toEqual([
      'agents/claude/index.js',
      'mcp/index.js',
      'steps/alpha/index.js',
      'steps/zeta/index.js',
    ]);
  });

  it('loads a plugin from a temp directory named in config and lists it in /v1/info', async () => {
    const dir = tempDir();
    const file = writePlugin(join(dir, 'acme'), 'index.js', adapter('acme'));
    const t = await buildTestApp({ config: `plugins:\n  - ${join(dir, 'acme')}\n` });
    expect(t.kernel.services.registry.forge('acme')?.name).toBe('acme');
    const info = await t.json<{
      plugins: Array<{ name: string; source: string; file: string; provides: unknown[] }>;
    }>('GET', '/v1/info');
    const mine = info.plugins.find((p) => p.name === 'acme-acme');
    expect(mine).toEqual({
      name: 'acme-acme',
      source: 'config',
      file,
      provides: [{ kind: 'forge', id: 'acme' }],
    });
  });

  it('resolves relative plugin paths against the config directory', async () => {
    const root = tempDir();
    writePlugin(join(root, 'config', 'plugins'), 'rel.js', adapter('rel'));
    const t = await buildTestApp({ root, config: 'plugins: [plugins/rel.js]\n' });
    expect(t.kernel.services.registry.forge('rel')).toBeDefined();
  });

  it.each([
    ['a missing file', () => 'plugins: [/nonexistent/plugin.js]\n', /does not exist/],
    [
      'an agent adapter missing its contract',
      (d: string) =>
        `plugins: [${writePlugin(d, 'half.js', "export default { name: 'half', svc: '^2', setup(api) { api.registerAgent({ name: 'half' }); } };\n")}]\n`,
      /plugin half registered agent "half" without binary/,
    ],
    [
      'a module without a plugin',
      (d: string) => `plugins: [${writePlugin(d, 'bad.js', 'export const x = 1;\n')}]\n`,
      /does not export a plugin/,
    ],
    [
      'an incompatible API range',
      (d: string) =>
        `plugins: [${writePlugin(d, 'old.js', "export default { name: 'old', svc: '^1.0.0', setup() {} };\n")}]\n`,
      /plugin old .*needs plugin API \^1\.0\.0/,
    ],
    [
      'a setup that throws',
      (d: string) =>
        `plugins: [${writePlugin(d, 'boom.js', "export default { name: 'boom', svc: '^2', setup() { throw new Error('kaboom'); } };\n")}]\n`,
      /plugin boom .*boom\.js.*failed in setup: kaboom/,
    ],
    [
      'a duplicate plugin name',
      (d: string) =>
        `plugins: [${writePlugin(d, 'a.js', adapter('one'))}, ${writePlugin(join(d, 'b'), 'a.js', adapter('one').replace("'one'", "'two'"))}]\n`,
      /plugin name acme-one is used twice/,
    ],
    [
      'a second adapter with a taken id',
      (d: string) =>
        `plugins: [${writePlugin(d, 'x.js', adapter('dup'))}, ${writePlugin(d, 'y.js', adapter('dup').replace("name: 'acme-dup'", "name: 'other'"))}]\n`,
      /forge "dup" is registered twice: by acme-dup and by other/,
    ],
  ])('stops start-up on %s, naming it', async (_what, config, message) => {
    const d = tempDir();
    await expect(buildTestApp({ config: config(d) })).rejects.toThrow(message);
  });

  it('freezes the registry once loaded', async () => {
    const registry = new Registry();
    await loadPlugins({ registry, extra: [], configDir: tempDir(), builtinRoot: tempDir() });
    expect(() => registry.registerForge('late', { name: 'late', detect: () => null })).toThrow(
      PluginError,
    );
  });
});
