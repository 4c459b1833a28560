/**
 * The task-creation checks of the agent steps a task would run (the engine's `AgentPort`, SPEC §4.4
 * create rules 2 and 5, also used by repair and follow-up, decision 045). Validation never spawns:
 * catalogues come from the probe cache, the curated floor otherwise.
 *
 * - an agent no adapter provides: 400 naming the field;
 * - a model or effort in the step's own adapter's catalogue: fine; in another adapter's catalogue
 *   only: known-invalid, 400; in no catalogue: plausible, a warning (the CLI decides);
 * - an effort on an adapter without an effort setting: a warning (it is dropped);
 * - `permission_mode: restricted` (or a restricted task) on an adapter whose `restricted_verdict`
 *   is `unsupported` here: 400 naming the step and the agent;
 * - `on_input: require` on an adapter whose input verdict is `unsupported`: 400 naming both.
 */
import type { AgentOverrides, AgentPort, WorkflowSnapshot } from '../engine/index.js';
import { SvcError } from '../errors.js';
import type { AgentAdapter } from '../plugin/index.js';
import type { StepTypeLookup } from '../workflows/index.js';
import { agentSteps, resolveAgentValues } from './resolve.js';
import type { AgentService } from './service.js';

function fail(message: string, field: string): never {
  throw new SvcError('validation_failed', message, { field });
}

function label(step: Record<string, unknown>, where: string): string {
  return typeof step.id === 'string' ? `step ${step.id}` : where;
}

export function agentPort(service: AgentService, types: StepTypeLookup): AgentPort {
  const owner = (key: 'models' | 'efforts', value: string, except: string): string | null => {
    const sets = service.valueSets()[key];
    for (const [name, values] of Object.entries(sets))
      if (name !== except && values.includes(value)) return name;
    return null;
  };

  const checkValue = (
    key: 'model' | 'effort',
    value: string,
    source: string,
    adapter: AgentAdapter,
    who: string,
    warnings: Set<string>,
  ) => {
    if (value === '' || source === 'adapter') return;
    const field = source === 'task' ? key : 'workflow';
    if (key === 'effort' && !adapter.traits.supports_effort) {
      warnings.add(`${who}: ${adapter.name} has no effort setting; effort "${value}" is ignored`);
      return;
    }
    const own = service.valueSets()[key === 'model' ? 'models' : 'efforts'][adapter.name] ?? [];
    if (own.includes(value)) return;
    const other = owner(key === 'model' ? 'models' : 'efforts', value, adapter.name);
    // Model names are vendor-specific: another adapter's model is wrong here. Effort words are
    // shared and curated floors trail the CLIs, so another adapter's effort is known-invalid only
    // once this CLI listed its own (decision 045).
    if (other && (key === 'model' || service.listedByCli(adapter, 'efforts')))
      fail(`${who}: ${key} "${value}" is a ${other} ${key}, not one ${adapter.name} takes`, field);
    warnings.add(
      `${who}: ${key} "${value}" is not in ${adapter.name}'s catalogue; the CLI decides whether it exists`,
    );
  };

  return {
    checkTask(snapshot: WorkflowSnapshot, overrides: AgentOverrides, restricted: boolean) {
      if (overrides.agent !== undefined && !service.adapter(overrides.agent))
        fail(
          `agent ${overrides.agent} is not a registered adapter (${service
            .adapters()
            .map((a) => a.name)
            .join(', ')})`,
          'agent',
        );
      const warnings = new Set<string>();
      const found = agentSteps(snapshot.steps, { overrides, defaults: snapshot.defaults }, types);
      for (const { step, scope, where } of found) {
        const who = label(step, where);
        const values = resolveAgentValues(step, scope, service);
        const adapter = service.adapter(values.agent.value);
        if (!adapter)
          fail(
            `${who}: agent ${values.agent.value || '(none)'} is not a registered adapter`,
            values.agent.source === 'task' ? 'agent' : 'workflow',
          );
        // The raw values, so an effort the adapter drops can still be warned about.
        const rawEffort = resolveAgentValues(step, scope, {
          adapter: () => undefined,
          defaultAgent: () => values.agent.value,
        }).effort;
        checkValue('model', values.model.value, values.model.source, adapter, who, warnings);
        checkValue('effort', rawEffort.value, rawEffort.source, adapter, who, warnings);

        const setting = (key: string) =>
          step[key] ?? scope.carried?.[key] ?? snapshot.defaults?.[key];
        const mode = restricted ? 'restricted' : (setting('permission_mode') ?? 'full-auto');
        if (mode === 'restricted' && adapter.restrictedVerdict(service.platform) === 'unsupported')
          fail(
            `${who} would run ${adapter.name} restricted, which ${adapter.name} cannot do on this host (restricted_verdict: unsupported)`,
            restricted ? 'restricted' : 'workflow',
          );
        if (
          setting('on_input') === 'require' &&
          adapter.inputVerdict(service.cachedVersion(adapter)) === 'unsupported'
        )
          fail(
            `${who} requires input (on_input: require) but ${adapter.name} cannot ask for it`,
            'workflow',
          );
      }
      return [...warnings];
    },
  };
}
