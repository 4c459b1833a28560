/**
 * triggers: work that starts itself (SPEC §2.6, §4.6). Trigger files in `{config_dir}/triggers`
 * (strict schema composed from the registered trigger sources and the four actions, written
 * 0600, hot-reloaded), the runtime that keeps armed triggers polling, scheduled or listening,
 * the judgement shared by live deliveries and the dry runs, the delivery ledger, and the writes
 * behind the routes. Actions replay the task routes through the HTTP app, so a trigger can do
 * nothing a client could not. Uses: plugin registry (sources), config, clock, store, events,
 * projects, engine (task lookups, holds), forge, proc, template, yaml-edit.
 * Used by: http routes, kernel. Decisions: 080–085, 088, 089.
 */
export {
  ACTION_TYPES,
  DEFAULT_DEDUPE_KEY,
  ON_FIRE_VALUES,
  OVERRUN_MODES,
  PERMISSIONS,
  type TriggerDefinition,
  triggerIdProblem,
} from './definition.js';
export { type DryPoll, dryPoll, dryTest, type PublicJudgement, validFile } from './dry-run.js';
export { type TriggerFile, TriggerFiles, versionOf } from './files.js';
export {
  eventIdOf,
  idempotencyKey,
  type Replay,
  type ReplayRequest,
  type ReplayResponse,
} from './firing.js';
export { type Judgement, judge } from './judge.js';
export { MAX_EVENTS_PER_POLL } from './poll-loop.js';
export {
  TriggerDeliveriesQuerySchema,
  TriggerTestBodySchema,
  triggerDeliveries,
  triggerDetail,
  triggerFileRow,
  triggerList,
} from './requests.js';
export { TriggerService } from './runtime.js';
export { type TriggerSchemaDoc, triggerSchemaDoc } from './schema-doc.js';
export { MAX_TRIGGER_BYTES } from './source-text.js';
export type { TriggerFinding } from './validate.js';
export { type DeliveryView, type TriggerRow, triggerRow } from './view.js';
export {
  CreateTriggerSchema,
  createTrigger,
  deleteTrigger,
  PatchTriggerSchema,
  patchTrigger,
  starterText,
  type TriggerWriteResult,
} from './writes.js';
