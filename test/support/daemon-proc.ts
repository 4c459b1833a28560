/**
 * The built daemon as its own process (`node dist/bin/svc.js daemon run`), for tests that need the
 * real thing to die: SIGKILL, restart on the same data directory, talk to it over HTTP.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DAEMON_NODE_FLAGS } from '../../kernel/daemon/index.js';
import { waitFor } from './app.js';

export const SVC_BIN = fileURLToPath(new URL('../../dist/bin/svc.js', import.meta.url));
export const HAVE_BUILD = existsSync(SVC_BIN);

/** Runs the built CLI (`node dist/bin/svc.js …`) to its end, with `env` over this process's. */
export function svc(env: NodeJS.ProcessEnv, ...args: string[]) {
  const r = spawnSync(process.execPath, [SVC_BIN, ...args], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { code: r.status, out: r.stdout.trim(), err: r.stderr.trim() };
}

export interface DaemonDirs {
  dataDir: string;
  configDir: string;
}

export interface DaemonProc {
  pid: number;
  base: string;
  token: string;
  /** Authenticated fetch; JSON body when given. */
  call(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<Response>;
  json<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
  /** SIGKILL, resolved once the process is gone. */
  kill9(): Promise<void>;
  /** SIGTERM, resolved once the process is gone. */
  stop(): Promise<void>;
  /** True while the process runs. */
  alive(): boolean;
  /** What the process wrote to stderr so far (the last-resort guard writes there too). */
  stderr(): string;
}

export function dirsIn(root: string): DaemonDirs {
  return { dataDir: join(root, 'data'), configDir: join(root, 'config') };
}

/** Starts the daemon and waits until this very process has published daemon.json and answers. */
export async function startDaemon(dirs: DaemonDirs, timeoutMs = 30_000): Promise<DaemonProc> {
  const child: ChildProcess = spawn(
    process.execPath,
    [...DAEMON_NODE_FLAGS, SVC_BIN, 'daemon', 'run'],
    {
      env: { ...process.env, SVC_DATA_DIR: dirs.dataDir, SVC_CONFIG_DIR: dirs.configDir },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => {
    stderr = `${stderr}${c.toString()}`.slice(-1024 * 1024);
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  const pid = child.pid as number;
  const base = await waitFor(async () => {
    if (gone) throw new Error('the daemon exited during start-up');
    const info = JSON.parse(readFileSync(join(dirs.dataDir, 'daemon.json'), 'utf8')) as {
      pid: number;
      url: string;
    };
    if (info.pid !== pid) return null;
    const res = await fetch(`${info.url}/v1/health`);
    await res.arrayBuffer();
    return res.ok ? info.url : null;
  }, timeoutMs);
  const token = readFileSync(join(dirs.dataDir, 'token'), 'utf8').trim();
  const call = (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) =>
    fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  return {
    pid,
    base,
    token,
    call,
    json: async <T>(method: string, path: string, body?: unknown) => {
      const res = await call(method, path, body);
      const text = await res.text();
      if (res.status >= 400) throw new Error(`${method} ${path} → ${res.status} ${text}`);
      return (text ? JSON.parse(text) : undefined) as T;
    },
    kill9: async () => {
      if (!gone) child.kill('SIGKILL');
      await exited;
    },
    stop: async () => {
      if (!gone) child.kill('SIGTERM');
      await exited;
    },
    alive: () => !gone,
    stderr: () => stderr,
  };
}
