/**
 * The adapter record of SPEC §2.3 (`GET /v1/agents`), built from the adapter's traits, where its
 * binary is, and what the last probe learned: merged catalogues (cli values first, then curated
 * values not already listed), the version verdict against `tested_versions`, the input and
 * restricted verdicts, and the `logged_in` window. Pure: the service supplies the probe and quota.
 */
import semver from 'semver';
import type { AgentAdapter, AgentProbe, InputVerdict, RestrictedVerdict } from '../plugin/index.js';
import type { PathProblem } from './locate.js';
import type { QuotaBlock } from './quota.js';

export type VersionVerdict = 'tested' | 'untested' | 'incompatible' | '';

export interface CatalogueValue {
  value: string;
  source: 'cli' | 'curated';
}

export interface AgentRecord {
  name: string;
  available: boolean;
  path: string;
  /** `agents.<name>.path` as configured, also when it is missing (empty: looked up on PATH). */
  configured_path: string;
  /** Why the configured path is not used (`missing`, `not_executable`); null when it is, or none is set. */
  path_problem: PathProblem | null;
  version: string;
  supports_input: boolean;
  input_verdict: InputVerdict;
  logged_in: boolean | null;
  supports_resume: boolean;
  supports_skill_listing: boolean;
  skill_sigil: string;
  skill_position: string;
  supports_file_mentions: boolean;
  file_mention_sigil: string;
  file_mention_position: string;
  file_mention_expands: boolean;
  version_verdict: VersionVerdict;
  tested_versions: string;
  restricted_verdict: RestrictedVerdict;
  models: CatalogueValue[];
  efforts: CatalogueValue[];
  default_model: string;
  default_effort: string;
  probed_at: string | null;
  probe_error: string | null;
  quota: QuotaBlock | null;
}

/** `cli` values in the CLI's order, then curated values it did not list (SPEC §2.3 `source`). */
export function mergeCatalogue(
  cli: readonly string[] | null,
  curated: readonly string[],
): CatalogueValue[] {
  const out: CatalogueValue[] = (cli ?? []).map((value) => ({ value, source: 'cli' as const }));
  for (const value of curated)
    if (!out.some((v) => v.value === value)) out.push({ value, source: 'curated' });
  return out;
}

export function inVersionWindow(
  version: string | null,
  window: { min: string; below: string },
): boolean {
  const v = version ? semver.coerce(version) : null;
  if (!v) return false;
  return semver.gte(v, window.min) && semver.lt(v, window.below);
}

/**
 * `tested` by whole-string equality with `tested_versions`; `incompatible` when the build cannot
 * speak the protocol the adapter plans for it (an input-capable adapter whose own input verdict
 * refuses this build, decision 047); `untested` otherwise; empty when nothing is installed.
 */
export function versionVerdict(adapter: AgentAdapter, version: string | null): VersionVerdict {
  if (!version) return '';
  if (adapter.tested_versions.includes(version)) return 'tested';
  if (adapter.traits.supports_input && adapter.inputVerdict(version) === 'unsupported')
    return 'incompatible';
  return 'untested';
}

export interface RecordInput {
  adapter: AgentAdapter;
  platform: NodeJS.Platform;
  path: string | null;
  configuredPath?: string;
  pathProblem?: PathProblem | null;
  probe: AgentProbe | null;
  probedAt: string | null;
  quota: QuotaBlock | null;
}

export function buildRecord(i: RecordInput): AgentRecord {
  const { adapter } = i;
  const t = adapter.traits;
  const probe = i.path ? i.probe : null;
  const version = probe?.version ?? null;
  let loggedIn = probe?.logged_in ?? null;
  // Never guessed: a build outside the adapter's auth-probe window answers null (SPEC §2.3).
  if (adapter.logged_in_probe_window && !inVersionWindow(version, adapter.logged_in_probe_window))
    loggedIn = null;
  return {
    name: adapter.name,
    available: i.path !== null,
    path: i.path ?? '',
    configured_path: i.configuredPath ?? '',
    path_problem: i.pathProblem ?? null,
    version: version ?? '',
    supports_input: t.supports_input,
    input_verdict: adapter.inputVerdict(i.path ? version : null),
    logged_in: loggedIn,
    supports_resume: t.supports_resume,
    supports_skill_listing: t.supports_skill_listing,
    skill_sigil: t.skill_sigil,
    skill_position: t.skill_position,
    supports_file_mentions: t.supports_file_mentions,
    file_mention_sigil: t.file_mention_sigil,
    file_mention_position: t.file_mention_position,
    file_mention_expands: t.file_mention_expands,
    version_verdict: versionVerdict(adapter, version),
    tested_versions: adapter.tested_versions.join(','),
    restricted_verdict: adapter.restrictedVerdict(i.platform),
    models: mergeCatalogue(probe?.models ?? null, adapter.catalogue.models),
    efforts: mergeCatalogue(probe?.efforts ?? null, adapter.catalogue.efforts),
    default_model: adapter.catalogue.default_model,
    default_effort: adapter.catalogue.default_effort,
    probed_at: i.probedAt,
    probe_error: probe?.probe_error ?? null,
    quota: i.quota,
  };
}
