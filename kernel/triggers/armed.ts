/**
 * What the pieces of the trigger runtime share: the service's dependencies, an armed trigger
 * (one running instance of a valid, enabled file; replaced when the file changes), and the parts
 * the poll loop, the schedule, the push ingress and the firing are handed by TriggerService
 * (runtime.ts), so none of them needs the service itself.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock, Timer } from '../clock/index.js';
import type { ConfigService } from '../config/index.js';
import type { Paths } from '../daemon/paths.js';
import type { Engine } from '../engine/index.js';
import { canonicalJson } from '../engine/index.js';
import type { EventLog } from '../events/index.js';
import type { ForgeService } from '../forge/index.js';
import type { Registry, TriggerSource } from '../plugin/index.js';
import type { ProjectService } from '../projects/index.js';
import type {
  Store,
  TriggerDeliveriesTable,
  TriggerQueueTable,
  TriggerStateTable,
} from '../store/index.js';
import type { DeliveryChains } from './chains.js';
import type { TriggerDefinition } from './definition.js';
import type { TriggerFiles } from './files.js';

/** Tasks in these states are no longer in flight: they free a concurrency key. */
export const SETTLED = new Set(['done', 'aborted', 'archived']);

export interface TriggerServiceDeps {
  paths: Paths;
  registry: Registry;
  config: ConfigService;
  clock: Clock;
  logger: Logger;
  store: Store;
  events: EventLog;
  projects: ProjectService;
  engine: Engine;
  forge: ForgeService;
}

export interface Active {
  id: string;
  version: string;
  def: TriggerDefinition;
  source: TriggerSource;
  timer: Timer | null;
  abort: AbortController;
}

/** The service's state as its pieces see it (TriggerService builds one and hands it round). */
export interface RuntimeParts {
  d: TriggerServiceDeps;
  files: TriggerFiles;
  state: TriggerStateTable;
  deliveries: TriggerDeliveriesTable;
  queue: TriggerQueueTable;
  chains: DeliveryChains;
  /** The global switch, `triggers.enabled` in the config. */
  globalOn(): boolean;
  /** Whether `a` is still the running instance of its trigger (not halted nor replaced). */
  isCurrent(a: Active): boolean;
  isArmed(id: string): boolean;
}

export function sourceDigest(def: TriggerDefinition): string {
  return createHash('sha256')
    .update(canonicalJson({ project: def.project_id, source: def.source }))
    .digest('hex')
    .slice(0, 16);
}
