/**
 * Scratch environments for benchmarks: temp roots, real git repositories, config files and the
 * daemon started in this process (so the bench can watch the event log without polling).
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DAEMON_NODE_FLAGS, type Paths, pathsFor } from '../../kernel/daemon/index.js';
import { type RunningDaemon, runDaemon } from '../../kernel/listener.js';
import type { ProbeMark } from './probe.js';
import { spawnerFigures } from './spawner.js';
import { now } from './stats.js';

const IDENTITY = {
  GIT_AUTHOR_NAME: 'svc bench',
  GIT_AUTHOR_EMAIL: 'bench@svc.invalid',
  GIT_COMMITTER_NAME: 'svc bench',
  GIT_COMMITTER_EMAIL: 'bench@svc.invalid',
};
Object.assign(process.env, IDENTITY);

const roots: string[] = [];

export function tempRoot(prefix = 'svc-bench-'): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  roots.push(dir);
  return dir;
}

/** Removes every temp root made by this run. */
export function cleanup(): void {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
}

/** Runs git asynchronously, as the daemon does (execFile, no shell). */
export function gitAsync(cwd: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd }, (err) => (err ? reject(err) : resolve()));
  });
}

/** A repository with one commit on `main`. */
export function makeRepo(root: string, name = 'repo'): string {
  const path = join(root, name);
  mkdirSync(path, { recursive: true });
  git(path, 'init', '-q', '-b', 'main');
  git(path, 'config', 'commit.gpgsign', 'false');
  writeFileSync(join(path, 'README.md'), '# bench\n');
  git(path, 'add', '-A');
  git(path, 'commit', '-q', '-m', 'initial');
  return path;
}

/** Paths under `root`, a config file and global workflows written before the daemon starts. */
export function prepare(
  root: string,
  config: string,
  workflows: Record<string, string> = {},
): Paths {
  const paths = pathsFor(join(root, 'config'), join(root, 'data'));
  mkdirSync(paths.configDir, { recursive: true, mode: 0o700 });
  mkdirSync(paths.workflowsDir, { recursive: true });
  writeFileSync(paths.configFile, config, { mode: 0o600 });
  for (const [name, text] of Object.entries(workflows))
    writeFileSync(join(paths.workflowsDir, `${name}.yaml`), text);
  return paths;
}

/** The settings every bench daemon shares: no outbound release check, no backups. */
export const QUIET_CONFIG = 'update:\n  check: false\n';

export function commandWorkflow(name: string, run: string): string {
  return `name: ${name}\nsteps:\n  - id: run\n    type: command\n    run: ${JSON.stringify(run)}\n`;
}

export interface Api {
  url: string;
  token: string;
  call<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
}

/**
 * The bench's client calls: `node:http` over kept-alive connections, as the API section's client
 * (http-client.ts). A timed create is the daemon's work, not the client's: `fetch` spent ~0.6 ms
 * more of the bench's own time on each POST than `node:http` (1.3 against 0.73 ms a round trip to
 * a bare server), and that time was counted as svc's.
 */
export function apiFor(url: string, token: string): Api {
  const agent = new Agent({ keepAlive: true });
  return {
    url,
    token,
    call<T>(method: string, path: string, body?: unknown): Promise<T> {
      const data = body === undefined ? undefined : JSON.stringify(body);
      return new Promise<T>((resolve, reject) => {
        const req = request(
          `${url}${path}`,
          {
            method,
            agent,
            headers: {
              authorization: `Bearer ${token}`,
              ...(data === undefined
                ? {}
                : {
                    'content-type': 'application/json',
                    'content-length': Buffer.byteLength(data),
                  }),
            },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('error', reject);
            res.on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8');
              const status = res.statusCode ?? 0;
              if (status >= 400) return reject(new Error(`${method} ${path} → ${status} ${text}`));
              // Thrown here it would escape the event handler, not reject the call.
              try {
                resolve((text ? JSON.parse(text) : undefined) as T);
              } catch {
                reject(new Error(`${method} ${path} → ${status}, not JSON: ${text.slice(0, 200)}`));
              }
            });
          },
        );
        req.on('error', reject);
        req.end(data);
      });
    },
  };
}

export interface InProcess {
  daemon: RunningDaemon;
  api: Api;
}

export async function startInProcess(paths: Paths): Promise<InProcess> {
  const daemon = await runDaemon(paths);
  return { daemon, api: apiFor(daemon.url, daemon.kernel.services.daemon.token) };
}

export interface ChildDaemon {
  pid: number;
  api: Api;
  /** Asks the daemon's probe (spawned with `probe: true`; bench/lib/probe.ts). */
  probe<T = ProbeMark>(req: ProbeCall): Promise<T>;
  /** Milliseconds from spawn to the first 200 from /v1/health. */
  startMs: number;
  /** CPU the process had used by then (user + system, 10 ms ticks). */
  startCpuMs: number;
  rssBytes(): number;
  stop(): Promise<void>;
}

/**
 * The built CLI, as a user runs it. `SVC_BENCH_BIN` names another build's `bin/svc.js`, so one
 * harness can time two builds alike (main's and a branch's, alternating).
 */
export const SVC_BIN =
  process.env.SVC_BENCH_BIN || fileURLToPath(new URL('../../bin/svc.js', import.meta.url));

/**
 * A daemon's user + system CPU so far in milliseconds, from /proc (clock ticks of 10 ms), its
 * spawner's added (decision 247).
 */
export function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const spawner = spawnerFigures(pid);
  return (Number(fields[11]) + Number(fields[12])) * 10 + (spawner.user + spawner.system) / 1000;
}

/**
 * svc's resident memory: the daemon's RSS and its spawner's private pages (decisions 247, 256).
 * `summed` adds the spawner's whole RSS instead, counting the pages both map twice.
 */
export function rssFiguresOf(pid: number): { svc: number; summed: number } {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) return { svc: Number.NaN, summed: Number.NaN };
  const own = Number(m[1]) * 1024;
  const spawner = spawnerFigures(pid);
  return { svc: own + spawner.private, summed: own + spawner.rss };
}

/** svc's resident memory (`rssFiguresOf(pid).svc`). */
export function rssOf(pid: number): number {
  return rssFiguresOf(pid).svc;
}

/** Waits until `url` answers 200, polling every millisecond or two. */
export async function waitHealthy(getUrl: () => string | null, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const url = getUrl();
    if (url) {
      try {
        const res = await fetch(`${url}/v1/health`);
        await res.arrayBuffer();
        if (res.ok) return;
      } catch {}
    }
    if (Date.now() > deadline) throw new Error('the daemon never became healthy');
    await new Promise((r) => setTimeout(r, 1));
  }
}

/** The probe a bench daemon loads to report its CPU, RSS and event-loop delay over IPC. */
const PROBE = fileURLToPath(new URL('./probe.js', import.meta.url));

type ProbeCall =
  | { cmd: 'mark' }
  | { cmd: 'profile-start'; intervalUs?: number }
  | { cmd: 'profile-stop'; file: string };

export interface SpawnOptions {
  /** Load the probe (bench/lib/probe.ts) and keep an IPC channel to it. */
  probe?: boolean;
  /** Run the plain tsc output instead of the bundle (profiles then name each module). */
  unbundled?: boolean;
  /** Another build's `bin/svc.js` (bench/list-ab.ts runs two builds side by side). */
  bin?: string;
}

/** Starts `svc daemon run` in its own process with the flags `svc daemon start` gives it. */
export async function spawnDaemon(paths: Paths, opts: SpawnOptions = {}): Promise<ChildDaemon> {
  const t0 = now();
  const child = spawn(
    process.execPath,
    [
      ...DAEMON_NODE_FLAGS,
      ...(opts.probe ? ['--import', PROBE] : []),
      opts.bin ?? SVC_BIN,
      'daemon',
      'run',
    ],
    {
      env: {
        ...process.env,
        SVC_DATA_DIR: paths.dataDir,
        SVC_CONFIG_DIR: paths.configDir,
        ...(opts.unbundled ? { SVC_NO_BUNDLE: '1' } : {}),
      },
      stdio: opts.probe ? ['ignore', 'ignore', 'ignore', 'ipc'] : 'ignore',
    },
  );
  let nextId = 0;
  const pending = new Map<number, (v: unknown) => void>();
  child.on('message', (m: { id: number }) => {
    pending.get(m.id)?.(m);
    pending.delete(m.id);
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  let url: string | null = null;
  await waitHealthy(() => {
    if (url) return url;
    try {
      url = (JSON.parse(readFileSync(paths.daemonJson, 'utf8')) as { url: string }).url;
    } catch {}
    return url;
  });
  const startMs = now() - t0;
  const pid = child.pid as number;
  const startCpuMs = cpuMsOf(pid);
  const token = readFileSync(paths.tokenFile, 'utf8').trim();
  return {
    pid,
    api: apiFor(url as unknown as string, token),
    probe: <T>(req: ProbeCall) =>
      new Promise<T>((resolve, reject) => {
        if (!opts.probe || !child.connected) return reject(new Error('no probe in this daemon'));
        const id = ++nextId;
        pending.set(id, resolve as (v: unknown) => void);
        child.send({ id, ...req });
      }),
    startMs,
    startCpuMs,
    rssBytes: () => rssOf(pid),
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
