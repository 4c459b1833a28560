/**
 * Backups (SPEC §4.1 `POST /v1/daemon/backup` and backup rules, §2.10 `backup.*`, decision 062):
 * the on-demand archive and the schedule.
 *
 * Schedule rules, each tested: off at interval 0; about once a minute on the injected clock the
 * service asks whether the newest *scheduled* archive in the directory (by the timestamp in its
 * name) is older than the interval; archives are 0600 and named `svc-backup-<YYYYMMDDTHHMMSSZ>.tar.gz`;
 * they are assembled under a `.svc-backup-*` directory and linked into place; only files with that
 * exact name count toward `keep` or are deleted; a failed run is retried after 1 h; a directory
 * inside the transcripts or workflows directories fails every run (it would archive itself).
 * The last outcome is kept in {data_dir}/backup-state.json so the doctor can report a failure
 * that has not yet been followed by a success — also while the daemon is down.
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  realpathSync,
  statSync,
  unlinkSync,
} from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { Logger } from 'pino';
import { z } from 'zod';
import { type Clock, formatMs, type Timer } from '../clock/index.js';
import { type Config, type ConfigService, parseDuration } from '../config/index.js';
import type { Paths } from '../daemon/paths.js';
import { diskFullCode } from '../disk/index.js';
import { SvcError } from '../errors.js';
import type { EventLog } from '../events/index.js';
import { clipInput, clipText } from '../input/index.js';
import type { Store } from '../store/index.js';
import { type BackupResult, isInside, writeArchive } from './archive.js';
import { pseudoTargetProblem } from './backup-target.js';
import type { OpsQueue } from './serial.js';
import { readState, writeState } from './state-file.js';

/** SPEC §8: a failed scheduled run is retried this long after the failure. */
export const BACKUP_RETRY_MS = 60 * 60 * 1000;
/** How often the schedule is looked at ("about once a minute"). */
export const BACKUP_TICK_MS = 60 * 1000;

const NAME = /^svc-backup-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z\.tar\.gz$/;

/** `svc-backup-20261121T100000Z.tar.gz` for a moment (UTC, second precision). */
export function backupName(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `svc-backup-${iso.slice(0, 19).replaceAll('-', '').replaceAll(':', '')}Z.tar.gz`;
}

/** The moment a scheduled archive's name records; null for any other name. */
export function backupNameTime(name: string): number | null {
  const m = NAME.exec(name);
  if (!m) return null;
  const [, y, mo, d, h, mi, s] = m.map(Number) as number[];
  const ms = Date.UTC(y as number, (mo as number) - 1, d, h, mi, s);
  return Number.isNaN(ms) ? null : ms;
}

export const BackupStateSchema = z.object({
  last_attempt_at: z.string().nullable().default(null),
  last_success_at: z.string().nullable().default(null),
  last_success_path: z.string().nullable().default(null),
  last_error: z.string().nullable().default(null),
  last_error_at: z.string().nullable().default(null),
});
export type BackupState = z.infer<typeof BackupStateSchema>;

const EMPTY_STATE: BackupState = {
  last_attempt_at: null,
  last_success_at: null,
  last_success_path: null,
  last_error: null,
  last_error_at: null,
};

export function backupStateFile(dataDir: string): string {
  return join(dataDir, 'backup-state.json');
}

export function readBackupState(dataDir: string): BackupState {
  return readState(backupStateFile(dataDir), BackupStateSchema) ?? { ...EMPTY_STATE };
}

/** The directory scheduled archives go to. */
export function backupDir(config: Config, dataDir: string): string {
  return config.backup.dir || join(dataDir, 'backups');
}

function realish(p: string): string {
  // Resolve symlinks of the longest existing ancestor, so `dir` reached through a link is judged
  // by where it really is.
  let cur = resolve(p);
  const rest: string[] = [];
  for (;;) {
    try {
      return join(realpathSync(cur), ...rest.reverse());
    } catch {
      const parent = dirname(cur);
      if (parent === cur) return resolve(p);
      rest.push(cur.slice(parent.length + 1));
      cur = parent;
    }
  }
}

/** Why a directory may not receive backups (it lies in a tree the archive copies); null when fine. */
export function backupDirProblem(
  dir: string,
  paths: Pick<Paths, 'transcriptsDir' | 'workflowsDir'> & Partial<Pick<Paths, 'triggersDir'>>,
): string | null {
  if (!isAbsolute(dir)) return `backup.dir ${dir} is not an absolute path`;
  const real = realish(dir);
  if (isInside(real, realish(paths.transcriptsDir)))
    return `backup.dir ${dir} is inside the transcripts directory ${paths.transcriptsDir}`;
  if (isInside(real, realish(paths.workflowsDir)))
    return `backup.dir ${dir} is inside the workflows directory ${paths.workflowsDir}`;
  // The archive holds the trigger files too (decision 195): it would archive itself.
  if (paths.triggersDir && isInside(real, realish(paths.triggersDir)))
    return `backup.dir ${dir} is inside the triggers directory ${paths.triggersDir}`;
  return null;
}

export interface ScheduledArchive {
  path: string;
  name: string;
  at: number;
}

/** Files in `dir` named like scheduled archives, newest first. Nothing else counts. */
export function scheduledArchives(dir: string): ScheduledArchive[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: ScheduledArchive[] = [];
  for (const name of names) {
    const at = backupNameTime(name);
    if (at === null) continue;
    const path = join(dir, name);
    try {
      if (!lstatSync(path).isFile()) continue;
    } catch {
      continue;
    }
    out.push({ path, name, at });
  }
  return out.sort((a, b) => b.at - a.at);
}

/** The doctor's `backup` group (decision 062). */
export interface BackupStatus {
  enabled: boolean;
  interval: string;
  keep: number;
  dir: string;
  dir_problem: string | null;
  archive_count: number;
  newest_archive: { path: string; created_at: string; bytes: number } | null;
  next_due_at: string | null;
  /** Enabled and more than two checks past due (the daemon was down, or runs keep failing). Never a problem alone. */
  overdue: boolean;
  running: boolean;
  last_attempt_at: string | null;
  last_success_at: string | null;
  last_error: string | null;
  last_error_at: string | null;
  /** The last scheduled run failed and none has succeeded since: a doctor problem while enabled. */
  failing: boolean;
}

export function isFailing(state: BackupState): boolean {
  if (!state.last_error_at) return false;
  return (
    !state.last_success_at || Date.parse(state.last_success_at) < Date.parse(state.last_error_at)
  );
}

/** When the next scheduled run is due, from the newest archive and the retry rule; null when off. */
export function nextDue(config: Config, dataDir: string, state: BackupState): number | null {
  const interval = parseDuration(config.backup.interval);
  if (interval <= 0) return null;
  const newest = scheduledArchives(backupDir(config, dataDir))[0];
  let due = newest ? newest.at + interval : 0;
  if (isFailing(state) && state.last_error_at)
    due = Math.max(due, Date.parse(state.last_error_at) + BACKUP_RETRY_MS);
  return due;
}

export function backupStatus(
  config: Config,
  paths: Pick<Paths, 'dataDir' | 'transcriptsDir' | 'workflowsDir'>,
  now: number,
  state: BackupState,
  running: boolean,
): BackupStatus {
  const dir = backupDir(config, paths.dataDir);
  const archives = scheduledArchives(dir);
  const newest = archives[0];
  const due = nextDue(config, paths.dataDir, state);
  const enabled = due !== null;
  let bytes = 0;
  if (newest) {
    try {
      bytes = statSync(newest.path).size;
    } catch {}
  }
  return {
    enabled,
    interval: config.backup.interval,
    keep: config.backup.keep,
    dir,
    dir_problem: backupDirProblem(dir, paths),
    archive_count: archives.length,
    newest_archive: newest ? { path: newest.path, created_at: formatMs(newest.at), bytes } : null,
    // Due 0 means "now": nothing scheduled has been written yet.
    next_due_at: due === null ? null : formatMs(due === 0 ? now : due),
    overdue: due !== null && due > 0 && now - due > 2 * BACKUP_TICK_MS,
    running,
    ...state,
    failing: enabled && isFailing(state),
  };
}

export interface BackupDeps {
  store: Store;
  paths: Paths;
  clock: Clock;
  config: ConfigService;
  logger: Logger;
  events: EventLog;
  queue: OpsQueue;
  version: string;
}

export class BackupService {
  private timer: Timer | null = null;
  private run: Promise<void> | null = null;
  private stopped = false;

  constructor(private readonly d: BackupDeps) {}

  private archive(target: string): Promise<BackupResult> {
    return this.d.queue.run('backup', () =>
      writeArchive(
        { db: this.d.store.db, paths: this.d.paths, clock: this.d.clock, version: this.d.version },
        target,
      ),
    );
  }

  /** Checks a client's path against rules 1–2; every refusal is 400 validation_failed naming `path`. */
  checkPath(raw: string): string {
    const refuse = (why: string) => new SvcError('validation_failed', why, { field: 'path' });
    // Messages quote at most 200 bytes of the path (decision 189).
    const q = (p: string) => clipText(p);
    if (raw.trim() === '') throw refuse('path must not be empty');
    if (!isAbsolute(raw)) throw refuse(`path must be absolute (got ${clipInput(raw)})`);
    const path = resolve(raw);
    let exists = true;
    try {
      lstatSync(path);
    } catch {
      exists = false;
    }
    if (exists) throw refuse(`${q(path)} already exists; a backup never overwrites a file`);
    const parent = dirname(path);
    let parentIsDir = false;
    try {
      parentIsDir = statSync(parent).isDirectory();
    } catch {}
    if (!parentIsDir) throw refuse(`the directory ${q(parent)} does not exist`);
    const pseudo = pseudoTargetProblem(path, parent);
    if (pseudo) throw refuse(`path ${q(path)} ${pseudo}`);
    const real = join(realish(parent), path.slice(parent.length + 1));
    if (isInside(real, realish(this.d.paths.transcriptsDir)))
      throw refuse(
        `path must not be inside the transcripts directory ${this.d.paths.transcriptsDir}`,
      );
    if (isInside(real, realish(this.d.paths.workflowsDir)))
      throw refuse(`path must not be inside the workflows directory ${this.d.paths.workflowsDir}`);
    if (isInside(real, realish(this.d.paths.triggersDir)))
      throw refuse(`path must not be inside the triggers directory ${this.d.paths.triggersDir}`);
    return path;
  }

  /** `POST /v1/daemon/backup {path}`. */
  async manual(raw: string): Promise<BackupResult> {
    const path = this.checkPath(raw);
    try {
      const result = await this.archive(path);
      this.d.events.append('backup.created', {}, { ...result, scheduled: false });
      this.d.logger.info({ path, bytes: result.bytes }, 'backup written');
      return result;
    } catch (err) {
      if (err instanceof SvcError) throw err;
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS')
        throw new SvcError(
          'validation_failed',
          `the daemon cannot write in ${dirname(path)} (${code})`,
          { field: 'path' },
        );
      if (code === 'EEXIST')
        throw new SvcError(
          'validation_failed',
          `${path} appeared while the backup ran; nothing was overwritten`,
          {
            field: 'path',
          },
        );
      this.failed({ path, scheduled: false, error: (err as Error).message });
      // No room at the destination (or on the data disk): a refusal the user fixes, not a fault;
      // the archive is assembled aside and linked at the end, so nothing partial is left.
      const full = diskFullCode(err);
      if (full)
        throw new SvcError(
          'disk_full',
          `the disk holding ${dirname(path)} is full: no backup was written`,
          { code: full, field: 'path' },
        );
      throw err;
    }
  }

  /** `backup.failed`, which a full data disk may refuse too: logged then, never thrown. */
  private failed(payload: Record<string, unknown>): void {
    try {
      this.d.events.append('backup.failed', {}, payload);
    } catch (err) {
      this.d.logger.error({ err: (err as Error).message }, 'backup.failed event not recorded');
    }
  }

  status(): BackupStatus {
    return backupStatus(
      this.d.config.current(),
      this.d.paths,
      this.d.clock.now(),
      readBackupState(this.d.paths.dataDir),
      this.run !== null,
    );
  }

  /** Starts the schedule: a look now, then about once a minute. */
  start(): void {
    this.stopped = false;
    this.tick();
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = null;
  }

  /** Resolves when no scheduled run is in progress (tests, shutdown). */
  async whenIdle(): Promise<void> {
    while (this.run) await this.run;
  }

  private tick(): void {
    if (this.stopped) return;
    this.timer = this.d.clock.setTimer(BACKUP_TICK_MS, () => this.tick());
    if (this.run) return;
    const due = nextDue(
      this.d.config.current(),
      this.d.paths.dataDir,
      readBackupState(this.d.paths.dataDir),
    );
    if (due === null || this.d.clock.now() < due) return;
    this.run = this.scheduled().finally(() => {
      this.run = null;
    });
  }

  private async scheduled(): Promise<void> {
    const config = this.d.config.current();
    const now = this.d.clock.now();
    const state = readBackupState(this.d.paths.dataDir);
    state.last_attempt_at = formatMs(now);
    const dir = backupDir(config, this.d.paths.dataDir);
    try {
      const problem = backupDirProblem(dir, this.d.paths);
      if (problem) throw new Error(problem);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const target = join(dir, backupName(now));
      if (existsSync(target)) throw new Error(`${target} already exists`);
      const result = await this.archive(target);
      const removed = this.applyKeep(dir, config.backup.keep);
      state.last_success_at = formatMs(this.d.clock.now());
      state.last_success_path = result.path;
      writeState(backupStateFile(this.d.paths.dataDir), state);
      this.d.events.append('backup.created', {}, { ...result, scheduled: true, removed });
      this.d.logger.info(
        { path: result.path, bytes: result.bytes, removed },
        'scheduled backup written',
      );
    } catch (err) {
      state.last_error = (err as Error).message;
      state.last_error_at = formatMs(this.d.clock.now());
      // Recording the failure may meet the same full disk: it must not turn into a rejection.
      try {
        writeState(backupStateFile(this.d.paths.dataDir), state);
      } catch (again) {
        this.d.logger.error({ err: (again as Error).message }, 'backup state not recorded');
      }
      this.failed({ scheduled: true, dir, error: state.last_error });
      this.d.logger.error(
        { err: state.last_error, dir },
        'scheduled backup failed; retrying in 1h',
      );
    }
  }

  /** Deletes the oldest scheduled archives beyond `keep` (0 keeps all). Other files are never touched. */
  private applyKeep(dir: string, keep: number): string[] {
    if (keep <= 0) return [];
    const removed: string[] = [];
    for (const old of scheduledArchives(dir).slice(keep)) {
      try {
        unlinkSync(old.path);
        removed.push(old.path);
      } catch (err) {
        this.d.logger.warn(
          { path: old.path, err: (err as Error).message },
          'old backup not removed',
        );
      }
    }
    return removed;
  }
}
