/**
 * The environment policy (SPEC §2.10 `environment`): inherit (all, none, or a list of names), then
 * unset, then set literal values (no expansion). Applied to every child process svc starts for a
 * user: steps, checks, agents, notify commands. Command steps add `SVC_*` and their own `env:`.
 */
import { inheritedEnv } from '../launch/index.js';

export interface EnvironmentPolicy {
  inherit: 'all' | 'none' | string[];
  unset: string[];
  set: Record<string, string>;
}

export function resolveEnvironment(
  policy: EnvironmentPolicy,
  base: NodeJS.ProcessEnv = inheritedEnv(),
): Record<string, string> {
  const out: Record<string, string> = {};
  if (policy.inherit === 'all') {
    for (const [k, v] of Object.entries(base)) if (v !== undefined) out[k] = v;
  } else if (Array.isArray(policy.inherit)) {
    for (const k of policy.inherit) {
      const v = base[k];
      if (v !== undefined) out[k] = v;
    }
  }
  for (const k of policy.unset) delete out[k];
  for (const [k, v] of Object.entries(policy.set)) out[k] = v;
  return out;
}
