// Issue 11 (cold start), decision 158: the launcher's V8 code cache for the single-file build —
// made when missing, used when it fits, refused and remade when it does not, never stale.
import {
  existsSync,
  readdirSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { loadBundle } from '../../../bin/code-cache.js';
import { tempDir } from '../../support/tmp.js';

interface Exports {
  answer(): number | string;
  dir: string;
  file: string;
}

/** A small CommonJS bundle with a shebang, as the build writes it. */
function bundleIn(root: string, body = 'return 42;'): string {
  const file = join(root, 'svc.cjs');
  const fns = Array.from({ length: 50 }, (_, i) => `function f${i}(x) { return x * ${i}; }`);
  writeFileSync(
    file,
    `#!/usr/bin/env node\n${fns.join('\n')}\nexports.answer = () => { f1(1); ${body} };\nexports.dir = __dirname;\nexports.file = __filename;\nexports.req = typeof require('node:path').join;\n`,
  );
  return file;
}

/** A private build folder: the bundle in it and where its cache would go. */
function freshBuild(): { root: string; file: string; cacheDir: string } {
  const root = tempDir('svc-cc-');
  return { root, file: bundleIn(root), cacheDir: join(root, '.cache') };
}

// Each load must compile as a fresh process would: without this, V8's in-memory compilation cache
// answers the second compile of the same source and never looks at the cache file.
setFlagsFromString('--no-compilation-cache');

describe('loadBundle', () => {
  it('runs the bundle as CommonJS, writes the cache when missing and uses it next time', () => {
    const { root, file, cacheDir } = freshBuild();

    const first = loadBundle<Exports>(file, cacheDir);
    expect(first.state).toBe('missing');
    expect(first.exports.answer()).toBe(42);
    expect(first.exports.dir).toBe(root);
    expect(first.exports.file).toBe(file);
    expect(first.save()).toBe(first.cacheFile);
    expect(first.save()).toBeNull();
    expect(statSync(cacheDir).mode & 0o777).toBe(0o700);
    expect(statSync(first.cacheFile).mode & 0o777).toBe(0o600);

    const second = loadBundle<Exports>(file, cacheDir);
    expect(second.state).toBe('accepted');
    expect(second.cacheFile).toBe(first.cacheFile);
    expect(second.exports.answer()).toBe(42);
    expect(second.save()).toBeNull();
  });

  it('reads a bundle with text past ASCII as UTF-8 (the build writes ASCII, read as Latin-1)', () => {
    const { root, cacheDir } = freshBuild();
    const file = bundleIn(root, "return 'caf\u00e9 \u2713 \u{1F600}';");
    writeFileSync(file, `${readFileSync(file, 'utf8')}exports.word = 'café ✓ 😀';\n`);
    const loaded = loadBundle<Exports & { word: string }>(file, cacheDir);
    expect(loaded.exports.word).toBe('café ✓ 😀');
    expect(loaded.exports.answer()).toBe('café ✓ 😀');
  });

  it('refuses a cache V8 cannot use, runs anyway and replaces it', () => {
    const { file, cacheDir } = freshBuild();
    const made = loadBundle<Exports>(file, cacheDir);
    made.save();
    writeFileSync(made.cacheFile, 'not a code cache at all');

    const refused = loadBundle<Exports>(file, cacheDir);
    expect(refused.state).toBe('rejected');
    expect(refused.exports.answer()).toBe(42);
    expect(refused.save()).toBe(made.cacheFile);
    expect(loadBundle<Exports>(file, cacheDir).state).toBe('accepted');
  });

  it('never uses the cache of an earlier build, and drops it when it writes the new one', () => {
    const { root, file, cacheDir } = freshBuild();
    const old = loadBundle<Exports>(file, cacheDir);
    old.save();

    // Same length, other code: V8 alone would take the old cache (it checks only the length).
    bundleIn(root, 'return 43;');
    const later = new Date(Date.now() + 5_000);
    utimesSync(file, later, later);
    const rebuilt = loadBundle<Exports>(file, cacheDir);
    expect(rebuilt.state).toBe('missing');
    expect(rebuilt.cacheFile).not.toBe(old.cacheFile);
    expect(rebuilt.exports.answer()).toBe(43);
    rebuilt.save();
    expect(readdirSync(cacheDir)).toEqual([rebuilt.cacheFile.slice(cacheDir.length + 1)]);
  });

  it('still runs when the cache cannot be written', () => {
    const { root, file, cacheDir } = freshBuild();
    // A file where the folder should be: no mkdir or write can succeed, whoever runs the test.
    writeFileSync(cacheDir, 'in the way');
    const run = loadBundle<Exports>(file, cacheDir);
    expect(run.state).toBe('missing');
    expect(run.exports.answer()).toBe(42);
    expect(run.save()).toBeNull();
    expect(existsSync(join(root, '.cache', 'x'))).toBe(false);
  });
});
