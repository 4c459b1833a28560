/**
 * store: the SQLite database (better-sqlite3, WAL) at {data_dir}/svc.db, its numbered migrations
 * and the transaction helper. One repository module per table lives beside this door.
 * Uses: nothing but the file. Used by: every service that keeps state.
 */
export {
  cacheStatements,
  type Db,
  ensurePrivateFile,
  openDatabase,
  SchemaTooNewError,
  Store,
  schemaVersion,
} from './database.js';
export { type Migration, migrations, NEWEST_MIGRATION } from './migrations/index.js';
export { type ProjectInsert, type ProjectRow, ProjectsTable } from './projects.js';
export {
  newStepRun,
  type StepRunInsert,
  type StepRunPatch,
  type StepRunRow,
  type StepRunState,
  StepRunsTable,
} from './step-runs.js';
export {
  newTask,
  type QueuedTask,
  type TaskInsert,
  type TaskPatch,
  type TaskProgress,
  type TaskRow,
  TasksTable,
} from './tasks.js';
export {
  TriggerDeliveriesTable,
  type TriggerDeliveryInsert,
  type TriggerDeliveryRow,
} from './trigger-deliveries.js';
export { type TriggerQueueRow, TriggerQueueTable } from './trigger-queue.js';
export { type TriggerStateRow, TriggerStateTable } from './trigger-state.js';
