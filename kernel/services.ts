/**
 * The typed view of the awilix container's cradle: every service by the name it is registered
 * under (container.ts registers them). Types only: routes, MCP tools and services import this and
 * nothing of the container's code, so no import runs from a route back to the container. The
 * MCP server is the one service left out: it takes every other service, so it is registered in
 * the container's own `Cradle` (container.ts) and reached by the kernel's assembly alone.
 */
import type { Logger } from 'pino';
import type { AgentService } from './agents/index.js';
import type { ChatService } from './chats/index.js';
import type { Clock } from './clock/index.js';
import type { ConfigService } from './config/index.js';
import type { Paths } from './daemon/paths.js';
import type { DaemonState } from './daemon/state.js';
import type { DiskGuard } from './disk/index.js';
import type { Engine } from './engine/index.js';
import type { EventLog } from './events/index.js';
import type { ForgeReconciler, ForgeService } from './forge/index.js';
import type { StreamSet } from './http/sse.js';
import type { UiAssets } from './http/ui-assets.js';
import type { UiAuth } from './http/ui-auth.js';
import type {
  AgentFactsSource,
  BackupService,
  DoctorService,
  Notifier,
  OpsQueue,
  Reclaimer,
  RetentionService,
  UpdateService,
} from './ops/index.js';
import type { AgentValueSets, Registry } from './plugin/index.js';
import type { ProjectService } from './projects/index.js';
import type { Scheduler } from './scheduler/index.js';
import type { Store } from './store/index.js';
import type { TriggerService } from './triggers/index.js';
import type { HostPlatform, ProjectLookup, WorkflowRegistry } from './workflows/index.js';

export interface Services {
  projects: ProjectService;
  scheduler: Scheduler;
  notifier: Notifier;
  engine: Engine;
  /** Chats and their turns (SPEC §2.5, §4.5). */
  chats: ChatService;
  /** The code-host integration (SPEC §2.10 forge.*, §4.4 rules 7–9). */
  forge: ForgeService;
  forgeReconciler: ForgeReconciler;
  /** Trigger files, the runtime and the ledger (SPEC §2.6, §4.6). */
  triggers: TriggerService;
  /** One maintenance job at a time: backups, pruning, gc, compaction (ops/serial.ts). */
  opsQueue: OpsQueue;
  reclaimer: Reclaimer;
  /** Agent rows for doctor and info: the agents service (decision 064). */
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
  /** The data disk's guard: disk-full mode and the reserve (decision 180). */
  disk: DiskGuard;
  events: EventLog;
  registry: Registry;
  streams: StreamSet;
  daemon: DaemonState;
  /** Interval of SSE heartbeat comments; short in tests. */
  heartbeatMs: number;
  /** Where the release check reads releases (SVC_RELEASES_URL or the built-in feed). */
  releasesUrl: string;
  /** The web board's sign-in codes and session credentials (decision 240). */
  uiAuth: UiAuth;
  /** The web board's built page, served under `/ui/`. */
  uiAssets: UiAssets;
  /** Projects as the workflow registry sees them; the projects store registers itself here. */
  projectLookup: ProjectLookup;
  /** Agent, model and effort value sets for workflow validation and the schema route. */
  agentValues: () => AgentValueSets;
  /** Agent CLIs: records, probes, quota, resolution, and the host agent steps run through. */
  agents: AgentService;
  /** The host as workflow `platforms` see it. */
  hostPlatform: HostPlatform;
  /** The workflow registry: built-in, global and project workflows (SPEC §2.7). */
  workflows: WorkflowRegistry;
}
