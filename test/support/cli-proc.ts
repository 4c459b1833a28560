/**
 * The built CLI (`node dist/bin/svc.js …`) as its own process, awaited without blocking this one:
 * a daemon run in the test's process must keep answering while the CLI talks to it, which
 * spawnSync would prevent. A process still running at `timeoutMs` is killed and reported as such,
 * so a command that hangs fails its test instead of the run. `svcProc` and `cliDaemon` run a
 * command against a test daemon published in daemon.json, in the folder a user types it in (`cwd`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { buildTestApp, type TestApp, type TestAppOptions } from './app.js';
import { HAVE_BUILD, SVC_BIN } from './daemon-proc.js';

export { HAVE_BUILD };

export interface CliRun {
  code: number | null;
  out: string;
  err: string;
  /** True when the process did not end by itself within the timeout. */
  timedOut: boolean;
}

export interface CliProc {
  child: ChildProcess;
  /** Everything printed so far. */
  out(): string;
  err(): string;
  done: Promise<CliRun>;
}

export function startSvc(
  env: NodeJS.ProcessEnv,
  args: string[],
  opts: { timeoutMs?: number; input?: string } = {},
): CliProc {
  const child = spawn(process.execPath, [SVC_BIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (b: Buffer) => {
    out += b.toString('utf8');
  });
  child.stderr?.on('data', (b: Buffer) => {
    err += b.toString('utf8');
  });
  if (opts.input !== undefined) child.stdin?.end(opts.input);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, opts.timeoutMs ?? 20_000);
  const done = new Promise<CliRun>((resolve) => {
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out: out.trim(), err: err.trim(), timedOut });
    });
  });
  return { child, out: () => out, err: () => err, done };
}

/** Runs the built CLI to its end (or the timeout). */
export function svcAsync(
  env: NodeJS.ProcessEnv,
  args: string[],
  opts: { timeoutMs?: number; input?: string } = {},
): Promise<CliRun> {
  return startSvc(env, args, opts).done;
}

export interface SvcResult {
  code: number | null;
  out: string;
  err: string;
}

export function svcProc(
  env: NodeJS.ProcessEnv,
  args: string[],
  opts: { cwd?: string; input?: string; timeoutMs?: number } = {},
): Promise<SvcResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SVC_BIN, ...args], {
      env: { ...process.env, ...env },
      cwd: opts.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      err += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out: out.replace(/\n$/, ''), err: err.replace(/\n$/, '') });
    });
    child.stdin.end(opts.input ?? '');
  });
}

/**
 * A test daemon (`buildTestApp`, fake clock and all) listening on a loopback port and published
 * in daemon.json, so the built CLI finds it through `SVC_DATA_DIR` exactly as it finds a real one.
 */
export async function cliDaemon(
  opts: TestAppOptions = {},
): Promise<{ t: TestApp; env: { SVC_DATA_DIR: string; SVC_CONFIG_DIR: string } }> {
  const t = await buildTestApp(opts);
  await t.kernel.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = t.kernel.app.server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  t.kernel.services.daemon.port = port;
  t.kernel.services.daemon.host = '127.0.0.1';
  writeFileSync(
    t.paths.daemonJson,
    JSON.stringify({ pid: process.pid, port, host: '127.0.0.1', url, started_at: '', version: '' }),
    { mode: 0o600 },
  );
  writeFileSync(t.paths.tokenFile, t.token, { mode: 0o600 });
  return { t, env: { SVC_DATA_DIR: t.paths.dataDir, SVC_CONFIG_DIR: t.paths.configDir } };
}
