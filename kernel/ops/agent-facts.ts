/**
 * The agent rows of the doctor report and of `/v1/info` (SPEC §2.9 `agents[]`, §2.3 verdicts).
 *
 * This is a seam (decision 064): doctor and info depend only on `AgentFactsSource`, registered in
 * the container as `agentFacts`. The implementation here is deliberately plain — the configured
 * path or a PATH lookup, then `adapter.probe()` through a small runner, cached in memory — so the
 * reports work before the kernel's agents service (the `/v1/agents` probe cache, quota readings)
 * lands. That service replaces the registration and fills `quota`; nothing else changes.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { probeRunner } from '../agents/probe-runner.js';
import { versionVerdict } from '../agents/record.js';
import type { Config } from '../config/index.js';
import type { AgentAdapter, AgentProbe, Registry } from '../plugin/index.js';
import { resolveEnvironment } from '../proc/index.js';

export type VersionVerdict = 'tested' | 'untested' | 'incompatible' | '';

export interface AgentFacts {
  name: string;
  available: boolean;
  path: string;
  version: string;
  /** true: credentials configured (not validated); false: logged out; null: could not tell. */
  logged_in: boolean | null;
  supports_input: boolean;
  version_verdict: VersionVerdict;
  tested_versions: string;
  restricted_verdict: 'supported' | 'unsupported' | 'unknown';
  /** SPEC §2.4 block; null until the agents service (quota readings and observations) is wired. */
  quota: unknown | null;
}

export type ProbeMode =
  /** Re-probe every installed CLI now (`GET /v1/doctor`). */
  | 'fresh'
  /** Serve the cache; probe only what was never probed (`probe=false`). */
  | 'cached'
  /** Never spawn: availability from the PATH lookup plus whatever the cache holds (`/v1/info`). */
  | 'none';

export interface AgentFactsSource {
  rows(mode: ProbeMode): Promise<AgentFacts[]>;
}

/** Finds an executable: an absolute configured path as is, else each PATH entry in order. */
export function whichBinary(program: string, pathVar: string | undefined): string | null {
  const executable = (p: string) => {
    try {
      accessSync(p, constants.X_OK);
      return statSync(p).isFile();
    } catch {
      return false;
    }
  };
  if (isAbsolute(program) || program.includes('/')) return executable(program) ? program : null;
  for (const dir of (pathVar ?? '').split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, program);
    if (executable(p)) return p;
  }
  return null;
}

interface CacheEntry {
  key: string;
  probe: AgentProbe;
}

/** Availability by lookup, details by `adapter.probe()`, cached by path + mtime. */
export class ProbingAgentFacts implements AgentFactsSource {
  private readonly cache = new Map<string, CacheEntry>();

  constructor(
    private readonly registry: Registry,
    private readonly config: () => Config,
  ) {}

  async rows(mode: ProbeMode): Promise<AgentFacts[]> {
    const config = this.config();
    const env = resolveEnvironment(config.environment);
    const pathVar = env.PATH ?? process.env.PATH;
    return Promise.all(
      this.registry.listAgents().map((adapter) => this.row(adapter, config, env, pathVar, mode)),
    );
  }

  private async row(
    adapter: AgentAdapter,
    config: Config,
    env: Record<string, string>,
    pathVar: string | undefined,
    mode: ProbeMode,
  ): Promise<AgentFacts> {
    const configured = (config.agents as Record<string, { path: string } | undefined>)[adapter.name]
      ?.path;
    const path = whichBinary(configured || adapter.binary, pathVar);
    const base: AgentFacts = {
      name: adapter.name,
      available: path !== null,
      path: path ?? '',
      version: '',
      logged_in: null,
      supports_input: adapter.traits.supports_input,
      version_verdict: '',
      tested_versions: adapter.tested_versions.join(','),
      restricted_verdict: adapter.restrictedVerdict(process.platform),
      quota: null,
    };
    if (!path) return base;
    let mtime = 0;
    try {
      mtime = statSync(path).mtimeMs;
    } catch {}
    const key = `${path}\u0000${mtime}`;
    let entry = this.cache.get(adapter.name);
    if (entry && entry.key !== key) entry = undefined;
    if (mode === 'fresh' || (mode === 'cached' && !entry)) {
      try {
        const probe = await adapter.probe({ path, run: probeRunner(path, env, process.cwd()) });
        entry = { key, probe };
        this.cache.set(adapter.name, entry);
      } catch {
        // A contract breach (probe threw): report what the lookup knows, probe again next time.
      }
    }
    if (!entry) return base;
    const version = entry.probe.version;
    return {
      ...base,
      version: version ?? '',
      logged_in: entry.probe.logged_in,
      version_verdict: versionVerdict(adapter, version),
    };
  }
}
