#!/usr/bin/env node
/**
 * `npm install`, `npm ci` and `npm link` all run `prepare`, so following getting-started
 * (`npm install`, then `npm link`) built dist/ twice. This builds only when the build's inputs
 * changed since the last build (decision 202): the digest of every file `tsc` compiles, the
 * configuration and the lock (which pins what is bundled from node_modules) is written to
 * dist/.inputs by `npm run build`, and `prepare` compares it before building. Plain JavaScript on
 * purpose: it runs before dist/ exists.
 *
 *   node scripts/prepare.mjs          build unless dist/ is current
 *   node scripts/prepare.mjs --stamp  record the inputs dist/ was just built from (npm run build)
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const STAMP = join(ROOT, 'dist', '.inputs');
const BUNDLE = join(ROOT, 'dist', 'svc.cjs');
/** The web board's page (scripts/web-build.ts): built by the same `npm run build`. */
const WEB_PAGE = join(ROOT, 'dist', 'ui', 'index.html');
const FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'web/tsconfig.json'];
const SOURCE = /\.(ts|tsx|mts|cts|json|css)$/;

/**
 * The folders tsc compiles (tsconfig `include`), plus web/ (its own tsconfig, bundled by
 * scripts/web-build.ts), walked without node_modules or dot folders.
 */
function sourceDirs() {
  const config = JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8'));
  return [...(Array.isArray(config.include) ? config.include : []), 'web'];
}

function walk(dir, out) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.isFile() && SOURCE.test(e.name)) out.push(p);
  }
}

export function inputsDigest() {
  const files = FILES.map((f) => join(ROOT, f)).filter((f) => existsSync(f));
  for (const dir of sourceDirs()) walk(join(ROOT, dir), files);
  const hash = createHash('sha256');
  for (const f of [...new Set(files)].sort()) {
    hash.update(relative(ROOT, f));
    hash.update('\0');
    hash.update(readFileSync(f));
    hash.update('\0');
  }
  return hash.digest('hex');
}

function current() {
  try {
    return (
      existsSync(BUNDLE) &&
      existsSync(WEB_PAGE) &&
      readFileSync(STAMP, 'utf8').trim() === inputsDigest()
    );
  } catch {
    return false;
  }
}

if (process.argv.includes('--stamp')) {
  writeFileSync(STAMP, `${inputsDigest()}\n`);
} else if (current()) {
  process.stdout.write('svc: dist/ is current (built from these sources); not building again\n');
} else {
  const npm = process.env.npm_execpath;
  const r = npm
    ? spawnSync(process.execPath, [npm, 'run', 'build'], { cwd: ROOT, stdio: 'inherit' })
    : spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit', shell: false });
  process.exitCode = r.status ?? 1;
}
