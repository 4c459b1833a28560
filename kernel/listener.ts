/**
 * `svc daemon run`: the foreground daemon. Takes the data-directory lock, builds the kernel,
 * listens on the configured loopback address, publishes {data_dir}/daemon.json atomically once
 * the port is bound, and on stop (API, SIGTERM, SIGINT) finishes in-flight work, closes the
 * database cleanly and removes daemon.json.
 */
import { existsSync, unlinkSync } from 'node:fs';
import { currentHost } from '../shared/host.js';
import { parseListen } from './config/index.js';
import {
  acquireDaemonLock,
  type DaemonJson,
  ensurePrivateDir,
  installLastResort,
  type Paths,
} from './daemon/index.js';
import { writeFileAtomic } from './fsutil.js';
import { createKernel, type Kernel } from './kernel.js';
import { createFileLogger } from './log/index.js';

/** How long after listening the daemon writes a missing V8 code cache (decision 158). */
const CODE_CACHE_DELAY_MS = 2_000;

export interface RunningDaemon {
  kernel: Kernel;
  url: string;
  port: number;
  /** Resolves when the daemon has fully stopped. */
  stopped: Promise<void>;
  stop(): Promise<void>;
}

export async function runDaemon(
  paths: Paths,
  opts: {
    handleSignals?: boolean;
    /** PATH entries an npm script had added and the daemon dropped (decision 200), for the log. */
    pathRemoved?: readonly string[];
  } = {},
): Promise<RunningDaemon> {
  ensurePrivateDir(paths.dataDir);
  const lock = acquireDaemonLock(paths.lockFile, paths.dataDir, paths.daemonJson);
  const log = createFileLogger(paths.logFile, 'info');
  let kernel: Kernel | undefined;
  let stopping: Promise<void> | null = null;
  let resolveStopped: () => void = () => {};
  const stopped = new Promise<void>((r) => {
    resolveStopped = r;
  });

  const stop = (): Promise<void> => {
    if (stopping) return stopping;
    stopping = (async () => {
      log.logger.info('daemon stopping');
      try {
        if (kernel) {
          kernel.services.daemon.stopping = true;
          kernel.services.events.append('daemon.shutting_down', {}, {});
        }
      } catch {}
      try {
        await kernel?.close();
      } finally {
        try {
          if (existsSync(paths.daemonJson)) unlinkSync(paths.daemonJson);
        } catch {}
        log.logger.info('daemon stopped');
        log.close();
        lock.release();
        resolveStopped();
      }
    })();
    return stopping;
  };

  try {
    let host = '';
    let wanted = 0;
    kernel = await createKernel({
      paths,
      logger: log.logger,
      onStopRequested: () => void stop(),
      // Listening before the engine starts: tasks resumed at start wire MCP to this port.
      listen: async (app, services) => {
        const listen = parseListen(services.config.current().listen);
        if (!listen) throw new Error('listen is not host:port');
        host = listen.host === 'localhost' ? '127.0.0.1' : listen.host;
        wanted = listen.port;
        await app.listen({ host, port: listen.port });
      },
    });
    const address = kernel.app.server.address();
    const port = typeof address === 'object' && address ? address.port : wanted;
    kernel.services.daemon.port = port;
    kernel.services.daemon.host = host;
    const info: DaemonJson = {
      pid: process.pid,
      port,
      host,
      url: kernel.services.daemon.url,
      started_at: new Date(kernel.services.daemon.startedAtMs).toISOString(),
      version: kernel.services.daemon.version,
    };
    // Clients find the daemon through this file: on a full disk it may spend the reserve (decision 180).
    kernel.services.disk.rescue(() =>
      writeFileAtomic(paths.daemonJson, `${JSON.stringify(info, null, 2)}\n`, 0o600),
    );
    kernel.services.config.watch();
    kernel.services.workflows.watch();
    try {
      kernel.services.events.append(
        'daemon.started',
        {},
        { pid: process.pid, port, version: info.version },
      );
    } catch (err) {
      // A full disk refuses the event; the daemon still serves (decision 180).
      if (kernel.services.disk.noteRefusal(err) === null) throw err;
    }
    const launcher = currentHost();
    log.logger.info({ port, pid: process.pid, code_cache: launcher.codeCache }, 'daemon listening');
    if (opts.pathRemoved?.length)
      log.logger.info({ removed: opts.pathRemoved }, 'PATH: dropped what npm added in front of it');
    if (launcher.codeCache === 'missing' || launcher.codeCache === 'rejected') {
      // Once the first requests have compiled their handlers too, and off the start-up path.
      setTimeout(() => {
        const file = launcher.saveCodeCache();
        if (file) log.logger.info({ file }, 'code cache written');
      }, CODE_CACHE_DELAY_MS).unref();
    }
    if (opts.handleSignals) {
      for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => void stop());
      // The process is ours (`svc daemon run`): a fault that escaped every handler is logged and
      // survived rather than taking every task down with it (decision 181).
      const remove = installLastResort(log.logger);
      void stopped.then(remove);
    }
    return { kernel, url: info.url, port, stopped, stop };
  } catch (err) {
    log.logger.error({ err }, 'daemon failed to start');
    try {
      if (kernel) await kernel.close();
    } catch {}
    log.close();
    lock.release();
    throw err;
  }
}
