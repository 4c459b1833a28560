/**
 * ops: what an operator needs to keep svc healthy for months (SPEC §2.9, §2.10 `backup.*`,
 * `transcript_retention_days`, `update.*`, `notify.*`, §4.1, §8). The doctor report and its fixes,
 * backups (on demand and scheduled) and the client-side restore, orphan listing and gc, the
 * transcript and idempotency-key pruner, the release check, the operational `/v1/info` sections,
 * and notify hooks.
 * Uses: store, config, clock, daemon state, plugin registry (agent adapters), git, proc.
 * Used by: kernel.ts (wiring, timers), http routes (doctor, backup, maintenance, update), the CLI
 * (`svc doctor` offline, `svc restore`). Decisions: 060–066.
 */
export {
  type AgentFacts,
  type AgentFactsSource,
  type ProbeMode,
  ProbingAgentFacts,
  whichBinary,
} from './agent-facts.js';
export {
  ARCHIVE_DB,
  ARCHIVE_MANIFEST,
  ARCHIVE_TRANSCRIPTS,
  ARCHIVE_WORKFLOWS,
  type BackupManifest,
  type BackupResult,
  STAGE_PREFIX,
} from './archive.js';
export {
  BACKUP_RETRY_MS,
  BACKUP_TICK_MS,
  BackupService,
  type BackupStatus,
  backupDir,
  backupName,
  backupNameTime,
  backupStatus,
  readBackupState,
  scheduledArchives,
} from './backup.js';
export { type ContainerGroup, containerGroup } from './container-facts.js';
export {
  type DatabaseReport,
  databaseFiles,
  inspectDatabase,
  openForInspection,
} from './database.js';
export {
  buildDoctorReport,
  configFileText,
  type DaemonGroup,
  type DoctorReport,
  PROBLEM_CODES,
  type Problem,
  type ProblemCode,
} from './doctor.js';
export { offlineDoctor } from './doctor-offline.js';
export { DoctorService, type FixAction } from './doctor-service.js';
export {
  agentWarnings,
  type DoctorWarning,
  WARNING_CODES,
  type WarningCode,
} from './doctor-warnings.js';
export { contributeOpsInfo } from './info.js';
export { Notifier } from './notify.js';
export { type MaintenanceBody, type OrphanEntry, Reclaimer } from './orphans.js';
export { RestoreError, type RestoreOptions, type RestoreResult, restoreBackup } from './restore.js';
export { type PruneResult, RetentionService } from './retention.js';
export { OpsQueue } from './serial.js';
export {
  isDevBuild,
  newestRelease,
  RELEASES_FEED_URL,
  RELEASES_URL_ENV,
  releasesFeedUrl,
  UpdateService,
  type UpdateView,
} from './update.js';
