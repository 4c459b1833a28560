/**
 * Catalogue checks for every place a workflow names an agent, model or effort (an agent step, a
 * lane, the `defaults` block). An agent no adapter provides is an error; a model or effort the
 * agent's catalogue does not list is a warning, because catalogues trail the CLIs (SPEC §4.4
 * rule 2 treats unknown catalogue values the same way at task creation).
 */
import type { StepFinding, StepValidationContext } from './step.js';

export function agentValueFindings(
  values: { agent?: unknown; model?: unknown; effort?: unknown },
  resolvedAgent: unknown,
  agents: StepValidationContext['agents'],
): StepFinding[] {
  if (!agents) return [];
  const out: StepFinding[] = [];
  if (typeof values.agent === 'string' && agents.agents.length > 0) {
    if (!agents.agents.includes(values.agent)) {
      out.push({
        path: ['agent'],
        code: 'unknown_agent',
        message: `agent "${values.agent}" is not one of ${agents.agents.join(', ')}`,
      });
      return out;
    }
  }
  if (typeof resolvedAgent !== 'string') return out;
  for (const key of ['model', 'effort'] as const) {
    const value = values[key];
    const known = (key === 'model' ? agents.models : agents.efforts)[resolvedAgent] ?? [];
    if (typeof value === 'string' && value !== '' && known.length > 0 && !known.includes(value)) {
      out.push({
        path: [key],
        code: `unknown_${key}`,
        severity: 'warning',
        message: `${key} "${value}" is not in ${resolvedAgent}'s catalogue (${known.join(', ')})`,
      });
    }
  }
  return out;
}
