// Issue 23: the web board is a client of the HTTP API and nothing else, as the terminal board is
// (decision 140): nothing under web/ imports the kernel, the CLI or node built-ins.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const WEB = join(ROOT, 'web');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

it('web/ imports only itself, shared/ and browser packages', () => {
  const bad: string[] = [];
  const allowedPackages = /^(preact|preact\/hooks|diff2html|diff2html\/lib-esm\/types\.js)$/;
  for (const file of files(WEB)) {
    const source = readFileSync(file, 'utf8');
    for (const m of source.matchAll(
      /(?:import|export)[^'"]*?from\s*['"]([^'"]+)['"]|import\s*['"]([^'"]+)['"]/g,
    )) {
      const spec = (m[1] ?? m[2]) as string;
      if (spec.startsWith('.')) {
        const target = relative(ROOT, resolve(file, '..', spec));
        if (!target.startsWith('web/') && !target.startsWith('shared/'))
          bad.push(`${relative(ROOT, file)} → ${spec}`);
      } else if (!allowedPackages.test(spec)) bad.push(`${relative(ROOT, file)} → ${spec}`);
    }
  }
  expect(bad).toEqual([]);
  expect(files(WEB).length).toBeGreaterThan(10);
});
