// Issue 11 (cold start ≤ 400 ms), decision 158: `svc` runs the single-file build with a V8 code
// cache. Checked on a copy of the build in a temp folder, so its cache is this test's alone.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { DAEMON_NODE_FLAGS } from '../../kernel/daemon/index.js';
import { builtinPluginFiles } from '../../kernel/plugin/index.js';
import { waitFor } from '../support/app.js';
import { skipUnlessCi } from '../support/ci.js';
import { tempDir } from '../support/tmp.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DIST = join(ROOT, 'dist');
const BUILT = existsSync(join(DIST, 'svc.cjs')) && existsSync(join(DIST, 'bin', 'svc.js'));

/** dist/ with its timestamps, laid out as in a clone, with the clone's node_modules. */
function copyOfBuild(): string {
  const root = tempDir('svc-bundle-');
  cpSync(DIST, join(root, 'dist'), {
    recursive: true,
    preserveTimestamps: true,
    filter: (src) => !src.includes(`${DIST}/.cache`),
  });
  copyFileSync(join(ROOT, 'package.json'), join(root, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
  return root;
}

interface LogLine {
  msg: string;
  pid?: number;
  code_cache?: string;
  file?: string;
}

function logLines(dataDir: string): LogLine[] {
  const file = join(dataDir, 'daemon.log');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as LogLine);
}

async function startIn(root: string, dataDir: string, configDir: string, flags: string[] = []) {
  const child: ChildProcess = spawn(
    process.execPath,
    [...DAEMON_NODE_FLAGS, ...flags, join(root, 'dist', 'bin', 'svc.js'), 'daemon', 'run'],
    { env: { ...process.env, SVC_DATA_DIR: dataDir, SVC_CONFIG_DIR: configDir }, stdio: 'ignore' },
  );
  const pid = child.pid as number;
  // A failed expectation must not leave this daemon running after the test.
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const listening = await waitFor(
    () => logLines(dataDir).find((l) => l.msg === 'daemon listening' && l.pid === pid),
    30_000,
  );
  const info = JSON.parse(readFileSync(join(dataDir, 'daemon.json'), 'utf8')) as { url: string };
  const token = readFileSync(join(dataDir, 'token'), 'utf8').trim();
  const get = async <T>(path: string) =>
    (await (
      await fetch(`${info.url}${path}`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as T;
  const stop = async () => {
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await gone;
  };
  return { pid, codeCache: listening.code_cache, get, stop };
}

/**
 * Starts a copy of the build with `flags` and a probe that records `expression` (evaluated in an
 * ES module that has `createRequire`) when the daemon's first request arrives; returns its value.
 */
async function atFirstAnswer(expression: string, flags: string[] = []): Promise<unknown> {
  const root = copyOfBuild();
  const recorded = join(root, 'recorded.json');
  const probe = join(root, 'probe.mjs');
  writeFileSync(
    probe,
    [
      "import { writeFileSync } from 'node:fs';",
      "import http from 'node:http';",
      "import { createRequire } from 'node:module';",
      'const emit = http.Server.prototype.emit;',
      'http.Server.prototype.emit = function (event, ...args) {',
      `  if (event === 'request') writeFileSync(${JSON.stringify(recorded)}, JSON.stringify(${expression}));`,
      '  return emit.call(this, event, ...args);',
      '};',
      '',
    ].join('\n'),
  );
  const configDir = join(root, 'config');
  mkdirSync(configDir, { recursive: true, mode: 0o700 });
  const daemon = await startIn(root, join(root, 'data'), configDir, [...flags, '--import', probe]);
  expect(await daemon.get<{ status: string }>('/v1/health')).toMatchObject({ status: 'ok' });
  await daemon.stop();
  return JSON.parse(readFileSync(recorded, 'utf8'));
}

describe.skipIf(
  skipUnlessCi(!BUILT && 'dist/ is not built (npm run build)', 'the single-file build'),
)('the single-file build', () => {
  it('is what dist/bin/svc.js runs; SVC_NO_BUNDLE=1 runs the plain tsc output instead', () => {
    const version = (
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
        version: string;
      }
    ).version;
    for (const env of [{}, { SVC_NO_BUNDLE: '1' }]) {
      const r = spawnSync(process.execPath, [join(DIST, 'bin', 'svc.js'), '--version'], {
        env: { ...process.env, ...env },
        encoding: 'utf8',
      });
      expect(r.stdout.trim()).toBe(version);
      expect(r.stderr).toBe('');
    }
  });

  it('is plain ASCII, so a start reads it as a one-byte string', () => {
    // One wider character makes Node decode the whole 2 MB bundle into UTF-16 on every start.
    const bytes = readFileSync(join(DIST, 'svc.cjs'));
    expect(bytes.findIndex((b) => b > 0x7f)).toBe(-1);
  });

  it('starts without waking the lazy parts of built-ins it does not use', () => {
    // An ES import of `fs` or `crypto` reads every export, loading fs streams and Web Crypto on
    // every start; the launcher requires them instead (decision 158).
    const probe = join(tempDir('svc-bundle-probe-'), 'loaded.mjs');
    writeFileSync(
      probe,
      "process.on('exit', () => process.stderr.write(JSON.stringify(process.moduleLoadList)));\n",
    );
    const r = spawnSync(
      process.execPath,
      ['--import', probe, join(DIST, 'bin', 'svc.js'), '--version'],
      { encoding: 'utf8' },
    );
    const loaded = JSON.parse(r.stderr) as string[];
    expect(loaded).toContain('NativeModule vm');
    expect(loaded.filter((m) => /internal\/fs\/streams|webcrypto/.test(m))).toEqual([]);
  });

  it('answers its first request without loading TLS or HTTP/2, which a loopback HTTP/1.1 daemon never uses', async () => {
    // fastify's server module requires both as it loads; the build makes them load on first use
    // (decision 249), ~20 ms of every start.
    const loaded = (await atFirstAnswer('process.moduleLoadList')) as string[];
    expect(loaded).toContain('NativeModule http');
    expect(loaded.filter((m) => /^NativeModule (https|http2|tls|_tls_wrap)$/.test(m))).toEqual([]);
  });

  it('answers its first request with every Node built-in it loaded compiled from the code cache Node ships', async () => {
    // Node's built-ins carry a code cache valid only for V8's default flags: one V8 flag among the
    // daemon's (it ran with --max-semi-space-size=2) and each is compiled from source, ~45 ms of
    // every start (decision 253). --expose-internals is Node's own flag and leaves V8's alone.
    const usage = (await atFirstAnswer(
      "((u) => ({ with: [...(u.compiledWithCache ?? [])], without: [...(u.compiledWithoutCache ?? [])] }))(createRequire(import.meta.url)('internal/test/binding').internalBinding('builtins').getCacheUsage())",
      ['--expose-internals'],
    )) as { with: string[]; without: string[] };
    expect(usage.with).toContain('http');
    expect(usage.without).toEqual([]);
  });

  it('holds every built-in plugin, loads a plugins: entry from disk, and caches its compiled code', async () => {
    const root = copyOfBuild();
    const dataDir = join(root, 'data');
    const configDir = join(root, 'config');
    mkdirSync(configDir, { recursive: true, mode: 0o700 });
    const example = join(DIST, 'examples', 'step-types', 'http', 'index.js');
    writeFileSync(join(configDir, 'config.yaml'), `plugins:\n  - ${example}\n`, { mode: 0o600 });
    const cacheDir = join(root, 'dist', '.cache');

    const first = await startIn(root, dataDir, configDir);
    expect(first.codeCache).toBe('missing');
    const info = await first.get<{
      plugins: Array<{ name: string; source: string; file: string; provides: string[] }>;
    }>('/v1/info');
    const builtin = info.plugins.filter((p) => p.source === 'builtin');
    expect(builtin.map((p) => relative(join(root, 'dist'), p.file))).toEqual(
      builtinPluginFiles(join(DIST, 'plugins')).map((f) => relative(DIST, f)),
    );
    for (const p of builtin) expect(p.provides.length, p.name).toBeGreaterThan(0);
    expect(info.plugins.find((p) => p.source === 'config')).toMatchObject({
      name: 'example:http',
      file: example,
    });

    const written = await waitFor(
      () => logLines(dataDir).find((l) => l.msg === 'code cache written' && l.pid === first.pid),
      15_000,
    );
    const cacheFile = written.file as string;
    expect(relative(cacheDir, cacheFile)).not.toMatch(/^\.\./);
    expect(statSync(cacheFile).mode & 0o777).toBe(0o600);
    expect(statSync(cacheDir).mode & 0o777).toBe(0o700);
    await first.stop();

    const second = await startIn(root, dataDir, configDir);
    expect(second.codeCache).toBe('accepted');
    await second.stop();

    // A rebuilt bundle (here: a new mtime) never meets the old cache, which the next write drops.
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(root, 'dist', 'svc.cjs'), later, later);
    const third = await startIn(root, dataDir, configDir);
    expect(third.codeCache).toBe('missing');
    const rewritten = await waitFor(
      () => logLines(dataDir).find((l) => l.msg === 'code cache written' && l.pid === third.pid),
      15_000,
    );
    await third.stop();
    expect(readdirSync(cacheDir)).toEqual([relative(cacheDir, rewritten.file as string)]);

    // After a bare `tsc` (tsc's output newer than the bundle) the fresh output runs, not the bundle.
    const tscLater = new Date(Date.now() + 120_000);
    utimesSync(join(root, 'dist', 'bin', 'bundle-entry.js'), tscLater, tscLater);
    const plain = await startIn(root, dataDir, configDir);
    expect(plain.codeCache).toBe('unbundled');
    const plainInfo = await plain.get<{ plugins: Array<{ source: string; file: string }> }>(
      '/v1/info',
    );
    expect(plainInfo.plugins.map((p) => p.file)).toEqual(info.plugins.map((p) => p.file));
    await plain.stop();
  });
});
