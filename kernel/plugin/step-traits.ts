/**
 * The kernel's questions about a step type's declared behaviour (decision 225): every place that
 * once compared a step's type to a name (`loop`, `fan_out`, `include`, `manual`, `break`, `agent`)
 * asks here instead, so a plugin's type that declares the same hooks is treated the same way.
 * Unknown types declare nothing. A caller without the registry at hand gets a predicate from one.
 */
import type { LaneSource, StepType, StepTypeMeta } from './step.js';

/** Anything that finds a step type by id: the registry, or a workflow room's lookup. */
export interface StepTypes {
  stepType(id: string): StepType | undefined;
}

/** The step type of `type` (a type id, or a step whose `type` is read), undefined when unknown. */
function typeOf(types: StepTypes, type: unknown): StepType | undefined {
  const id =
    typeof type === 'string' ? type : (type as { type?: unknown } | null | undefined)?.type;
  return typeof id === 'string' ? types.stepType(id) : undefined;
}

/** The meta of `type` (a type id, or a step whose `type` is read), undefined when unknown. */
export function metaOf(types: StepTypes, type: unknown): StepTypeMeta | undefined {
  return typeOf(types, type)?.meta;
}

/** A step of this type runs an agent CLI (StepTypeMeta.runsAgent). */
export function runsAgent(types: StepTypes, type: unknown): boolean {
  return metaOf(types, type)?.runsAgent === true;
}

/** A step of this type waits for a human at a gate (StepTypeMeta.waitsForHuman). */
export function waitsForHuman(types: StepTypes, type: unknown): boolean {
  return metaOf(types, type)?.waitsForHuman === true;
}

/** The step types whose open row is a gate, as a predicate on a row's `step_type`. */
export function gatePredicate(types: StepTypes): (stepType: string) => boolean {
  return (stepType) => waitsForHuman(types, stepType);
}

/** A step of this type spawns lanes and joins them (StepType.lanes). */
export function spawnsLanes(types: StepTypes, type: unknown): boolean {
  return typeof typeOf(types, type)?.lanes === 'function';
}

/** The lanes a step declares (empty for a type without lanes, or when its hook throws). */
export function lanesOf(types: StepTypes, step: unknown): readonly LaneSource[] {
  const type = typeOf(types, step);
  if (!type?.lanes) return [];
  try {
    const lanes = type.lanes(step);
    return Array.isArray(lanes) ? lanes : [];
  } catch {
    return [];
  }
}

/**
 * The workflow a step inlines at snapshot time (StepTypeMeta.inlines) and the key that names it,
 * or null when the step is not of an inlining type or its key is not a string (the schema reports
 * that).
 */
export function inlinedWorkflow(
  types: StepTypes,
  step: unknown,
): { key: string; name: string } | null {
  const key = metaOf(types, step)?.inlines?.key;
  if (key === undefined) return null;
  const name = (step as Record<string, unknown>)[key];
  return typeof name === 'string' ? { key, name } : null;
}

/** Whether the step's type declares `key` among its rows (a retry override replaces that key). */
export function declaresKey(types: StepTypes, type: unknown, key: string): boolean {
  return metaOf(types, type)?.rows.some((r) => r.key === key) === true;
}

/** The client view this type shows while current (StepTypeMeta.view), or undefined. */
export function viewOf(types: StepTypes, type: unknown): StepTypeMeta['view'] {
  return metaOf(types, type)?.view;
}

/** The ids of every type that shows `view`, for a query that must know them up front. */
export function typesWithView(
  types: { listStepTypes(): readonly StepType[] },
  view: NonNullable<StepTypeMeta['view']>,
): string[] {
  return types
    .listStepTypes()
    .filter((t) => t.meta.view === view)
    .map((t) => t.meta.type);
}

/** A body-if type's rule (StepTypeMeta.bodyIf); absent, condition's: false ends the iteration. */
export function bodyIfRule(meta: StepTypeMeta): NonNullable<StepTypeMeta['bodyIf']> {
  return meta.bodyIf ?? { when: false, ends: 'iteration' };
}

/**
 * What the rendered `if` of an `ifRole: 'body'` child means (StepTypeMeta.bodyIf): whether this
 * value ends work, and what it ends.
 */
export function bodyIfVerdict(
  meta: StepTypeMeta,
  value: boolean,
): { ends: false } | { ends: 'iteration' | 'loop' } {
  const rule = bodyIfRule(meta);
  return value === rule.when ? { ends: rule.ends } : { ends: false };
}
