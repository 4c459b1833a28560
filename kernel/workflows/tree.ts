/**
 * Walking a workflow's step tree through the step types' own `children` (so a plugin's container
 * type is walked like a built-in), and the ids derived for steps written without one
 * (decision 023): `<type>-<n>` at the top (`command-2`), `<parent id>.<type>-<n>` below it
 * (`checks.agent-1`), `<fan_out id>.<lane id>.<type>-<n>` in a lane's inline steps; a clash with
 * another id gets `-2`, `-3`, … Derived ids are stable for a given file, so a list row and a
 * task snapshot agree on them.
 */
import type { PathSegment, StepChildren, StepType } from '../plugin/index.js';

export interface StepTypeLookup {
  stepType(id: string): StepType | undefined;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The children a step declares, never throwing (a plugin's `children` may meet a malformed step). */
export function childrenOf(step: unknown, types: StepTypeLookup): readonly StepChildren[] {
  if (!isRecord(step) || typeof step.type !== 'string') return [];
  const type = types.stepType(step.type);
  if (!type?.children) return [];
  try {
    const kids = type.children(step);
    return Array.isArray(kids) ? kids : [];
  } catch {
    return [];
  }
}

/** Sets `value` at `path` inside `root` (which already has every parent). */
export function setAt(root: Record<string, unknown>, path: readonly PathSegment[], value: unknown) {
  let cur: unknown = root;
  for (const seg of path.slice(0, -1)) cur = (cur as Record<PathSegment, unknown>)[seg];
  (cur as Record<PathSegment, unknown>)[path[path.length - 1] as PathSegment] = value;
}

/** Every authored id in the tree (steps and merge resolvers), in document order. */
export function authoredIds(steps: readonly unknown[], types: StepTypeLookup): string[] {
  const out: string[] = [];
  const visit = (step: unknown) => {
    if (!isRecord(step)) return;
    if (typeof step.id === 'string') out.push(step.id);
    for (const kid of childrenOf(step, types)) {
      if (kid.kind === 'list') kid.steps.forEach(visit);
      else visit(kid.step);
    }
  };
  steps.forEach(visit);
  return out;
}

/**
 * A deep copy of `steps` where every step (sub-steps included) has an `id`. Steps must be plain
 * data (from YAML or JSON). Implied children (the merge resolver) are left alone: they must be
 * authored with an id.
 */
export function withDerivedIds<T>(steps: readonly T[], types: StepTypeLookup): T[] {
  const copy = structuredClone(steps) as T[];
  const taken = new Set(authoredIds(copy, types));
  const claim = (wanted: string): string => {
    let id = wanted;
    for (let n = 2; taken.has(id); n++) id = `${wanted}-${n}`;
    taken.add(id);
    return id;
  };
  const visitList = (list: readonly unknown[], prefix: string) => {
    list.forEach((step, i) => {
      if (!isRecord(step)) return;
      if (typeof step.id !== 'string') {
        const type = typeof step.type === 'string' ? step.type : 'step';
        step.id = claim(`${prefix}${type}-${i + 1}`);
      }
      const own = step.id as string;
      for (const kid of childrenOf(step, types)) {
        if (kid.kind !== 'list') continue;
        // A lane's steps are named after the lane too: two lanes' first steps must differ.
        const holder = kid.path.length > 1 ? laneIdAt(step, kid.path) : null;
        visitList(kid.steps, holder ? `${own}.${holder}.` : `${own}.`);
        // Keep the ids even if a plugin's children() handed back a copy of the list.
        setAt(step, kid.path, kid.steps);
      }
    });
  };
  visitList(copy, '');
  return copy;
}

/** The `id` of the mapping that holds the list at `path` (a lane), if it has one. */
function laneIdAt(step: Record<string, unknown>, path: readonly PathSegment[]): string | null {
  let cur: unknown = step;
  for (const seg of path.slice(0, -1)) {
    if (cur === null || typeof cur !== 'object') return null;
    cur = (cur as Record<PathSegment, unknown>)[seg];
  }
  return isRecord(cur) && typeof cur.id === 'string' ? cur.id : null;
}
