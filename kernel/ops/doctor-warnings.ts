/**
 * The doctor's warnings (decision 201): what a user should hear about that is not the daemon's
 * verdict. SPEC §2.9 keeps `problems[]` a closed set — a missing or logged-out agent CLI never
 * joins it, and the exit status follows it — so these travel in `warnings[]` of the report, each
 * `{code, group, message, ...}` with the code a client branches on and a message that says what to
 * do. Other rooms add their codes here (one list, one shape).
 */
import { pathProblem } from '../agents/index.js';
import type { Config } from '../config/index.js';
import type { AgentFacts } from './agent-facts.js';

export const WARNING_CODES = [
  /** Every adapter is missing or logged out: no agent step can run. */
  'no_usable_agent',
  /** `agents.<name>.path` names a file that does not exist. */
  'agent_path_missing',
  /** `agents.<name>.path` names something that is not an executable file. */
  'agent_path_not_executable',
] as const;
export type WarningCode = (typeof WARNING_CODES)[number];

export interface DoctorWarning {
  code: WarningCode;
  /** The report group holding the evidence. */
  group: 'agents' | 'paths' | 'database' | 'storage' | 'tasks' | 'backup';
  message: string;
  /** The config key the warning is about, when there is one. */
  key?: string;
  /** The file or folder the warning is about, when there is one. */
  path?: string;
}

/** Why an agent row cannot run a step, or null when it might (login unknown counts as might). */
function unusable(a: AgentFacts): string | null {
  if (!a.available) return 'not installed';
  if (a.logged_in === false) return 'logged out';
  return null;
}

/**
 * Warnings about agents: configured paths that cannot be run (naming the key and the path), and
 * "no agent is usable" when every adapter is missing or logged out.
 */
export function agentWarnings(
  agents: readonly AgentFacts[],
  configuredPaths: Readonly<Record<string, string>>,
): DoctorWarning[] {
  const out: DoctorWarning[] = [];
  for (const [name, path] of Object.entries(configuredPaths)) {
    if (!path) continue;
    const problem = pathProblem(path);
    if (!problem) continue;
    const key = `agents.${name}.path`;
    out.push({
      code: problem === 'missing' ? 'agent_path_missing' : 'agent_path_not_executable',
      group: 'agents',
      key,
      path,
      message: `${key} is ${path}, which ${problem === 'missing' ? 'does not exist' : 'is not an executable file'}; point it at the ${name} binary (svc config set ${key} <path>) or clear it (svc config set ${key} "") to find ${name} on the daemon's PATH`,
    });
  }
  const why = agents.map((a) => [a.name, unusable(a)] as const);
  if (why.every(([, w]) => w !== null))
    out.push({
      code: 'no_usable_agent',
      group: 'agents',
      message:
        agents.length === 0
          ? 'no agent is usable: no agent adapter is registered'
          : `no agent is usable (${why.map(([n, w]) => `${n} ${w}`).join(', ')}): agent steps will fail agent_unavailable; install one and log in to it (docs/getting-started.md, step 3), or set agents.<name>.path`,
    });
  return out;
}

/** `agents.<name>.path` of every adapter the config names. */
export function configuredAgentPaths(config: Config): Record<string, string> {
  const agents = (config.agents ?? {}) as Record<string, { path?: string } | undefined>;
  return Object.fromEntries(Object.entries(agents).map(([name, a]) => [name, a?.path ?? '']));
}
