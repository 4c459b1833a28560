// ARCHITECTURE "plugins", docs/adding-an-agent.md: a plugin imports only the plugin door
// (kernel/plugin/index.js), its own files, node built-ins and the few libraries listed here —
// never the kernel's insides and never a sibling plugin. Checked over every built-in plugin,
// every kind, every file, in every import form.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { builtinPluginFiles } from '../../../kernel/plugin/index.js';
import { importSpecifiers } from '../../support/imports.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DOOR = join(ROOT, 'kernel', 'plugin', 'index.ts');
const LIBRARIES = ['zod', 'croner'];

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sourcesUnder(p);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [p] : [];
  });
}

describe('built-in plugins', () => {
  const folders = builtinPluginFiles(join(ROOT, 'plugins')).map((f) => dirname(f));

  it('are found, every kind', () => {
    expect(folders.length).toBeGreaterThan(15);
  });

  it('import only the plugin door, their own files, node built-ins and the listed libraries', () => {
    const wrong: string[] = [];
    for (const folder of folders) {
      for (const file of sourcesUnder(folder)) {
        for (const spec of importSpecifiers(readFileSync(file, 'utf8'))) {
          if (spec.startsWith('node:') || LIBRARIES.includes(spec)) continue;
          if (spec.startsWith('.')) {
            const target = resolve(dirname(file), spec).replace(/\.js$/, '.ts');
            if (target === DOOR || target.startsWith(folder + sep)) continue;
          }
          wrong.push(`${relative(ROOT, file)}: ${spec}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('are held to it: an import of the kernel insides, a sibling or a stray package is caught', () => {
    const text = [
      "import { x } from '../../../kernel/engine/runner.js';",
      'import type { Y } from "../codex/index.js";',
      "const z = await import('execa');",
      "export { w } from './own.js';",
      "import './side-effect.js';",
    ].join('\n');
    expect(importSpecifiers(text)).toEqual([
      '../../../kernel/engine/runner.js',
      '../codex/index.js',
      'execa',
      './own.js',
      './side-effect.js',
    ]);
  });
});
