/**
 * Resolution of `agent`, `model` and `effort` for one agent step (SPEC §2.8 defaults, §4.3
 * `/v1/resolve`, decision 045): the step's own value, then the task's override, then the defaults
 * an include carried in with the step (decision 025), then the workflow's `defaults`, then the
 * adapter's default (for `agent`: the daemon default, the first registered adapter). `model: ""`
 * is a value (the CLI decides), distinct from an absent key. An adapter without an effort setting
 * resolves `effort` to `''` from `adapter` whatever is written, because the run drops it.
 *
 * Also the walk over every agent step of a snapshot (parallel members, loop bodies, lane steps,
 * merge resolvers) through the step types' own `children`, so a plugin's container type is walked
 * like a built-in.
 */
import {
  type AgentAdapter,
  type AgentValueSource,
  type ResolvedAgentValues,
  runsAgent,
} from '../plugin/index.js';
import { childrenOf, isRecord, type StepTypeLookup } from '../workflows/index.js';

export interface AgentOverrideValues {
  agent?: string | null;
  model?: string | null;
  effort?: string | null;
}

export type AgentKey = 'agent' | 'model' | 'effort';

/** Where a step's settings come from besides itself. */
export interface StepScope {
  /** The task's (or lane's) overrides. */
  overrides: AgentOverrideValues;
  /** The step's own `include_defaults`, else its enclosing step's. */
  carried?: Record<string, unknown>;
  /** The workflow's `defaults`. */
  defaults?: Record<string, unknown>;
}

export interface AdapterLookup {
  adapter(name: string): AgentAdapter | undefined;
  defaultAgent(): string | null;
}

function pick(
  key: AgentKey,
  step: Readonly<Record<string, unknown>>,
  scope: StepScope,
): { value: string; source: AgentValueSource } | undefined {
  const own = step[key];
  if (typeof own === 'string') return { value: own, source: 'step' };
  const over = scope.overrides[key];
  if (typeof over === 'string') return { value: over, source: 'task' };
  const carried = scope.carried?.[key];
  if (typeof carried === 'string') return { value: carried, source: 'workflow' };
  const def = scope.defaults?.[key];
  if (typeof def === 'string') return { value: def, source: 'workflow' };
  return undefined;
}

export function resolveAgentValues(
  step: Readonly<Record<string, unknown>>,
  scope: StepScope,
  adapters: AdapterLookup,
): ResolvedAgentValues {
  const agent = pick('agent', step, scope) ?? {
    value: adapters.defaultAgent() ?? '',
    source: 'adapter' as const,
  };
  const adapter = adapters.adapter(agent.value);
  const model = pick('model', step, scope) ?? {
    value: adapter?.catalogue.default_model ?? '',
    source: 'adapter' as const,
  };
  let effort = pick('effort', step, scope) ?? {
    value: adapter?.catalogue.default_effort ?? '',
    source: 'adapter' as const,
  };
  if (adapter && !adapter.traits.supports_effort) effort = { value: '', source: 'adapter' };
  return { agent, model, effort };
}

/** One agent step found in a snapshot, with the scope its settings resolve in. */
export interface FoundAgentStep {
  step: Record<string, unknown>;
  scope: StepScope;
  /** `steps[2].steps[0]`, `steps[1].lanes[0].steps[1]`, `steps[3].merge.agent`. */
  where: string;
}

function pathText(base: string, path: readonly (string | number)[]): string {
  return path.reduce<string>(
    (acc, seg) => (typeof seg === 'number' ? `${acc}[${seg}]` : `${acc}.${seg}`),
    base,
  );
}

/**
 * Every step of `steps` that runs an agent (its type declares `runsAgent`), at any depth. A lane's `agent`/`model`/`effort` apply to the lane's
 * subtree (SPEC §2.8 fan_out), as the lane's own task overrides.
 */
export function agentSteps(
  steps: readonly unknown[],
  base: StepScope,
  types: StepTypeLookup,
): FoundAgentStep[] {
  const out: FoundAgentStep[] = [];
  const visit = (step: unknown, where: string, scope: StepScope, implied?: string) => {
    if (!isRecord(step)) return;
    const own = isRecord(step.include_defaults) ? step.include_defaults : scope.carried;
    const here: StepScope = { ...scope, carried: own };
    const type = typeof step.type === 'string' ? step.type : implied;
    if (runsAgent(types, type)) out.push({ step, scope: here, where });
    for (const kid of childrenOf(step, types)) {
      let inner = here;
      const lane = laneAt(step, kid.path);
      if (lane) {
        inner = {
          ...here,
          overrides: {
            agent: str(lane.agent) ?? here.overrides.agent,
            model: str(lane.model) ?? here.overrides.model,
            effort: str(lane.effort) ?? here.overrides.effort,
          },
        };
      }
      if (kid.kind === 'list')
        kid.steps.forEach((s, i) => {
          visit(s, `${pathText(where, kid.path)}[${i}]`, inner);
        });
      else visit(kid.step, pathText(where, kid.path), inner, kid.impliedType);
    }
  };
  steps.forEach((s, i) => {
    visit(s, `steps[${i}]`, base);
  });
  return out;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** The lane holding a child list at `['lanes', i, 'steps']` or `['lane', 'steps']`. */
function laneAt(
  step: Record<string, unknown>,
  path: readonly (string | number)[],
): Record<string, unknown> | null {
  if (path.length < 2 || path[path.length - 1] !== 'steps') return null;
  let cur: unknown = step;
  for (const seg of path.slice(0, -1))
    cur =
      isRecord(cur) || Array.isArray(cur)
        ? (cur as Record<string | number, unknown>)[seg]
        : undefined;
  if (!isRecord(cur)) return null;
  return path[0] === 'lanes' || path[0] === 'lane' ? cur : null;
}
