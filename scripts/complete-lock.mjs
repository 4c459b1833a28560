#!/usr/bin/env node
/**
 * Adds lock entries for optional platform packages that a registry mirror does not serve.
 *
 * npm leaves a package out of package-lock.json when the registry answers 404 for it, and `npm ci`
 * then refuses the lock as out of sync. Each of these packages is an optional, platform-specific
 * build (another OS, CPU or libc), which npm skips on this machine without fetching it, so an entry
 * naming its version and platform is all the lock needs. Run after `npm install` changes the lock.
 *
 * The entries are written in npm's own order (`localeCompare` in the `en` locale, as npm's
 * shrinkwrap sorts them): any other order (the Python version of this script sorted by code
 * point, `string-width` before `string_decoder`) is rewritten by the next `npm install`, and
 * `.ci/run` fails when an install changes the lock (decision 202).
 *
 *   node scripts/complete-lock.mjs [package-lock.json]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const PARENTS = {
  'node_modules/@biomejs/biome': '@biomejs/cli-',
  'node_modules/rollup': '@rollup/rollup-',
};

/** `@rollup/rollup-linux-arm64-musl` → `{cpu: ['arm64'], libc: ['musl'], os: ['linux']}`. */
function platform(name, prefix) {
  const [os = '', cpu = '', ...tail] = name.slice(prefix.length).split('-');
  const out = { cpu: [cpu], os: [os] };
  const rest = tail.join('-');
  if (rest.includes('musl')) out.libc = ['musl'];
  else if (rest.includes('gnu') && os === 'linux') out.libc = ['glibc'];
  return out;
}

const npmOrder = (a, b) => a.localeCompare(b, 'en');

/** The lock with the missing platform entries added; the number added. */
export function completeLock(lock) {
  const packages = lock.packages;
  let added = 0;
  for (const [parent, prefix] of Object.entries(PARENTS)) {
    const entry = packages[parent];
    for (const [dep, version] of Object.entries(entry?.optionalDependencies ?? {})) {
      const key = `node_modules/${dep}`;
      if (key in packages || !dep.startsWith(prefix)) continue;
      const item = {
        version: version.replace(/^[~^]/, ''),
        dev: true,
        optional: true,
        ...platform(dep, prefix),
      };
      packages[key] = Object.fromEntries(Object.entries(item).sort(([a], [b]) => npmOrder(a, b)));
      added++;
    }
  }
  // The root entry ('') first, then every path in npm's order.
  const keys = Object.keys(packages).sort((a, b) =>
    a === '' ? -1 : b === '' ? 1 : npmOrder(a, b),
  );
  lock.packages = Object.fromEntries(keys.map((k) => [k, packages[k]]));
  return added;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const path = process.argv[2] ?? 'package-lock.json';
  const lock = JSON.parse(readFileSync(path, 'utf8'));
  const added = completeLock(lock);
  writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
  process.stdout.write(`added ${added} lock entries\n`);
}
