/** `svc daemon run|start|stop` and `svc status`: the daemon's lifecycle from the command line. */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../../kernel/config/index.js';
import {
  DAEMON_NODE_FLAGS,
  DaemonLockedError,
  pathWithoutNpmPrefix,
} from '../../kernel/daemon/index.js';
import { runDaemon } from '../../kernel/listener.js';
import { SchemaTooNewError } from '../../kernel/store/index.js';
import { Client, DaemonUnreachableError, readDaemonJson } from '../client.js';
import { type Command, JSON_OPTION } from '../command.js';
import { EXIT } from '../exit-codes.js';

const SVC_BIN = fileURLToPath(new URL('../../bin/svc.js', import.meta.url));

/** True while `pid` runs. A zombie (exited, not yet reaped by its new parent) counts as gone. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The running daemon's client, or null when none answers /v1/health. */
async function runningClient(ctx: Parameters<Command['run']>[0]): Promise<Client | null> {
  try {
    const c = Client.discover(ctx.paths);
    await c.get('/v1/health');
    return c;
  } catch {
    return null;
  }
}

export const daemonRun: Command = {
  name: 'daemon run',
  summary: 'Run the daemon in the foreground (what `npm start` runs)',
  async run(ctx) {
    // Started by an npm script: agents are looked up on the shell's PATH, not on the one npm
    // lengthened with node_modules/.bin folders (decision 200).
    const npm = pathWithoutNpmPrefix(ctx.env);
    if (npm.removed.length > 0 && ctx.env === process.env) process.env.PATH = npm.path;
    try {
      const d = await runDaemon(ctx.paths, { handleSignals: true, pathRemoved: npm.removed });
      ctx.out(
        `svc ${d.kernel.services.daemon.version} listening on ${d.url} (data ${ctx.paths.dataDir})`,
      );
      await d.stopped;
      ctx.out('svc daemon stopped');
      return EXIT.ok;
    } catch (err) {
      if (
        err instanceof DaemonLockedError ||
        err instanceof ConfigError ||
        err instanceof SchemaTooNewError
      ) {
        ctx.err(`svc: ${err.message}`);
        return EXIT.failure;
      }
      throw err;
    }
  },
};

export const daemonStart: Command = {
  name: 'daemon start',
  summary: 'Start the daemon in the background; returns once /v1/health answers and prints its URL',
  options: {
    timeout: { type: 'string', description: 'seconds to wait for the daemon (default 20)' },
  },
  async run(ctx) {
    const existing = await runningClient(ctx);
    if (existing) {
      ctx.out(`svc daemon already running at ${existing.baseUrl}`);
      return EXIT.ok;
    }
    const errFile = `${ctx.paths.dataDir}/daemon.stderr`;
    const { ensurePrivateDir } = await import('../../kernel/daemon/index.js');
    ensurePrivateDir(ctx.paths.dataDir);
    const errFd = openSync(errFile, 'w', 0o600);
    const child = spawn(process.execPath, [...DAEMON_NODE_FLAGS, SVC_BIN, 'daemon', 'run'], {
      detached: true,
      stdio: ['ignore', 'ignore', errFd],
      env: ctx.env,
    });
    closeSync(errFd);
    let exited: number | null = null;
    child.on('exit', (code) => {
      exited = code ?? 1;
    });
    child.unref();
    const deadline = Date.now() + Number(ctx.options.timeout ?? 20) * 1000;
    while (Date.now() < deadline) {
      if (exited !== null) {
        const why = readFileSync(errFile, 'utf8').trim();
        ctx.err(why || `svc daemon exited with status ${exited}`);
        return EXIT.failure;
      }
      const info = readDaemonJson(ctx.paths);
      if (info && info.pid === child.pid) {
        const c = await runningClient(ctx);
        if (c) {
          ctx.out(c.baseUrl);
          return EXIT.ok;
        }
      }
      await sleep(50);
    }
    ctx.err('svc daemon did not answer in time; see daemon.log in the data directory');
    return EXIT.failure;
  },
};

export const daemonStop: Command = {
  name: 'daemon stop',
  summary: 'Ask the daemon to stop (POST /v1/daemon/stop) and wait until it has exited',
  options: { timeout: { type: 'string', description: 'seconds to wait (default 60)' } },
  async run(ctx) {
    const info = readDaemonJson(ctx.paths);
    const c = await runningClient(ctx);
    if (!c || !info) {
      ctx.out('svc daemon is not running');
      return EXIT.ok;
    }
    await c.post('/v1/daemon/stop');
    const deadline = Date.now() + Number(ctx.options.timeout ?? 60) * 1000;
    while (Date.now() < deadline) {
      if (!alive(info.pid)) {
        ctx.out('svc daemon stopped');
        return EXIT.ok;
      }
      await sleep(50);
    }
    ctx.err(`svc daemon (pid ${info.pid}) is still running`);
    return EXIT.failure;
  },
};

/** The parts of `GET /v1/info` `svc status` prints; an older daemon may lack any of them. */
interface Info {
  version: string;
  url: string;
  pid: number;
  uptime_seconds: number;
  data_dir: string;
  config_dir: string;
  caps?: Record<string, number>;
  slots?: Record<string, { in_use: number; max: number }>;
}

interface ProjectSlots {
  name: string;
  in_use: number;
  max: number;
}

/** Projects with a cap of their own and the tasks holding their slots (running, awaiting_input). */
async function projectSlots(client: Client): Promise<ProjectSlots[]> {
  const projects =
    await client.get<Array<{ id: number; name: string; max_parallel_tasks: number | null }>>(
      '/v1/projects',
    );
  const capped = projects.filter((p) => p.max_parallel_tasks !== null);
  if (capped.length === 0) return [];
  const busy = new Map<number, number>();
  for (const state of ['running', 'awaiting_input'])
    for (const t of await client.allTasks<{ project_id: number }>({
      state,
      include_children: 'true',
    }))
      busy.set(t.project_id, (busy.get(t.project_id) ?? 0) + 1);
  return capped.map((p) => ({
    name: p.name,
    in_use: busy.get(p.id) ?? 0,
    max: p.max_parallel_tasks as number,
  }));
}

const usd = (v: number | undefined) => (v ? `$${v}` : 'none');

/** `svc status` for a person: where the daemon runs, the slots in use and the caps in force. */
export function statusText(info: Info, projects: ProjectSlots[] = []): string[] {
  const lines = [
    `svc ${info.version} running at ${info.url} (pid ${info.pid}, up ${info.uptime_seconds}s)`,
    `data ${info.data_dir}  config ${info.config_dir}`,
  ];
  const slots = info.slots;
  if (slots) {
    const parts = Object.entries(slots).map(([k, v]) => `${k} ${v.in_use}/${v.max}`);
    for (const p of projects) parts.push(`project ${p.name} ${p.in_use}/${p.max}`);
    lines.push(`slots  ${parts.join(' · ')} in use`);
  }
  const c = info.caps;
  if (c)
    lines.push(
      `caps   max_parallel_tasks ${c.max_parallel_tasks} · max_parallel_chats ${c.max_parallel_chats} · parallel.max_parallel ${c.parallel_max_parallel}`,
      `       fan_out ${c.fan_out_max_depth} deep, ${c.fan_out_max_tasks} tasks · loop.max_iterations ${c.loop_max_iterations} · include.max_depth ${c.include_max_depth} · mcp ${c.mcp_max_depth} deep, ${c.mcp_max_tasks} tasks`,
      `       cost per task ${usd(c.max_task_cost_usd)} · per fan_out tree ${usd(c.max_tree_cost_usd)}`,
    );
  return lines;
}

export const status: Command = {
  name: 'status',
  summary: 'Show whether the daemon runs, where, and its caps and slots',
  options: JSON_OPTION,
  async run(ctx) {
    try {
      const info = await ctx.client().get<Info>('/v1/info');
      if (ctx.options.json) ctx.out(JSON.stringify(info, null, 2));
      else ctx.out(statusText(info, await projectSlots(ctx.client())).join('\n'));
      return EXIT.ok;
    } catch (err) {
      if (err instanceof DaemonUnreachableError) {
        if (ctx.options.json) ctx.out(JSON.stringify({ running: false }));
        else ctx.out('svc daemon is not running');
        return EXIT.daemon_unreachable;
      }
      throw err;
    }
  },
};

export const daemonCommands = [daemonRun, daemonStart, daemonStop, status];
