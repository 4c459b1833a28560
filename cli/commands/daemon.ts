/** `svc daemon run|start|stop` and `svc status`: the daemon's lifecycle from the command line. */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../../kernel/config/index.js';
import {
  DAEMON_NODE_FLAGS,
  DaemonLockedError,
  pathWithoutNpmPrefix,
  runDaemon,
} from '../../kernel/daemon/index.js';
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

export const status: Command = {
  name: 'status',
  summary: 'Show whether the daemon runs, where, and its caps and slots',
  options: JSON_OPTION,
  async run(ctx) {
    try {
      const info = await ctx.client().get<Record<string, unknown>>('/v1/info');
      if (ctx.options.json) ctx.out(JSON.stringify(info, null, 2));
      else {
        ctx.out(
          `svc ${info.version} running at ${info.url} (pid ${info.pid}, up ${info.uptime_seconds}s)`,
        );
        ctx.out(`data ${info.data_dir}  config ${info.config_dir}`);
      }
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
