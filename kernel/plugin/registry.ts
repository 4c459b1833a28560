/**
 * The plugin registry: step types, agent adapters, trigger sources and forges by id. A second
 * registration of an id is an error naming both plugins (a user plugin cannot quietly replace a
 * built-in), and the registry is frozen once the daemon is up.
 */
import type { AgentAdapter } from './agent.js';
import type { Forge } from './forge.js';
import { STEP_CONTEXTS, type StepType } from './step.js';
import type { TriggerSource } from './trigger.js';

export type PluginKind = 'step_type' | 'agent' | 'trigger_source' | 'forge';

export class PluginError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PluginError';
  }
}

interface Entry<T> {
  value: T;
  plugin: string;
}

export interface LoadedPlugin {
  name: string;
  source: 'builtin' | 'config';
  file: string;
  provides: Array<{ kind: PluginKind; id: string }>;
}

const CONTEXTS: readonly string[] = STEP_CONTEXTS;

/** Why a value is not a usable step type (checked on data: plugins may bundle their own zod), or null. */
function stepTypeShapeProblem(stepType: StepType): string | null {
  const meta = (stepType as Partial<StepType> | undefined)?.meta;
  if (!meta || typeof meta !== 'object') return 'has no meta';
  if (typeof (meta.schema as { safeParse?: unknown } | undefined)?.safeParse !== 'function')
    return `"${String(meta.type)}" has no zod schema in meta.schema`;
  for (const key of ['rows', 'common', 'contexts', 'templates', 'reasons'] as const) {
    if (!Array.isArray(meta[key])) return `"${String(meta.type)}" has no meta.${key} list`;
  }
  if (meta.contexts.length === 0 || !meta.contexts.every((c) => CONTEXTS.includes(c)))
    return `"${String(meta.type)}" declares meta.contexts outside ${CONTEXTS.join(', ')}`;
  if (typeof meta.docs?.summary !== 'string')
    return `"${String(meta.type)}" has no meta.docs.summary`;
  return null;
}

export class Registry {
  private frozen = false;
  private readonly stepTypes = new Map<string, Entry<StepType>>();
  private readonly agents = new Map<string, Entry<AgentAdapter>>();
  private readonly triggerSources = new Map<string, Entry<TriggerSource>>();
  private readonly forges = new Map<string, Entry<Forge>>();
  readonly plugins: LoadedPlugin[] = [];

  /** Members each kind must have; a half-built plugin is turned away at the door, naming what is missing. */
  private static readonly REQUIRED: Record<PluginKind, string[]> = {
    step_type: ['meta'],
    agent: [
      'binary',
      'traits',
      'catalogue',
      'restrictedVerdict',
      'inputVerdict',
      'probe',
      'planRun',
      'createParser',
    ],
    trigger_source: ['type', 'schema', 'meta'],
    forge: ['name', 'detect'],
  };

  private add<T>(
    map: Map<string, Entry<T>>,
    kind: PluginKind,
    id: string,
    value: T,
    plugin: string,
  ): void {
    for (const member of Registry.REQUIRED[kind]) {
      if ((value as Record<string, unknown> | null)?.[member] === undefined) {
        throw new PluginError(
          `plugin ${plugin} registered ${kind.replace('_', ' ')} "${String(id)}" without ${member}`,
        );
      }
    }
    if (this.frozen)
      throw new PluginError(`plugin ${plugin} registered ${kind} "${id}" after start-up`);
    if (typeof id !== 'string' || !/^[a-z][a-z0-9_-]*$/.test(id)) {
      throw new PluginError(
        `plugin ${plugin} registered a ${kind} with an invalid id ${JSON.stringify(id)}`,
      );
    }
    const existing = map.get(id);
    if (existing) {
      throw new PluginError(
        `${kind} "${id}" is registered twice: by ${existing.plugin} and by ${plugin}`,
      );
    }
    map.set(id, { value, plugin });
    this.plugins.find((p) => p.name === plugin)?.provides.push({ kind, id });
  }

  registerStepType(plugin: string, stepType: StepType): void {
    const problem = stepTypeShapeProblem(stepType);
    if (problem) throw new PluginError(`plugin ${plugin} registered a step type that ${problem}`);
    this.add(this.stepTypes, 'step_type', stepType.meta.type, stepType, plugin);
  }

  registerAgent(plugin: string, adapter: AgentAdapter): void {
    this.add(this.agents, 'agent', adapter?.name, adapter, plugin);
  }

  registerTriggerSource(plugin: string, source: TriggerSource): void {
    // A source produces events one way; the member its kind names must be there to call.
    const member = { poll: 'poll', push: 'accept', schedule: 'schedule' }[
      source?.meta?.kind as string
    ];
    if (
      source?.meta &&
      (!member || typeof (source as unknown as Record<string, unknown>)[member] !== 'function')
    ) {
      throw new PluginError(
        `plugin ${plugin} registered trigger source "${String(source.type)}" of kind ${String(source.meta.kind)} without ${member ?? 'a known kind (poll, push or schedule)'}`,
      );
    }
    this.add(this.triggerSources, 'trigger_source', source?.type, source, plugin);
  }

  registerForge(plugin: string, forge: Forge): void {
    this.add(this.forges, 'forge', forge?.name, forge, plugin);
  }

  freeze(): void {
    this.frozen = true;
  }

  stepType(id: string): StepType | undefined {
    return this.stepTypes.get(id)?.value;
  }

  agent(name: string): AgentAdapter | undefined {
    return this.agents.get(name)?.value;
  }

  triggerSource(type: string): TriggerSource | undefined {
    return this.triggerSources.get(type)?.value;
  }

  forge(name: string): Forge | undefined {
    return this.forges.get(name)?.value;
  }

  /** Registration order is discovery order, which is sorted by folder name, so lists are stable. */
  listStepTypes(): StepType[] {
    return [...this.stepTypes.values()].map((e) => e.value);
  }

  listAgents(): AgentAdapter[] {
    return [...this.agents.values()].map((e) => e.value);
  }

  listTriggerSources(): TriggerSource[] {
    return [...this.triggerSources.values()].map((e) => e.value);
  }

  listForges(): Forge[] {
    return [...this.forges.values()].map((e) => e.value);
  }
}
