/**
 * The awilix container: the only place that knows every service (ARCHITECTURE "container.ts").
 * Services are registered here and resolved by name; each receives the cradle and takes what it
 * needs. `Services` (services.ts) is the typed view of the cradle that routes and services depend
 * on; it lives apart so that a route's type import does not reach the code that builds the
 * container and, through it, every room.
 */
// awilix's `browser` entry is the same container without loadModules, which svc never calls; the
// default entry imports fast-glob and its ~60 modules at start-up for it (issue 11, cold start).
import {
  type AwilixContainer,
  asFunction,
  asValue,
  createContainer,
  InjectionMode,
} from 'awilix/browser';
import type { Logger } from 'pino';
import { AgentService } from './agents/index.js';
import { ChatService } from './chats/index.js';
import type { Clock } from './clock/index.js';
import type { ConfigService } from './config/index.js';
import type { Paths } from './daemon/paths.js';
import type { DaemonState } from './daemon/state.js';
import type { DiskGuard } from './disk/index.js';
import { EventLog } from './events/index.js';
import { ForgeReconciler, ForgeService } from './forge/index.js';
import { StreamSet } from './http/sse.js';
import { UiAssets } from './http/ui-assets.js';
import { UiAuth } from './http/ui-auth.js';
import { McpService } from './mcp/index.js';
import {
  BackupService,
  DoctorService,
  Notifier,
  OpsQueue,
  Reclaimer,
  RetentionService,
  releasesFeedUrl,
  UpdateService,
} from './ops/index.js';
import type { Registry } from './plugin/index.js';
import { ProjectService } from './projects/index.js';
import { Scheduler } from './scheduler/index.js';
import type { Services } from './services.js';

/** Every service, and the MCP server built over them all (the one a `Services` type cannot name). */
export interface Cradle extends Services {
  /** The MCP server: `/mcp`, the per-step endpoints and their wiring (SPEC §4.7). */
  mcp: McpService;
}

import { ProjectsTable, type Store, TasksTable } from './store/index.js';
import { TriggerService } from './triggers/index.js';
import {
  currentHost,
  type HostPlatform,
  type ProjectLookup,
  WorkflowRegistry,
} from './workflows/index.js';

export interface ContainerSeed {
  paths: Paths;
  clock: Clock;
  logger: Logger;
  config: ConfigService;
  store: Store;
  disk: DiskGuard;
  registry: Registry;
  daemon: DaemonState;
  heartbeatMs: number;
  releasesUrl?: string;
  /** Folders searched for the built web board (tests); default `dist/ui/`. */
  uiRoots?: readonly string[];
  projectLookup?: ProjectLookup;
  hostPlatform?: HostPlatform;
}

export function buildContainer(seed: ContainerSeed): AwilixContainer<Cradle> {
  const container = createContainer<Cradle>({ injectionMode: InjectionMode.PROXY, strict: true });
  container.register({
    paths: asValue(seed.paths),
    clock: asValue(seed.clock),
    logger: asValue(seed.logger),
    config: asValue(seed.config),
    store: asValue(seed.store),
    disk: asValue(seed.disk),
    registry: asValue(seed.registry),
    daemon: asValue(seed.daemon),
    heartbeatMs: asValue(seed.heartbeatMs),
    releasesUrl: asValue(seed.releasesUrl ?? releasesFeedUrl()),
    uiAuth: asFunction(
      ({ daemon, clock }: Services) => new UiAuth(daemon.token, clock),
    ).singleton(),
    uiAssets: asValue(new UiAssets(seed.uiRoots)),
    events: asFunction(({ store, clock }: Services) => new EventLog(store, clock)).singleton(),
    streams: asFunction(() => new StreamSet()).singleton(),
    projects: asFunction(
      ({ store, events, clock }: Services) => new ProjectService(store, events, clock),
    ).singleton(),
    notifier: asFunction(
      ({ config, clock, logger }: Services) => new Notifier(config, clock, logger),
    ).singleton(),
    forge: asFunction(
      ({ registry, config, clock, logger }: Services) =>
        new ForgeService({ registry, config, clock, logger }),
    ).singleton(),
    forgeReconciler: asFunction(
      ({ forge, store, config, clock, logger, events, projects }: Services) =>
        new ForgeReconciler({ forge, store, config, clock, logger, events, projects }),
    ).singleton(),
    // Resolved after kernel.ts registers the engine: the cradle is read lazily.
    triggers: asFunction(
      (c: Services) =>
        new TriggerService({
          paths: c.paths,
          registry: c.registry,
          config: c.config,
          clock: c.clock,
          logger: c.logger,
          store: c.store,
          events: c.events,
          projects: c.projects,
          engine: c.engine,
          forge: c.forge,
        }),
    ).singleton(),
    // Resolved after kernel.ts registers the engine, like triggers.
    chats: asFunction(
      (c: Services) =>
        new ChatService({
          store: c.store,
          events: c.events,
          clock: c.clock,
          config: c.config,
          logger: c.logger,
          paths: c.paths,
          projects: c.projects,
          engine: c.engine,
          agents: c.agents,
          registry: c.registry,
        }),
    ).singleton(),
    scheduler: asFunction(
      ({ store, config, clock, logger }: Services) =>
        new Scheduler(new TasksTable(store.db), new ProjectsTable(store.db), config, clock, logger),
    ).singleton(),
    opsQueue: asFunction(() => new OpsQueue()).singleton(),
    reclaimer: asFunction(
      ({ store, paths }: Services) => new Reclaimer(() => store.db, paths),
    ).singleton(),
    // The agents service serves doctor and info rows from its own probe cache (decision 064).
    agentFacts: asFunction(({ agents }: Services) => agents).singleton(),
    backups: asFunction(
      ({ store, paths, clock, config, logger, events, opsQueue, daemon }: Services) =>
        new BackupService({
          store,
          paths,
          clock,
          config,
          logger,
          events,
          queue: opsQueue,
          version: daemon.version,
        }),
    ).singleton(),
    retention: asFunction(
      ({ store, paths, clock, config, logger, opsQueue }: Services) =>
        new RetentionService({ store, paths, clock, config, logger, queue: opsQueue }),
    ).singleton(),
    updates: asFunction(
      ({ clock, config, logger, paths, daemon, releasesUrl }: Services) =>
        new UpdateService({
          clock,
          config: () => config.current(),
          logger,
          dataDir: paths.dataDir,
          version: daemon.version,
          feedUrl: releasesUrl,
        }),
    ).singleton(),
    doctor: asFunction(
      (c: Services) =>
        new DoctorService({
          paths: c.paths,
          clock: c.clock,
          store: c.store,
          config: c.config,
          daemon: c.daemon,
          agentFacts: () => c.agentFacts,
          reclaimer: c.reclaimer,
          backups: c.backups,
          queue: c.opsQueue,
          disk: c.disk,
        }),
    ).singleton(),
    // Given the cradle itself: tools reach every service lazily, the engine included.
    mcp: asFunction(() => new McpService(container.cradle)).singleton(),
    // The projects store is the lookup; a seed may stand in for it.
    projectLookup: asFunction(
      ({ projects }: Services) => seed.projectLookup ?? projects,
    ).singleton(),
    hostPlatform: asValue(seed.hostPlatform ?? currentHost()),
    agents: asFunction(
      ({ registry, config, clock, store, events, logger, hostPlatform, paths }: Services) =>
        new AgentService({
          registry,
          config,
          clock,
          store,
          events,
          logger,
          platform: hostPlatform.os === 'windows' ? 'win32' : (hostPlatform.os as NodeJS.Platform),
          probeCwd: paths.dataDir,
        }),
    ).singleton(),
    // Probed catalogues when the cache has them, the curated floor otherwise; never probes.
    agentValues: asFunction(
      ({ agents }: Services) =>
        () =>
          agents.valueSets(),
    ).singleton(),
    workflows: asFunction(
      (c: Services) =>
        new WorkflowRegistry({
          paths: c.paths,
          config: c.config,
          types: c.registry,
          // Looked up on each call, so a projects store registered later is the one used.
          projects: {
            get: (id) => container.cradle.projectLookup.get(id),
            list: () => container.cradle.projectLookup.list(),
          },
          agentValues: () => container.cradle.agentValues(),
          events: c.events,
          logger: c.logger,
          host: c.hostPlatform,
        }),
    ).singleton(),
  });
  return container;
}
