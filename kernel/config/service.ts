/**
 * The configuration in force: first-start file, start-up validation (fatal, naming the key),
 * hot reload (a valid edit in force within a second, an invalid one logged with the last good
 * kept, `listen` waiting for a restart) and `PATCH /v1/config` (validate the merged result,
 * write only the touched keys, apply before answering; a refusal leaves the file byte-identical).
 */
import { createHash } from 'node:crypto';
import { chmodSync, existsSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { type FSWatcher, watch } from 'chokidar';
import type { Logger } from 'pino';
import { ensurePrivateDir } from '../daemon/paths.js';
import { SvcError } from '../errors.js';
import { writeFileAtomic } from '../fsutil.js';
import { type Finding, summarizeFindings } from '../input/index.js';
import {
  CONFIG_MAX_BYTES,
  isBlankConfig,
  parseConfigText,
  readConfigText,
  validateRawConfig,
} from './load.js';
import { applyConfigPatch } from './patch.js';
import type { Config } from './schema.js';
import { configTemplate } from './template.js';

export class ConfigError extends Error {
  constructor(
    readonly file: string,
    readonly findings: Finding[],
  ) {
    super(`invalid configuration in ${file}: ${summarizeFindings(findings)}`);
    this.name = 'ConfigError';
  }
}

/**
 * A check beyond the schema that needs other services (a branch template that must compile, an
 * agents key naming a registered adapter). At start-up a failure is fatal. On reload,
 * `keep_previous` keeps the key's last good value while the rest of the edit applies, and
 * `reject` refuses the whole edit.
 */
export interface ConfigCheck {
  key: string;
  onReload: 'keep_previous' | 'reject';
  check(config: Config): Finding[];
}

export type ConfigSource = 'start' | 'file' | 'api';
export type ConfigListener = (next: Config, previous: Config, source: ConfigSource) => void;

export interface ConfigServiceOptions {
  configDir: string;
  configFile: string;
  logger: Logger;
  /** Debounce before a changed file is re-read; editors often write in several steps. */
  reloadDelayMs?: number;
  /**
   * True on the daemon's first start (no database yet): an empty config.yaml is then replaced by
   * the commented default, where later it is refused like any invalid file (decision 187).
   */
  firstStart?: boolean;
  /** When a rejected edit was seen (the daemon's clock). */
  now?: () => Date;
}

/**
 * The file on disk as the daemon last read it, when that edit was refused and the last good
 * configuration stayed in force (issue 19 point 14): `svc config get` says so instead of printing
 * values the file no longer holds as if they were the file's.
 */
export interface ConfigFileRejection {
  file: string;
  /** RFC 3339, when the daemon read the refused edit. */
  at: string;
  /** Every finding, in one sentence (each names its key once). */
  message: string;
  errors: Finding[];
}

function keyOf(config: Config, key: string): unknown {
  return key
    .split('.')
    .reduce<unknown>(
      (o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined),
      config,
    );
}

function withKey(config: Config, key: string, value: unknown): Config {
  const copy = structuredClone(config) as unknown as Record<string, unknown>;
  const parts = key.split('.');
  let o = copy;
  for (const p of parts.slice(0, -1)) o = o[p] as Record<string, unknown>;
  o[parts[parts.length - 1] as string] = value;
  return copy as unknown as Config;
}

export class ConfigService {
  private config: Config | null = null;
  private bootListen = '';
  /** `listen` as the file says it, which may wait for the next start. */
  private fileListen = '';
  private lastTextHash = '';
  private readonly listeners = new Set<ConfigListener>();
  private readonly checks: ConfigCheck[] = [];
  private watcher: FSWatcher | null = null;
  private reloadTimer: NodeJS.Timeout | null = null;
  private reloads: Promise<void> = Promise.resolve();
  private rejected: ConfigFileRejection | null = null;

  constructor(private readonly opts: ConfigServiceOptions) {}

  get file(): string {
    return this.opts.configFile;
  }

  addCheck(check: ConfigCheck): void {
    this.checks.push(check);
  }

  onChange(listener: ConfigListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The configuration in force. Throws before `start()`. */
  current(): Config {
    if (!this.config) throw new Error('configuration not loaded yet');
    return this.config;
  }

  /**
   * Creates the directory (0700) and a commented default file (0600) on first start,
   * re-tightens both, and loads. Throws ConfigError naming the key when the file is invalid.
   */
  start(): Config {
    const { configDir, configFile } = this.opts;
    ensurePrivateDir(configDir);
    if (!existsSync(configFile)) writeFileAtomic(configFile, configTemplate(), 0o600);
    else if (process.platform !== 'win32') chmodSync(configFile, 0o600);
    let read = readConfigText(configFile);
    if (this.opts.firstStart && read.tooLarge === undefined && isBlankConfig(read.text)) {
      writeFileAtomic(configFile, configTemplate(), 0o600);
      read = readConfigText(configFile);
    }
    if (read.tooLarge !== undefined) throw new ConfigError(configFile, tooLarge(read.tooLarge));
    const text = read.text;
    const load = parseConfigText(text);
    if (!load.ok) throw new ConfigError(configFile, load.findings);
    const findings = this.checks.flatMap((c) => c.check(load.config));
    if (findings.length > 0) throw new ConfigError(configFile, findings);
    this.config = load.config;
    this.bootListen = load.config.listen;
    this.fileListen = load.config.listen;
    this.lastTextHash = hash(text);
    return load.config;
  }

  /** The last edit of the file the daemon refused, while no later edit or PATCH replaced it. */
  fileRejection(): ConfigFileRejection | null {
    return this.rejected;
  }

  private reject(findings: Finding[]): void {
    this.rejected = {
      file: this.opts.configFile,
      at: (this.opts.now?.() ?? new Date()).toISOString(),
      message: summarizeFindings(findings),
      errors: findings,
    };
  }

  /**
   * Keys whose value in the file is not the one in force because they apply at the next daemon
   * start (today only `listen`), with both values: `PATCH`/`GET /v1/config` name them in
   * `X-Svc-Pending-Restart`, so `svc config set listen …` can say so (issue 20).
   */
  pendingRestart(): Array<{ key: string; configured: unknown; in_force: unknown }> {
    return this.fileListen !== '' && this.fileListen !== this.bootListen
      ? [{ key: 'listen', configured: this.fileListen, in_force: this.bootListen }]
      : [];
  }

  /** Re-runs the extra checks against the config in force (after plugins registered theirs). */
  recheck(): void {
    const findings = this.checks.flatMap((c) => c.check(this.current()));
    if (findings.length > 0) throw new ConfigError(this.opts.configFile, findings);
  }

  /** Watches the file for edits. */
  watch(): void {
    if (this.watcher) return;
    this.watcher = watch(this.opts.configDir, { depth: 0, ignoreInitial: true });
    const schedule = () => {
      if (this.reloadTimer) clearTimeout(this.reloadTimer);
      this.reloadTimer = setTimeout(() => {
        this.reloadTimer = null;
        this.reloads = this.reloads.then(() => this.reloadFromFile());
      }, this.opts.reloadDelayMs ?? 50);
    };
    const onEvent = (path: string) => {
      if (path === this.opts.configFile) schedule();
    };
    // An edit made before chokidar's first scan ends is reported as nothing; reading the file
    // once more when the watcher is ready catches it (an unchanged file is a no-op by its hash).
    this.watcher
      .on('add', onEvent)
      .on('change', onEvent)
      .on('unlink', onEvent)
      .on('ready', schedule);
  }

  /** Resolves once the watcher is ready and any pending reload has been applied. */
  async settled(): Promise<void> {
    await this.reloads;
  }

  async close(): Promise<void> {
    if (this.reloadTimer) clearTimeout(this.reloadTimer);
    await this.watcher?.close();
    this.watcher = null;
  }

  /** Re-reads the file; exported for tests and for `SIGHUP`. */
  reloadFromFile(): void {
    const { logger, configFile } = this.opts;
    if (!existsSync(configFile)) {
      logger.warn(
        { file: configFile },
        'config.yaml was removed; the configuration in force stays',
      );
      return;
    }
    let read: { text: string; tooLarge?: number };
    try {
      read = readConfigText(configFile);
    } catch (err) {
      logger.error({ file: configFile, err }, 'config edit rejected: config.yaml cannot be read');
      return;
    }
    if (read.tooLarge !== undefined) {
      const findings = tooLarge(read.tooLarge);
      logger.error(
        { file: configFile, errors: findings },
        `config edit rejected: ${summarizeFindings(findings)}`,
      );
      this.lastTextHash = '';
      return;
    }
    const text = read.text;
    const h = hash(text);
    if (h === this.lastTextHash) return;
    const load = parseConfigText(text);
    if (!load.ok) {
      logger.error(
        { file: configFile, errors: load.findings },
        `config edit rejected: ${summarizeFindings(load.findings)}`,
      );
      this.lastTextHash = h;
      this.reject(load.findings);
      return;
    }
    const next = this.reconcile(load.config, 'file');
    this.lastTextHash = h;
    if (!next) return;
    this.rejected = null;
    this.apply(next, 'file');
  }

  /** Applies reload rules to a schema-valid candidate; null when the edit must be rejected. */
  private reconcile(candidate: Config, source: ConfigSource): Config | null {
    const { logger } = this.opts;
    let next = candidate;
    for (const c of this.checks) {
      const findings = c.check(next);
      if (findings.length === 0) continue;
      if (c.onReload === 'reject') {
        logger.error({ errors: findings }, `config edit rejected: ${summarizeFindings(findings)}`);
        if (source === 'file') this.reject(findings);
        return null;
      }
      logger.warn(
        { errors: findings },
        `${c.key} keeps its previous value: ${summarizeFindings(findings)}`,
      );
      next = withKey(next, c.key, keyOf(this.current(), c.key));
    }
    this.fileListen = next.listen;
    if (next.listen !== this.bootListen) {
      logger.warn(
        { listen: next.listen, in_force: this.bootListen, source },
        'listen changed; it takes effect at the next daemon start',
      );
      next = { ...next, listen: this.bootListen };
    }
    return next;
  }

  private apply(next: Config, source: ConfigSource): void {
    const previous = this.current();
    this.config = next;
    if (isDeepStrictEqual(previous, next)) return;
    this.opts.logger.info({ source }, 'configuration applied');
    for (const l of this.listeners) {
      try {
        l(next, previous, source);
      } catch (err) {
        this.opts.logger.error({ err }, 'config listener failed');
      }
    }
  }

  /**
   * PATCH /v1/config: merges a partial body over the file's own keys (null removes a key, so it
   * falls back to its default), validates the result, writes only the touched keys and applies it.
   */
  patch(body: unknown): Config {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new SvcError('validation_failed', 'the body must be a JSON object of config keys');
    }
    const { configFile } = this.opts;
    const exists = existsSync(configFile);
    const read = exists ? readConfigText(configFile) : { text: '' };
    const text = read.text;
    const current =
      read.tooLarge !== undefined
        ? ({ ok: false, findings: tooLarge(read.tooLarge), text } as const)
        : parseConfigText(text, { allowEmpty: !exists });
    if (!current.ok) {
      throw new SvcError(
        'validation_failed',
        `config.yaml does not validate as it is on disk; fix it first: ${summarizeFindings(current.findings)}`,
        { key: current.findings[0]?.path ?? '' },
      );
    }
    const edited = applyConfigPatch(text, body as Record<string, unknown>);
    const load = edited.ok ? parseConfigText(edited.text) : null;
    if (!edited.ok || !load) {
      throw new SvcError('validation_failed', edited.ok ? 'invalid patch' : edited.message, {
        key: edited.ok ? '' : edited.key,
      });
    }
    if (!load.ok) {
      throw new SvcError('validation_failed', summarizeFindings(load.findings), {
        key: load.findings[0]?.path ?? '',
      });
    }
    const strict = validateRawConfig(load.raw);
    if (!strict.ok) throw new SvcError('validation_failed', summarizeFindings(strict.findings));
    for (const c of this.checks) {
      const findings = c.check(load.config);
      if (findings.length > 0) {
        throw new SvcError('validation_failed', summarizeFindings(findings), { key: c.key });
      }
    }
    writeFileAtomic(configFile, edited.text, 0o600);
    this.lastTextHash = hash(edited.text);
    // The file now holds a valid edit: a refusal of an earlier one no longer describes it.
    this.rejected = null;
    const next = this.reconcile(load.config, 'api');
    if (next) this.apply(next, 'api');
    return this.current();
  }
}

function tooLarge(bytes: number): Finding[] {
  return [
    { path: '', message: `config.yaml is ${bytes} bytes, over the limit of ${CONFIG_MAX_BYTES}` },
  ];
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
