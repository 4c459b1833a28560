#!/usr/bin/env node
/**
 * The `svc` executable. It runs the single-file build (dist/svc.cjs) with the V8 code cache when
 * the build is there, which is what makes a cold start fast (decision 158), and the plain `tsc`
 * output otherwise (a build interrupted before its bundling step, or a bare `tsc` since).
 */
import { createRequire } from 'node:module';
import type * as Entry from './bundle-entry.js';
import { loadBundle } from './code-cache.js';

// Through `require`: an ES import of `fs` would load its streams on every start (code-cache.ts).
const require = createRequire(import.meta.url);
const { statSync } = require('node:fs') as typeof import('node:fs');
const { fileURLToPath } = require('node:url') as typeof import('node:url');

type EntryModule = typeof Entry;

const BUNDLE = fileURLToPath(new URL('../svc.cjs', import.meta.url));
const CACHE_DIR = fileURLToPath(new URL('../.cache/', import.meta.url));
const ENTRY = fileURLToPath(new URL('./bundle-entry.js', import.meta.url));

/**
 * The bundle is used when it is there and not older than tsc's output of its entry: after a bare
 * `tsc` (no `npm run build`) the code that just changed runs, not a stale bundle.
 */
function bundleIsCurrent(): boolean {
  if (process.env.SVC_NO_BUNDLE === '1') return false;
  try {
    return statSync(BUNDLE).mtimeMs >= statSync(ENTRY).mtimeMs;
  } catch {
    return false;
  }
}

async function entry(): Promise<{ main: EntryModule['main']; save: () => void }> {
  if (bundleIsCurrent()) {
    const bundle = loadBundle<EntryModule>(BUNDLE, CACHE_DIR);
    bundle.exports.setHost({
      importExternal: (url) => import(url),
      saveCodeCache: bundle.save,
      codeCache: bundle.state,
    });
    return { main: bundle.exports.main, save: () => bundle.save() };
  }
  const { main } = await import('../cli/index.js');
  return { main, save: () => {} };
}

entry()
  .then(async ({ main, save }) => {
    process.exitCode = await main(process.argv.slice(2));
    save();
  })
  .catch((err: unknown) => {
    process.stderr.write(`svc: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exitCode = 1;
  });
