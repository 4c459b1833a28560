// `npm ci` refuses a lock that lacks an optional dependency, and a registry mirror may serve 404
// for some platform builds, so `npm install` drops them; scripts/complete-lock.mjs puts them back.
// Issue 19 point 4: `npm install` on a fresh clone leaves the lock byte-identical (npm's own key
// order) and prints no EBADENGINE (no package svc installs declares it cannot run on Node 20);
// decision 202.
import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script (it runs before dist/ exists), typed here by use.
import { completeLock } from '../../../scripts/complete-lock.mjs';

interface LockEntry {
  version?: string;
  optional?: boolean;
  engines?: { node?: string } | string[];
  optionalDependencies?: Record<string, string>;
}
interface Lock {
  packages: Record<string, LockEntry>;
}

const read = (): Lock =>
  JSON.parse(readFileSync(new URL('../../../package-lock.json', import.meta.url), 'utf8'));
const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
  engines: { node: string };
};

describe('package-lock.json', () => {
  it('lists every optional platform build of biome and rollup (run scripts/complete-lock.mjs after npm install)', () => {
    const lock = read();
    for (const parent of ['node_modules/@biomejs/biome', 'node_modules/rollup']) {
      const deps = Object.keys(lock.packages[parent]?.optionalDependencies ?? {}).filter((d) =>
        d.startsWith('@'),
      );
      expect(deps.length, parent).toBeGreaterThan(0);
      for (const dep of deps) expect(lock.packages[`node_modules/${dep}`], dep).toBeDefined();
    }
  });

  it('keeps its entries in the order npm writes them, so an install does not reorder the file', () => {
    const keys = Object.keys(read().packages);
    const npmOrder = [...keys].sort((a, b) =>
      a === '' ? -1 : b === '' ? 1 : a.localeCompare(b, 'en'),
    );
    expect(keys).toEqual(npmOrder);
  });

  it('complete-lock.mjs writes npm order (string_decoder before string-width), not code-point order', () => {
    const lock = {
      packages: {
        '': {},
        'node_modules/string-width': { version: '1.0.0' },
        'node_modules/string_decoder': { version: '1.0.0' },
        'node_modules/@biomejs/biome': {
          optionalDependencies: { '@biomejs/cli-linux-x64-musl': '2.0.0' },
        },
      } as Record<string, LockEntry>,
    };
    expect(completeLock(lock)).toBe(1);
    expect(Object.keys(lock.packages)).toEqual([
      '',
      'node_modules/@biomejs/biome',
      'node_modules/@biomejs/cli-linux-x64-musl',
      'node_modules/string_decoder',
      'node_modules/string-width',
    ]);
    expect(lock.packages['node_modules/@biomejs/cli-linux-x64-musl']).toEqual({
      cpu: ['x64'],
      dev: true,
      libc: ['musl'],
      optional: true,
      os: ['linux'],
      version: '2.0.0',
    });
  });

  it('installs nothing that declares it cannot run on the Node svc declares (no EBADENGINE)', () => {
    // npm warns EBADENGINE for every installed (non-optional) package whose engines.node the
    // running Node does not satisfy; svc declares Node 20, so each must admit a Node 20 release.
    expect(pkg.engines.node).toBe('>=20');
    const refusing = Object.entries(read().packages)
      .filter(([key, e]) => key !== '' && !e.optional)
      .flatMap(([key, e]) => {
        const range = Array.isArray(e.engines) ? undefined : e.engines?.node;
        return range && !semver.intersects(range, '>=20.0.0 <21.0.0') ? [`${key} ${range}`] : [];
      });
    expect(refusing).toEqual([]);
  });

  it('carries no agent CLI: a daemon started by npm cannot find svc-owned copies (decision 202)', () => {
    const keys = Object.keys(read().packages);
    expect(keys.filter((k) => /@anthropic-ai\/claude-code|@openai\/codex/.test(k))).toEqual([]);
  });
});
