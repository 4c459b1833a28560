// Issue 19 point 12 (decision 206): a plugin written in TypeScript loads from its source folder.
// Node 20 cannot import it (`Unknown file extension ".ts"`, and its imports name `.js` files that
// exist only after a build), so it is bundled with esbuild into the data directory's cache, keyed
// by the content of every input, with `import.meta.url` still naming each source file.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  bundleTypeScriptPlugin,
  needsBundle,
  replaceImportMeta,
} from '../../../kernel/plugin/ts-load.js';
import { tempDir } from '../../support/tmp.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

describe('TypeScript plugins from their source folder', () => {
  it('bundles an example as it stands in the checkout, and serves it from the cache after', async () => {
    const cache = tempDir();
    const entry = join(ROOT, 'examples', 'step-types', 'http', 'index.ts');
    const out = await bundleTypeScriptPlugin(entry, cache);
    expect(out.startsWith(cache)).toBe(true);
    // Plain Node (20, no TypeScript) imports it: what the daemon does with it.
    const seen = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const m = await import(${JSON.stringify(pathToFileURL(out).href)}); console.log(JSON.stringify({ name: m.default.name, svc: m.default.svc, setup: typeof m.default.setup }));`,
      ],
      { encoding: 'utf8' },
    );
    expect(JSON.parse(seen)).toEqual({ name: 'example:http', svc: '^2.0.0', setup: 'function' });
    const built = statSync(out).mtimeMs;
    expect(await bundleTypeScriptPlugin(entry, cache)).toBe(out);
    expect(statSync(out).mtimeMs).toBe(built);
  });

  it('bundles a plugin outside the repository: .js imports of .ts files, import.meta.url kept, rebuilt on change', async () => {
    const dir = join(tempDir(), 'my-plugin');
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'index.ts'),
      "import { where } from './where.js';\nexport default { name: 'acme:where', svc: '^2.0.0', where, setup(): void {} };\n",
    );
    const whereFile = join(dir, 'where.ts');
    writeFileSync(whereFile, 'export const where: string = import.meta.url;\n');
    const cache = tempDir();
    const first = await bundleTypeScriptPlugin(join(dir, 'index.ts'), cache);
    const mod = (await import(pathToFileURL(first).href)) as { default: { where: string } };
    expect(mod.default.where).toBe(pathToFileURL(whereFile).href);
    writeFileSync(whereFile, "export const where: string = 'moved';\n");
    const second = await bundleTypeScriptPlugin(join(dir, 'index.ts'), cache);
    expect(second).not.toBe(first);
    expect(readFileSync(second, 'utf8')).toContain('moved');
  });

  it('says where a plugin does not build', async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'index.ts'),
      "import { nothing } from './missing.js';\nexport default nothing;\n",
    );
    await expect(bundleTypeScriptPlugin(join(dir, 'index.ts'), tempDir())).rejects.toThrow(
      /missing\.js/,
    );
  });

  it('rewrites import.meta in code only, never inside strings or comments', () => {
    const v = { url: '"file:///p/a.ts"', dirname: '"/p"', filename: '"/p/a.ts"' };
    expect(
      replaceImportMeta(
        "const u = import.meta.url; // import.meta.url\nconst s = 'import.meta.url', d = import.meta.dirname;",
        v,
      ),
    ).toBe(
      'const u = "file:///p/a.ts"; // import.meta.url\nconst s = \'import.meta.url\', d = "/p";',
    );
  });

  it('is asked for only when Node refuses a .ts entry or its imports', () => {
    const refused = Object.assign(new Error('Unknown file extension ".ts"'), {
      code: 'ERR_UNKNOWN_FILE_EXTENSION',
    });
    expect(needsBundle(refused, '/p/index.ts')).toBe(true);
    expect(needsBundle(refused, '/p/index.js')).toBe(false);
    expect(needsBundle(new Error('boom'), '/p/index.ts')).toBe(false);
  });
});
