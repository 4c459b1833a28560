// Issue 19 point 4: getting-started's `npm install` then `npm link` built dist/ twice (both run
// `prepare`). scripts/prepare.mjs builds only when the digest of the build's inputs differs from
// the one the last build stamped — the web board's sources included, since `npm run build`
// bundles them too (decision 202). Run in a throwaway project whose "build" leaves a mark.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../support/tmp.js';

const PREPARE = fileURLToPath(new URL('../../../scripts/prepare.mjs', import.meta.url));

function project(): string {
  const root = tempDir();
  const write = (path: string, text: string) => {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  write(
    'package.json',
    JSON.stringify({
      name: 'p',
      private: true,
      scripts: { build: "node -e \"require('fs').writeFileSync('built', '')\"" },
    }),
  );
  write('package-lock.json', '{}\n');
  write('tsconfig.json', JSON.stringify({ include: ['src'] }));
  write('web/tsconfig.json', '{}\n');
  write('src/a.ts', 'export const a = 1;\n');
  write('web/style.css', 'body {}\n');
  write('dist/svc.cjs', '');
  write('dist/ui/index.html', '');
  mkdirSync(join(root, 'scripts'));
  copyFileSync(PREPARE, join(root, 'scripts', 'prepare.mjs'));
  return root;
}

function prepare(root: string, ...args: string[]) {
  const env = { ...process.env };
  delete env.npm_execpath; // run `npm` from PATH, as a plain shell would
  const r = spawnSync(process.execPath, [join(root, 'scripts', 'prepare.mjs'), ...args], {
    cwd: root,
    env,
    encoding: 'utf8',
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

describe('prepare (npm install, npm link)', () => {
  it('does not build again while dist/ is current, and builds when a source changed', () => {
    const root = project();
    prepare(root, '--stamp'); // what `npm run build` ends with
    expect(prepare(root)).toContain('dist/ is current');
    expect(existsSync(join(root, 'built'))).toBe(false);

    writeFileSync(join(root, 'web', 'style.css'), 'body { color: red }\n');
    prepare(root);
    expect(existsSync(join(root, 'built'))).toBe(true);

    rmSync(join(root, 'built'));
    prepare(root, '--stamp');
    rmSync(join(root, 'dist', 'ui'), { recursive: true });
    prepare(root);
    expect(existsSync(join(root, 'built'))).toBe(true);
  });
});
