/**
 * The awilix container: the only place that knows every service (ARCHITECTURE "container.ts").
 * Services are registered here and resolved by name; each receives the cradle and takes what it
 * needs. `Services` is the typed view of the cradle that routes and services depend on.
 */
import { type AwilixContainer, asFunction, asValue, createContainer, InjectionMode } from 'awilix';
import type { Logger } from 'pino';
import type { Clock } from './clock/index.js';
import type { ConfigService } from './config/index.js';
import type { Paths } from './daemon/paths.js';
import type { DaemonState } from './daemon/state.js';
import type { Engine } from './engine/index.js';
import { EventLog } from './events/index.js';
import { StreamSet } from './http/sse.js';
import {
  type AgentFactsSource,
  BackupService,
  DoctorService,
  Notifier,
  OpsQueue,
  ProbingAgentFacts,
  Reclaimer,
  RetentionService,
  releasesFeedUrl,
  UpdateService,
} from './ops/index.js';
import type { Registry } from './plugin/index.js';
import { ProjectService } from './projects/index.js';
import { Scheduler } from './scheduler/index.js';
import { ProjectsTable, type Store, TasksTable } from './store/index.js';

export interface Services {
  projects: ProjectService;
  scheduler: Scheduler;
  notifier: Notifier;
  engine: Engine;
  /** One maintenance job at a time: backups, pruning, gc, compaction (ops/serial.ts). */
  opsQueue: OpsQueue;
  reclaimer: Reclaimer;
  /** Agent rows for doctor and info; the agents service replaces this registration (decision 064). */
  agentFacts: AgentFactsSource;
  backups: BackupService;
  retention: RetentionService;
  updates: UpdateService;
  doctor: DoctorService;
  paths: Paths;
  clock: Clock;
  logger: Logger;
  config: ConfigService;
  store: Store;
  events: EventLog;
  registry: Registry;
  streams: StreamSet;
  daemon: DaemonState;
  /** Interval of SSE heartbeat comments; short in tests. */
  heartbeatMs: number;
  /** Where the release check reads releases (SVC_RELEASES_URL or the built-in feed). */
  releasesUrl: string;
}

export interface ContainerSeed {
  paths: Paths;
  clock: Clock;
  logger: Logger;
  config: ConfigService;
  store: Store;
  registry: Registry;
  daemon: DaemonState;
  heartbeatMs: number;
  releasesUrl?: string;
}

export function buildContainer(seed: ContainerSeed): AwilixContainer<Services> {
  const container = createContainer<Services>({ injectionMode: InjectionMode.PROXY, strict: true });
  container.register({
    paths: asValue(seed.paths),
    clock: asValue(seed.clock),
    logger: asValue(seed.logger),
    config: asValue(seed.config),
    store: asValue(seed.store),
    registry: asValue(seed.registry),
    daemon: asValue(seed.daemon),
    heartbeatMs: asValue(seed.heartbeatMs),
    releasesUrl: asValue(seed.releasesUrl ?? releasesFeedUrl()),
    events: asFunction(({ store, clock }: Services) => new EventLog(store, clock)).singleton(),
    streams: asFunction(() => new StreamSet()).singleton(),
    projects: asFunction(
      ({ store, events, clock }: Services) => new ProjectService(store, events, clock),
    ).singleton(),
    notifier: asFunction(
      ({ config, clock, logger }: Services) => new Notifier(config, clock, logger),
    ).singleton(),
    scheduler: asFunction(
      ({ store, config, clock, logger }: Services) =>
        new Scheduler(new TasksTable(store.db), new ProjectsTable(store.db), config, clock, logger),
    ).singleton(),
    opsQueue: asFunction(() => new OpsQueue()).singleton(),
    reclaimer: asFunction(
      ({ store, paths }: Services) => new Reclaimer(() => store.db, paths),
    ).singleton(),
    agentFacts: asFunction(
      ({ registry, config, clock }: Services) =>
        new ProbingAgentFacts(registry, () => config.current(), clock),
    ).singleton(),
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
        }),
    ).singleton(),
  });
  return container;
}
