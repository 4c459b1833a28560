// Parity (STYLE "Parity checks keep the folder honest"): every plugins/triggers/<type> and
// plugins/forge/<name> folder exports one plugin registering one source or forge named after the
// folder, imports only the plugin door (plus zod, croner and node built-ins), runs its kind's
// contract suite, and has a section in docs/triggers.md or docs/forge.md.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { PluginApi, SvcPlugin } from '../../../kernel/plugin/index.js';
import { importSpecifiers } from '../../support/imports.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const ALLOWED = ['zod', 'croner', '../../../kernel/plugin/index.js'];

const folders = (kind: string) =>
  readdirSync(join(ROOT, 'plugins', kind), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();

function registered(_plugin: SvcPlugin) {
  const got: Array<{ kind: string; id: string }> = [];
  const api: PluginApi = {
    registerStepType: (s) => got.push({ kind: 'step', id: s.meta.type }),
    registerAgent: (a) => got.push({ kind: 'agent', id: a.name }),
    registerTriggerSource: (s) => got.push({ kind: 'trigger', id: s.type }),
    registerForge: (f) => got.push({ kind: 'forge', id: f.name }),
  };
  return { api, got };
}

for (const [kind, doc, suite, registers] of [
  ['triggers', 'triggers.md', 'describeTriggerSource', 'trigger'],
  ['forge', 'forge.md', 'describeForge', 'forge'],
] as const) {
  const docs = readFileSync(join(ROOT, 'docs', doc), 'utf8');
  describe(`plugins/${kind}`, () => {
    if (kind === 'triggers')
      it('are the five source types of SPEC §2.6', () => {
        expect(folders(kind)).toEqual(['command', 'forge_issues', 'forge_prs', 'http', 'schedule']);
      });
    for (const folder of folders(kind)) {
      const dir = join(ROOT, 'plugins', kind, folder);
      describe(folder, () => {
        it(`exports svc:${kind}/${folder} registering one ${registers} of that id`, async () => {
          const mod = (await import(pathToFileURL(join(dir, 'index.ts')).href)) as {
            default: SvcPlugin;
          };
          expect(mod.default.name).toBe(`svc:${kind}/${folder}`);
          const { api, got } = registered(mod.default);
          await mod.default.setup(api);
          expect(got).toEqual([{ kind: registers, id: folder }]);
        });

        it('imports only the plugin door, its libraries, node built-ins and its own files', () => {
          for (const file of readdirSync(dir)) {
            if (!file.endsWith('.ts') || file.endsWith('.test.ts')) continue;
            const text = readFileSync(join(dir, file), 'utf8');
            for (const spec of importSpecifiers(text)) {
              expect(
                ALLOWED.includes(spec) || spec.startsWith('./') || spec.startsWith('node:'),
                `${file}: ${spec}`,
              ).toBe(true);
            }
          }
        });

        it(`runs ${suite} and has a section in docs/${doc}`, () => {
          const tests = readdirSync(dir).filter((f) => f.endsWith('.test.ts'));
          expect(tests.some((f) => readFileSync(join(dir, f), 'utf8').includes(`${suite}(`))).toBe(
            true,
          );
          expect(docs).toMatch(new RegExp(`^#{3,4} \`${folder}\`$`, 'm'));
        });
      });
    }
  });
}
