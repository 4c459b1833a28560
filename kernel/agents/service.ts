/**
 * The agents service (decision 040): one place that knows, per registered adapter, where its CLI
 * is, what the last probe learned (cached by path + mtime + version, decision 041), and its usage
 * quota (decision 042). It serves `GET /v1/agents`, the `agents[]` of `/v1/info` and the doctor,
 * the value sets workflows are validated against, the task-creation checks (`AgentPort`), and —
 * as `StepContext.services.agents` — everything an agent step needs at run time (`AgentHost`).
 */
import { tmpdir } from 'node:os';
import type { Logger } from 'pino';
import { type Clock, formatMs } from '../clock/index.js';
import { type ConfigService, parseDuration } from '../config/index.js';
import type { EventLog } from '../events/index.js';
import type {
  AgentAdapter,
  AgentHost,
  AgentProbe,
  AgentValueSets,
  ContinuableSession,
  LocatedAgent,
  QuotaWindow,
  Registry,
  ResolvedAgentValues,
  StepContext,
  StepMcpEndpoint,
  UsageTotals,
} from '../plugin/index.js';
import { resolveEnvironment } from '../proc/index.js';
import { StepRunsTable, type Store } from '../store/index.js';
import { type Location, locateBinary } from './locate.js';
import { probeRunner } from './probe-runner.js';
import { QuotaBook } from './quota.js';
import { type AgentRecord, buildRecord, mergeCatalogue } from './record.js';
import { resolveAgentValues } from './resolve.js';

/** A failed probe (an option listing that failed, or no version) is asked again after this. */
export const FAILED_PROBE_RETRY_MS = 60_000;

/**
 * How much of a record a caller may pay for:
 * - `fresh`: re-probe every installed CLI and re-read quota now (`?refresh=true`, the doctor);
 * - `auto`: probe what the cache lacks (or failed over a minute ago), read quota at most every
 *   5 minutes (`GET /v1/agents`);
 * - `cached`: probe only a CLI never probed, no quota read (doctor `probe=false`);
 * - `none`: never spawn (`/v1/info`): PATH lookup plus whatever the cache holds.
 */
export type ProbeMode = 'fresh' | 'auto' | 'cached' | 'none';

interface CacheEntry {
  /** realpath + mtime + size of the binary probed; the probe itself supplies the version. */
  key: string;
  probe: AgentProbe;
  at: number;
}

export type McpWiring = (ctx: StepContext, agent: string) => Promise<StepMcpEndpoint | null>;

export interface AgentServiceDeps {
  registry: Registry;
  config: ConfigService;
  clock: Clock;
  store: Store;
  events: EventLog;
  logger: Logger;
  platform: NodeJS.Platform;
  /** Where probes run when they do not name a directory. */
  probeCwd?: string;
  isRoot?: boolean;
}

/** The rows doctor and `/v1/info` show (SPEC §2.9 `agents[]`, decision 064's seam). */
export interface AgentFactsRow {
  name: string;
  available: boolean;
  path: string;
  version: string;
  logged_in: boolean | null;
  supports_input: boolean;
  version_verdict: AgentRecord['version_verdict'];
  tested_versions: string;
  restricted_verdict: AgentRecord['restricted_verdict'];
  quota: AgentRecord['quota'];
}

export class AgentService implements AgentHost {
  readonly quota: QuotaBook;
  readonly isRoot: boolean;
  private readonly cache = new Map<string, CacheEntry>();
  private readonly inflight = new Map<string, Promise<CacheEntry | null>>();
  private readonly runs: StepRunsTable;
  private mcpWiring: McpWiring | null = null;

  constructor(private readonly d: AgentServiceDeps) {
    this.quota = new QuotaBook(d.store, d.events, d.clock);
    this.runs = new StepRunsTable(d.store.db);
    this.isRoot = d.isRoot ?? process.getuid?.() === 0;
    for (const a of d.registry.listAgents()) this.quota.seed(a.name);
  }

  // ─── lookup and probing ─────────────────────────────────────────────────────────────────────

  /** The host as adapters' verdicts see it (`win32` for a Windows host). */
  get platform(): NodeJS.Platform {
    return this.d.platform;
  }

  adapter(name: string): AgentAdapter | undefined {
    return this.d.registry.agent(name);
  }

  adapters(): AgentAdapter[] {
    return this.d.registry.listAgents();
  }

  /** SPEC §2.8 "daemon default": the first adapter registered (discovery order: claude). */
  defaultAgent(): string | null {
    return this.adapters()[0]?.name ?? null;
  }

  private env(): Record<string, string> {
    return resolveEnvironment(this.d.config.current().environment);
  }

  where(adapter: AgentAdapter): Location {
    const agents = this.d.config.current().agents as Record<string, { path?: string } | undefined>;
    return locateBinary(
      adapter.binary,
      agents[adapter.name]?.path ?? '',
      this.env(),
      this.d.platform,
    );
  }

  private async probeNow(adapter: AgentAdapter, loc: Location): Promise<CacheEntry | null> {
    const running = this.inflight.get(adapter.name);
    if (running) return running;
    const path = loc.path as string;
    const job = (async () => {
      let probe: AgentProbe;
      try {
        probe = await adapter.probe({
          path,
          run: probeRunner(path, this.env(), this.d.probeCwd ?? tmpdir()),
        });
      } catch (err) {
        // A contract breach (probes never throw): report it as a failed option probe.
        probe = {
          version: null,
          logged_in: null,
          models: null,
          efforts: null,
          probe_error: `probe threw: ${(err as Error).message}`,
        };
      }
      const entry = { key: loc.key, probe, at: this.d.clock.now() };
      this.cache.set(adapter.name, entry);
      this.d.logger.debug(
        { agent: adapter.name, version: probe.version, probe_error: probe.probe_error },
        'agent probed',
      );
      return entry;
    })().finally(() => this.inflight.delete(adapter.name));
    this.inflight.set(adapter.name, job);
    return job;
  }

  private failed(e: CacheEntry): boolean {
    return e.probe.probe_error !== null || e.probe.version === null;
  }

  /** The cache entry for the binary at `loc`, probing as `mode` allows. */
  private async entryFor(
    adapter: AgentAdapter,
    loc: Location,
    mode: ProbeMode,
  ): Promise<CacheEntry | null> {
    if (!loc.path) return null;
    const cached = this.cache.get(adapter.name);
    const valid = cached && cached.key === loc.key ? cached : null;
    const stale =
      !valid || (this.failed(valid) && this.d.clock.now() - valid.at >= FAILED_PROBE_RETRY_MS);
    if (mode === 'fresh' || (mode === 'auto' && stale) || (mode === 'cached' && !cached))
      return this.probeNow(adapter, loc);
    return valid;
  }

  private async readQuota(adapter: AgentAdapter, path: string | null, mode: ProbeMode) {
    const src = adapter.quota;
    if (src?.kind !== 'pull' || !path) return;
    if (mode !== 'fresh' && !(mode === 'auto' && this.quota.pullDue(adapter.name))) return;
    this.quota.markPulled(adapter.name);
    try {
      const r = await src.read({ path, run: probeRunner(path, this.env(), tmpdir()) });
      if (r.kind === 'reading') this.quota.setReading(adapter.name, src.source, r.windows);
      else if (r.kind === 'none') this.quota.setReading(adapter.name, src.source, []);
      // An error keeps the last reading: no quota failure fails anything (SPEC §2.4).
    } catch (err) {
      this.d.logger.warn({ err, agent: adapter.name }, 'quota read threw');
    }
  }

  async record(adapter: AgentAdapter, mode: ProbeMode): Promise<AgentRecord> {
    const loc = this.where(adapter);
    const entry = await this.entryFor(adapter, loc, mode);
    await this.readQuota(adapter, loc.path, mode);
    return buildRecord({
      adapter,
      platform: this.d.platform,
      path: loc.path,
      configuredPath: loc.configured,
      pathProblem: loc.problem,
      probe: entry?.probe ?? null,
      // A missing CLI was "probed" by the lookup just made; an installed one by its last probe.
      probedAt: entry ? formatMs(entry.at) : loc.path ? null : formatMs(this.d.clock.now()),
      quota: this.quota.block(adapter.name),
    });
  }

  records(mode: ProbeMode): Promise<AgentRecord[]> {
    return Promise.all(this.adapters().map((a) => this.record(a, mode)));
  }

  /**
   * Doctor and `/v1/info` rows (SPEC §2.9), the seam of decision 064: `fresh` re-probes (the
   * doctor's default), `cached` serves this cache (`probe=false`), `none` never spawns (info).
   */
  async rows(mode: 'fresh' | 'cached' | 'none'): Promise<AgentFactsRow[]> {
    return (await this.records(mode)).map((r) => ({
      name: r.name,
      available: r.available,
      path: r.path,
      version: r.version,
      logged_in: r.logged_in,
      supports_input: r.supports_input,
      version_verdict: r.version_verdict,
      tested_versions: r.tested_versions,
      restricted_verdict: r.restricted_verdict,
      quota: r.quota,
    }));
  }

  /** The cached probe of `name`'s current binary, without spawning (validation never probes). */
  cachedVersion(adapter: AgentAdapter): string | null {
    const loc = this.where(adapter);
    const e = this.cache.get(adapter.name);
    return loc.path && e && e.key === loc.key ? e.probe.version : null;
  }

  /** Whether the installed CLI listed its own `key` (a clean probe of the current binary). */
  listedByCli(adapter: AgentAdapter, key: 'models' | 'efforts'): boolean {
    const e = this.cache.get(adapter.name);
    return e?.probe[key] != null && e.key === this.where(adapter).key;
  }

  /** Models and efforts per adapter as the cache knows them (cli, then curated), never probing. */
  valueSets(): AgentValueSets {
    const models: Record<string, string[]> = {};
    const efforts: Record<string, string[]> = {};
    for (const a of this.adapters()) {
      const e = this.cache.get(a.name);
      models[a.name] = mergeCatalogue(e?.probe.models ?? null, a.catalogue.models).map(
        (v) => v.value,
      );
      efforts[a.name] = mergeCatalogue(e?.probe.efforts ?? null, a.catalogue.efforts).map(
        (v) => v.value,
      );
    }
    return { agents: this.adapters().map((a) => a.name), models, efforts };
  }

  // ─── AgentHost: what an agent step asks at run time ─────────────────────────────────────────

  resolve(
    step: Readonly<Record<string, unknown>>,
    ctx: Pick<StepContext, 'task' | 'setting'>,
  ): ResolvedAgentValues {
    const fromSettings = (key: string) => {
      // `setting` answers the step's own value first; the step was consulted already.
      const v = step[key] === undefined ? ctx.setting(key) : undefined;
      return typeof v === 'string' ? v : undefined;
    };
    return resolveAgentValues(
      step,
      {
        overrides: {
          agent: ctx.task.agent_override,
          model: ctx.task.model_override,
          effort: ctx.task.effort_override,
        },
        defaults: {
          agent: fromSettings('agent'),
          model: fromSettings('model'),
          effort: fromSettings('effort'),
        },
      },
      this,
    );
  }

  async locate(name: string): Promise<LocatedAgent> {
    const adapter = this.adapter(name);
    if (!adapter) return { ok: false, message: `agent ${name} is not a registered adapter` };
    const loc = this.where(adapter);
    if (!loc.path)
      return { ok: false, message: `${name} is not installed (looked for ${loc.looked})` };
    // A run probes only a cold (or failed a minute ago) cache, to learn the version it gates on.
    const entry = await this.entryFor(adapter, loc, 'auto');
    return { ok: true, path: loc.path, version: entry?.probe.version ?? null };
  }

  now(): number {
    return this.d.clock.now();
  }

  debug(): boolean {
    return this.d.config.current().debug;
  }

  /** Issue 9 plugs the per-step MCP endpoint in here; until then no run is wired. */
  wireMcp(fn: McpWiring): void {
    this.mcpWiring = fn;
  }

  async mcpFor(ctx: StepContext, agent: string): Promise<StepMcpEndpoint | null> {
    return this.mcpWiring ? this.mcpWiring(ctx, agent) : null;
  }

  sessionToContinue(taskId: number, agent: string): ContinuableSession | null {
    const row = this.d.store.db
      .prepare(
        `SELECT r.session_id AS session_id, t.input_tokens AS input_tokens, t.output_tokens AS output_tokens
           FROM step_runs r LEFT JOIN agent_session_totals t ON t.run_id = r.id
          WHERE r.task_id = ? AND r.agent = ? AND r.session_id IS NOT NULL AND r.state <> 'running'
          ORDER BY r.id DESC LIMIT 1`,
      )
      .get(taskId, agent) as
      | { session_id: string; input_tokens: number | null; output_tokens: number | null }
      | undefined;
    if (!row) return null;
    return {
      session_id: row.session_id,
      totals:
        row.input_tokens !== null && row.output_tokens !== null
          ? { input_tokens: row.input_tokens, output_tokens: row.output_tokens }
          : null,
    };
  }

  recordRun(
    runId: number,
    fields: { agent: string; model: string | null; effort: string | null },
  ): void {
    this.runs.update(runId, fields);
  }

  recordSessionTotals(runId: number, totals: UsageTotals): void {
    this.d.store.db
      .prepare(
        `INSERT INTO agent_session_totals (run_id, input_tokens, output_tokens) VALUES (?, ?, ?)
         ON CONFLICT(run_id) DO UPDATE SET input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens`,
      )
      .run(runId, totals.input_tokens, totals.output_tokens);
  }

  usageLimited(
    agent: string,
    resetsAt: string | null,
    message: string,
  ): 'always' | 'reported_only' | 'never' {
    const config = this.d.config.current();
    this.quota.observe(
      agent,
      resetsAt,
      parseDuration(config.usage_limit_recheck_interval),
      message,
    );
    return this.adapter(agent)?.usage_limit_auto_continue === 'inert'
      ? 'always'
      : config.usage_limit_auto_continue;
  }

  succeeded(agent: string): void {
    this.quota.clearObservation(agent);
  }

  quotaSeen(agent: string, source: string, windows: QuotaWindow[]): void {
    if (windows.length > 0) this.quota.setReading(agent, source, windows);
  }
}
