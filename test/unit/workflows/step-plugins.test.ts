// Parity (STYLE "Parity checks keep the folder honest"): every plugins/steps/<type> folder exports
// one plugin registering one step type whose id is the folder name, imports only the plugin door,
// has a test file, and has a section in docs/workflows.md.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { PluginApi, StepType, SvcPlugin } from '../../../kernel/plugin/index.js';
import { importSpecifiers } from '../../support/imports.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const STEPS = join(ROOT, 'plugins', 'steps');
const folders = readdirSync(STEPS, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();
const docs = readFileSync(join(ROOT, 'docs', 'workflows.md'), 'utf8');

describe('step type plugins', () => {
  it('are the nine types of SPEC §2.8', () => {
    expect(folders).toEqual([
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
  });

  for (const folder of folders) {
    describe(folder, () => {
      it('exports one plugin registering one step type named after the folder', async () => {
        const mod = (await import(pathToFileURL(join(STEPS, folder, 'index.ts')).href)) as {
          default: SvcPlugin;
        };
        const plugin = mod.default;
        expect(plugin.name).toBe(`svc:steps/${folder}`);
        expect(plugin.svc).toBe('^2.0.0');
        const registered: StepType[] = [];
        const refuse = () => {
          throw new Error('a step plugin registers step types only');
        };
        const api: PluginApi = {
          registerStepType: (s) => registered.push(s),
          registerAgent: refuse,
          registerTriggerSource: refuse,
          registerForge: refuse,
        };
        await plugin.setup(api);
        expect(registered.map((s) => s.meta.type)).toEqual([folder]);
      });

      it('imports only the plugin door, zod and its own files', () => {
        for (const file of readdirSync(join(STEPS, folder))) {
          if (!file.endsWith('.ts') || file.endsWith('.test.ts')) continue;
          const text = readFileSync(join(STEPS, folder, file), 'utf8');
          for (const spec of importSpecifiers(text)) {
            expect(
              ['zod', '../../../kernel/plugin/index.js'].includes(spec) || spec.startsWith('./'),
              `${file}: ${spec}`,
            ).toBe(true);
          }
        }
      });

      it('has a test file and a section in docs/workflows.md', () => {
        expect(readdirSync(join(STEPS, folder)).some((f) => f.endsWith('.test.ts'))).toBe(true);
        expect(docs).toMatch(new RegExp(`^### \`${folder}\`$`, 'm'));
      });
    });
  }
});
