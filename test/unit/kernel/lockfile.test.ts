// `npm ci` refuses a lock that lacks an optional dependency, and the local registry mirror serves
// 404 for some platform builds, so `npm install` drops them; scripts/complete-lock.py puts them
// back. This keeps CI's `npm ci` working after a dependency change.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const lock = JSON.parse(
  readFileSync(new URL('../../../package-lock.json', import.meta.url), 'utf8'),
) as {
  packages: Record<string, { optionalDependencies?: Record<string, string> }>;
};

describe('package-lock.json', () => {
  it('lists every optional platform build of biome and rollup (run scripts/complete-lock.py after npm install)', () => {
    for (const parent of ['node_modules/@biomejs/biome', 'node_modules/rollup']) {
      const deps = Object.keys(lock.packages[parent]?.optionalDependencies ?? {}).filter((d) =>
        d.startsWith('@'),
      );
      expect(deps.length, parent).toBeGreaterThan(0);
      for (const dep of deps) expect(lock.packages[`node_modules/${dep}`], dep).toBeDefined();
    }
  });
});
