/**
 * Runs the single-file build (dist/svc.cjs) with a V8 code cache, so a start compiles almost
 * nothing (decision 158). Node 20 has no `module.enableCompileCache`; this is the same idea done
 * by hand: compile the bundle with `vm.Script` and the cached data of an earlier run, and write
 * fresh data when there was none or V8 refused it.
 *
 * V8 checks a cache against its own version and flags, but matches the source only by length, so
 * the cache file is named for the bundle's size and mtime as well as the runtime and its flags: a
 * rebuilt bundle or another set of flags never meets a cache made for something else.
 */
import { createRequire } from 'node:module';

// Built-ins through `require`, not `import`: an ES import of a built-in builds a facade that reads
// every export, which wakes its lazy parts (`fs` loads its streams, `crypto` its Web Crypto) on
// every start before the bundle has asked for any of them.
const require = createRequire(import.meta.url);
const { isAscii } = require('node:buffer') as typeof import('node:buffer');
const { createHash } = require('node:crypto') as typeof import('node:crypto');
const {
  chmodSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} = require('node:fs') as typeof import('node:fs');
const { basename, dirname, join } = require('node:path') as typeof import('node:path');
const { Script } = require('node:vm') as typeof import('node:vm');

/** What happened to the cache when the bundle was compiled. */
export type CodeCacheState = 'accepted' | 'missing' | 'rejected';

export interface LoadedBundle<T> {
  exports: T;
  state: CodeCacheState;
  /** The cache file this process reads and writes. */
  cacheFile: string;
  /**
   * Writes the code compiled so far when the cache was missing or refused (once per process);
   * returns the file written, or null when nothing was needed or the folder is not writable.
   */
  save(): string | null;
}

/** The cache file's name: the bundle (size, mtime) and the runtime that compiles it (version, flags). */
function cacheKey(bundleFile: string): { bundle: string; runtime: string } {
  const st = statSync(bundleFile);
  const hash = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 16);
  return {
    bundle: hash(`${st.size}:${st.mtimeMs}`),
    runtime: hash(
      [process.version, process.arch, ...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(
        '\0',
      ),
    ),
  };
}

const WRAP_HEAD = '(function (exports, require, module, __filename, __dirname) { ';
const WRAP_TAIL = '\n});';

/**
 * The bundle's text. The build writes it in plain ASCII (scripts/bundle.ts refuses anything
 * else), which decodes as Latin-1 straight into a one-byte string; Node 20's UTF-8 decoding of
 * the same 2 MB takes about three times as long on every start. Any other byte decodes as UTF-8.
 */
function sourceOf(bytes: Buffer): string {
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

export function loadBundle<T>(bundleFile: string, cacheDir: string): LoadedBundle<T> {
  const key = cacheKey(bundleFile);
  const cacheFile = join(cacheDir, `${key.bundle}-${key.runtime}.v8`);
  // A shebang line is not JavaScript once the bundle is wrapped in a function.
  const source = sourceOf(readFileSync(bundleFile)).replace(/^#!.*/, '');
  let cached: Buffer | undefined;
  try {
    cached = readFileSync(cacheFile);
  } catch {
    cached = undefined;
  }
  const script = new Script(WRAP_HEAD + source + WRAP_TAIL, {
    filename: bundleFile,
    cachedData: cached,
  });
  const state: CodeCacheState =
    cached === undefined ? 'missing' : script.cachedDataRejected ? 'rejected' : 'accepted';

  const mod = { exports: {} as T };
  const fn = script.runInThisContext() as (
    exports: T,
    require: NodeRequire,
    module: { exports: T },
    filename: string,
    dir: string,
  ) => void;
  fn.call(
    mod.exports,
    mod.exports,
    createRequire(bundleFile),
    mod,
    bundleFile,
    dirname(bundleFile),
  );

  let saved = false;
  const save = (): string | null => {
    if (saved || state === 'accepted') return null;
    saved = true;
    try {
      mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
      const tmp = `${cacheFile}.${process.pid}.tmp`;
      writeFileSync(tmp, script.createCachedData(), { mode: 0o600 });
      chmodSync(tmp, 0o600);
      renameSync(tmp, cacheFile);
      dropStale(cacheDir, key.bundle, basename(cacheFile));
      return cacheFile;
    } catch {
      return null;
    }
  };
  return { exports: mod.exports, state, cacheFile, save };
}

/** Removes caches made for an earlier build of the bundle; other runtimes' caches stay. */
function dropStale(cacheDir: string, bundleKey: string, keep: string): void {
  for (const name of readdirSync(cacheDir)) {
    if (name === keep || name.startsWith(`${bundleKey}-`) || !name.endsWith('.v8')) continue;
    try {
      unlinkSync(join(cacheDir, name));
    } catch {
      // another process removed it first
    }
  }
}
