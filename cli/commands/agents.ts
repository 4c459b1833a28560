/**
 * `svc agents` (SPEC §2.3, §2.4): the agent adapter records as a table — where each CLI is, its
 * version and verdicts, login, whether it can ask for input, and its usage quota. `--refresh`
 * re-probes every installed CLI and re-reads quota; `--json` prints the API response.
 */
import { type Command, JSON_OPTION } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { table } from '../format.js';

interface QuotaBlock {
  spent: boolean;
  used_percent: number | null;
  window: string | null;
  resets_at: string;
  resets_at_reported: boolean;
  source: string;
}

export interface AgentRecord {
  name: string;
  available: boolean;
  path: string;
  /** Absent from an older daemon. */
  configured_path?: string;
  path_problem?: 'missing' | 'not_executable' | null;
  version: string;
  version_verdict: string;
  logged_in: boolean | null;
  input_verdict: string;
  restricted_verdict: string;
  probe_error: string | null;
  quota: QuotaBlock | null;
}

const ZERO_TIME = '0001-01-01T00:00:00Z';

/** `97% of 7d, resets 2026-11-22T03:00:00Z`, `spent until …`, `recovered`, or `-`. */
export function quotaText(q: QuotaBlock | null): string {
  if (!q) return '-';
  const reset = q.resets_at !== ZERO_TIME ? q.resets_at : '';
  const when = reset ? `${q.resets_at_reported ? '' : '~'}${reset}` : '';
  if (q.used_percent === null) return q.spent ? `spent until ${when}` : 'recovered';
  const share = `${Math.round(q.used_percent)}%${q.window ? ` of ${q.window}` : ''}`;
  return `${q.spent ? 'spent: ' : ''}${share}${when ? `, resets ${when}` : ''}`;
}

function login(v: boolean | null): string {
  return v === null ? '?' : v ? 'yes' : 'no';
}

const PROBLEM_TEXT = { missing: 'does not exist', not_executable: 'not executable' } as const;

/** Where the CLI is, or the configured path it is not at (`/opt/claude (does not exist)`). */
export function pathText(a: AgentRecord): string {
  if (a.path) return a.path;
  if (a.configured_path)
    return `${a.configured_path} (${a.path_problem ? PROBLEM_TEXT[a.path_problem] : 'not found'})`;
  return '-';
}

export const agentsList: Command = {
  name: 'agents',
  summary: 'List the agent CLIs: availability, version verdict, login, input, restricted, quota',
  usage: 'svc agents [--refresh] [--verbose] [--json]',
  options: {
    refresh: { type: 'boolean', description: 're-probe every installed CLI and re-read quota' },
    verbose: {
      type: 'boolean',
      short: 'v',
      description: 'also say why a CLI’s own model or effort list could not be read',
    },
    ...JSON_OPTION,
  },
  async run(ctx) {
    const { agents } = await ctx
      .client()
      .get<{ agents: AgentRecord[] }>('/v1/agents', ctx.options.refresh ? { refresh: true } : {});
    if (ctx.options.json) {
      ctx.out(JSON.stringify({ agents }, null, 2));
      return EXIT.ok;
    }
    const rows = [['NAME', 'VERSION', 'VERDICT', 'LOGIN', 'INPUT', 'RESTRICTED', 'QUOTA', 'PATH']];
    for (const a of agents)
      rows.push([
        a.name,
        a.available ? a.version || '?' : 'missing',
        a.version_verdict || '-',
        a.available ? login(a.logged_in) : '-',
        a.input_verdict,
        a.restricted_verdict,
        quotaText(a.quota),
        pathText(a),
      ]);
    ctx.out(table(rows));
    // A failed option probe only means the curated catalogue is served: detail for --verbose.
    if (ctx.options.verbose)
      for (const a of agents)
        if (a.probe_error) ctx.err(`${a.name}: ${a.probe_error} (serving the curated catalogue)`);
    return EXIT.ok;
  },
};

export const agentCommands: Command[] = [agentsList];
