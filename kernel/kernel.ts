/**
 * Assembles the kernel: directories, token, configuration, database, plugins, the container and
 * the HTTP app — everything but listening, so tests get the real app through `inject` and
 * `svc daemon run` adds the lock, the port and daemon.json on top (kernel/listener.ts).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type AwilixContainer, asValue } from 'awilix/browser';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { agentPort } from './agents/index.js';
import { type Clock, SystemClock } from './clock/index.js';
import { ConfigService } from './config/index.js';
import { buildContainer, type Cradle } from './container.js';
import { tightenModes } from './daemon/modes.js';
import { ensurePrivateDir, type Paths } from './daemon/paths.js';
import { DaemonState } from './daemon/state.js';
import { loadOrCreateToken } from './daemon/token.js';
import { DiskGuard } from './disk/index.js';
import {
  type AgentPort,
  branchTemplateProblem,
  Engine,
  type WorkflowPort,
} from './engine/index.js';
import { buildApp } from './http/index.js';
import type { RouteModule } from './http/route-module.js';
import { routeModules } from './http/routes/index.js';
import { useSpawner } from './launch/index.js';
import { mcpRoutes } from './mcp/index.js';
import { contributeOpsInfo } from './ops/index.js';
import { loadPlugins, pluginCacheDir, Registry } from './plugin/index.js';
import type { Services } from './services.js';
import { openDatabase, Store } from './store/index.js';
import { type HostPlatform, taskWorkflowsFrom } from './workflows/index.js';

export interface KernelOptions {
  paths: Paths;
  logger: Logger;
  clock?: Clock;
  heartbeatMs?: number;
  /** Called when a client asks the daemon to stop (POST /v1/daemon/stop). */
  onStopRequested?: () => void;
  /** Route modules added after the built-in ones (tests of the error path). */
  extraRoutes?: RouteModule[];
  /** Workflow and agent ports (tests of the engine before those rooms land). */
  workflows?: WorkflowPort;
  agents?: AgentPort;
  /** Run crash recovery and admission at start (default true). */
  startEngine?: boolean;
  /** Start trigger loops and the forge reconciler (default true). */
  startTriggers?: boolean;
  /** Overrides the built-in plugin folder (tests of discovery). */
  builtinPluginRoot?: string;
  /** The releases feed the update check reads (default: SVC_RELEASES_URL, else the project's feed). */
  releasesUrl?: string;
  /** Start the backup schedule, the pruner and the release poller (default true). */
  startOps?: boolean;
  /** The host as workflow `platforms` see it (tests of `unsupported`). */
  hostPlatform?: HostPlatform;
  /** Folders searched for the built web board (tests); default `dist/ui/`. */
  uiRoots?: readonly string[];
  /**
   * Binds the listener once the app is ready and before the engine starts (`svc daemon run`), so
   * work resumed at start finds it: an agent step's MCP endpoint names the port (decision 122).
   * Absent: the caller listens later, or never (tests through `inject`).
   */
  listen?: (app: FastifyInstance, services: Services) => Promise<void>;
}

export interface Kernel {
  services: Cradle;
  container: AwilixContainer<Cradle>;
  app: FastifyInstance;
  /** Stops services, closes the app and the database. Safe to call twice. */
  close(): Promise<void>;
}

export async function createKernel(opts: KernelOptions): Promise<Kernel> {
  const { paths, logger } = opts;
  const clock = opts.clock ?? new SystemClock();
  ensurePrivateDir(paths.dataDir);
  ensurePrivateDir(paths.configDir);
  // Whatever a copy, a restore or a umask loosened under either directory (decision 184).
  const tightened = tightenModes(paths);
  if (tightened.length > 0)
    logger.warn(
      {
        count: tightened.length,
        paths: tightened.slice(0, 20).map((e) => `${e.path} 0${e.mode.toString(8)}`),
      },
      'tightened loose modes under the data and config directories',
    );
  const token = loadOrCreateToken(paths.tokenFile);
  // Before anything writes: a disk with no room starts the daemon in disk-full mode (decision 180).
  const disk = new DiskGuard({
    dir: paths.dataDir,
    file: join(paths.dataDir, 'disk-reserve'),
    clock,
    logger,
  });
  disk.start();

  const config = new ConfigService({
    configDir: paths.configDir,
    configFile: paths.configFile,
    logger,
    now: () => new Date(clock.now()),
    firstStart: !existsSync(paths.dbFile),
  });
  const initial = config.start();
  logger.level = initial.log_level;
  config.onChange((next) => {
    logger.level = next.log_level;
  });

  const registry = new Registry();
  await loadPlugins({
    registry,
    extra: initial.plugins,
    configDir: paths.configDir,
    builtinRoot: opts.builtinPluginRoot,
    cacheDir: pluginCacheDir(paths.dataDir),
  });

  const store = new Store(openDatabase(paths.dbFile));
  const daemon = new DaemonState(token, clock.now(), () => opts.onStopRequested?.());
  const container = buildContainer({
    paths,
    clock,
    logger,
    config,
    store,
    disk,
    registry,
    daemon,
    heartbeatMs: opts.heartbeatMs ?? 15_000,
    releasesUrl: opts.releasesUrl,
    hostPlatform: opts.hostPlatform,
    uiRoots: opts.uiRoots,
  });
  const services = container.cradle;
  // The global workflow scope exists from the first start, so users find where files go.
  mkdirSync(paths.workflowsDir, { recursive: true, mode: 0o755 });
  container.register({
    engine: asValue(
      new Engine({
        store,
        disk,
        events: services.events,
        clock,
        config,
        logger,
        paths,
        registry,
        projects: services.projects,
        scheduler: services.scheduler,
        notifier: services.notifier,
        workflows: opts.workflows ?? taskWorkflowsFrom(services.workflows),
        agents: opts.agents ?? agentPort(services.agents, registry),
        forge: services.forge,
      }),
    ),
  });
  // Agent steps reach probes, quota and rows through the host (StepContext.agents).
  services.engine.stepHost.agents = services.agents;
  services.projects.checkBranchTemplate = branchTemplateProblem;
  config.addCheck({
    key: 'branch_template',
    onReload: 'keep_previous',
    check: (c) => {
      const problem = c.branch_template ? branchTemplateProblem(c.branch_template) : null;
      return problem
        ? [{ path: 'branch_template', message: `branch_template does not compile: ${problem}` }]
        : [];
    },
  });
  config.recheck();
  config.onChange((_next, _prev, source) => {
    services.events.append('config.changed', {}, { source });
  });

  const app = buildApp({
    token,
    logger,
    scopedAuth: [services.mcp.stepAuth],
    onDiskFull: (err) => disk.noteRefusal(err),
    sessionAuth: services.uiAuth,
    routes: (a) => {
      for (const mod of [...routeModules, ...(opts.extraRoutes ?? [])]) mod(a, services);
      mcpRoutes(a, services.mcp);
    },
  });
  // The per-step MCP endpoints name the address the daemon actually listens on.
  services.mcp.address = () => app.server.address();
  // The steps' seam (decision 122): `StepContext.mcp.endpointFor(taskId, runId)`.
  services.engine.stepHost.mcp = {
    endpointFor: (taskId: number, runId: number) => services.mcp.endpointFor(taskId, runId),
  };
  // The endpoint of an agent that runs restricted holds it to that (decision 125).
  services.agents.wireMcp(async (ctx) =>
    services.mcp.endpointFor(ctx.task.id, ctx.step.run_id, {
      restricted: ctx.task.restricted || ctx.setting('permission_mode') === 'restricted',
    }),
  );
  contributeOpsInfo({
    daemon,
    store,
    paths,
    config,
    agentFacts: () => services.agentFacts,
    reclaimer: services.reclaimer,
    updates: services.updates,
  });
  // Every program this daemon starts is forked by a small process of its own (decision 247).
  const releaseSpawner = useSpawner((message) => logger.warn({ message }, 'spawner'));
  await app.ready();
  // Before the engine starts: the task lock and branch claims must hold from the first request.
  services.chats.start();
  if (opts.listen) {
    try {
      await opts.listen(app, services);
    } catch (err) {
      await app.close();
      await services.workflows.close();
      await config.close();
      store.close();
      releaseSpawner();
      throw err;
    }
  }
  if (opts.startEngine !== false) services.engine.start();
  services.engine.addViewDecorator((task, _snap, view) => {
    services.forgeReconciler.decorate(task.id, view);
    // A task a trigger's action created names the trigger (decision 082).
    if (task.created_via?.startsWith('trigger:'))
      view.triggered_by = task.created_via.slice('trigger:'.length);
  });
  if (opts.startTriggers !== false) {
    // Trigger actions replay the task routes through the app itself (decision 082).
    services.triggers.start(async (req) => {
      const res = await app.inject({
        method: req.method,
        url: req.path,
        headers: {
          host: '127.0.0.1',
          authorization: `Bearer ${token}`,
          ...(req.body !== null && req.body !== undefined
            ? { 'content-type': 'application/json' }
            : {}),
          ...req.headers,
        },
        ...(req.body !== null && req.body !== undefined
          ? { payload: JSON.stringify(req.body) }
          : {}),
      });
      let body: unknown = null;
      try {
        body = res.body ? JSON.parse(res.body) : null;
      } catch {
        body = res.body;
      }
      return { status: res.statusCode, body };
    });
    services.forgeReconciler.start();
  }
  // After the engine: recovery has closed interrupted runs before the pruner or a backup looks.
  if (opts.startOps !== false) {
    services.retention.start();
    services.backups.start();
    services.updates.start();
  }

  let closed = false;
  return {
    services,
    container,
    app,
    close: async () => {
      if (closed) return;
      closed = true;
      services.forgeReconciler.stop();
      await services.triggers.stop();
      // Timers first, then let a running backup, prune or poll finish before the database closes.
      services.backups.stop();
      services.retention.stop();
      services.updates.stop();
      await Promise.all([
        services.backups.whenIdle(),
        services.retention.whenIdle(),
        services.updates.whenIdle(),
        services.opsQueue.idle(),
      ]);
      await services.chats.stop();
      await services.engine.stop();
      services.streams.closeAll();
      await services.mcp.closeAll();
      await services.workflows.close();
      await app.close();
      await config.close();
      store.close();
      disk.stop();
      releaseSpawner();
    },
  };
}
