/**
 * Include resolution at task creation (SPEC §4.4 rule 4; decision 025): a workflow, seen from a
 * project's view, becomes a frozen snapshot. Each `include` step is replaced by the callee's
 * steps, each carrying `resolved_from[]` (outermost first) and the callee's defaults for the keys
 * it does not set (`include_defaults`). The spliced steps are checked again as one workflow, and
 * the fan_out bounds are counted through named lane workflows. Every refusal names the chain.
 * Pure: the registry view is passed in, nothing is read from disk.
 */

import type { Finding } from '../input/index.js';
import { inlinedWorkflow, lanesOf, type PathSegment, spawnsLanes } from '../plugin/index.js';
import type { FieldDecl } from './fields.js';
import {
  formatWorkflowPath,
  type HostPlatform,
  type PlatformToken,
  platformAdmits,
  type StepDef,
  type WorkflowDefaults,
} from './format.js';
import { childrenOf, isRecord, setAt, withDerivedIds } from './tree.js';
import {
  SNAPSHOT_KEYS,
  type ValidateOptions,
  validateSnapshotSteps,
  type WorkflowValidation,
} from './validate.js';

export type WorkflowScope = 'builtin' | 'global' | 'project';

/** Where a task's workflow came from (SPEC §2.1 `workflow_origin`), frozen at creation. */
export type WorkflowOrigin =
  | { scope: 'builtin'; digest: string }
  | {
      scope: 'global' | 'project';
      /** Relative to the scope's root: `{config_dir}` or the repository (decision 029). */
      file: string;
      digest: string;
    }
  | { scope: 'derived'; parent_task_id: number };

/** The defaults an include carries into its spliced steps (no container: that is the task's). */
export type CarriedDefaults = Omit<WorkflowDefaults, 'container'>;

/** A step of a snapshot: always an id; spliced steps say where they came from. */
export interface SnapshotStep extends StepDef {
  id: string;
  /** The chain of included workflows this step came through, outermost first. */
  resolved_from?: string[];
  /** Callee defaults for keys the step does not set, innermost include first (decision 025). */
  include_defaults?: CarriedDefaults;
}

/**
 * A task's frozen workflow. A type alias (not an interface) so it is assignable to the engine's
 * structural view, which reads it through an index signature.
 */
export type WorkflowSnapshot = {
  name: string;
  description: string;
  platforms: PlatformToken[];
  fields: FieldDecl[];
  /** The root workflow's defaults; never folded into steps. */
  defaults: WorkflowDefaults;
  steps: SnapshotStep[];
  workflow_origin: WorkflowOrigin;
  /** Every workflow spliced in, in splice order, with the digest of the bytes used. */
  includes: Array<{ name: string; origin: WorkflowOrigin }>;
};

/** One registry entry as resolution needs it. */
export interface WorkflowSource {
  name: string;
  scope: WorkflowScope;
  /** Relative to the scope's root; null for a built-in. */
  relFile: string | null;
  digest: string;
  validation: WorkflowValidation;
}

/** The workflows a task in one project can see: the shadowing winner per name. */
export interface WorkflowView {
  find(name: string): WorkflowSource | undefined;
}

export interface SnapshotOptions extends ValidateOptions {
  host: HostPlatform;
}

export type SnapshotResult =
  | { ok: true; snapshot: WorkflowSnapshot; warnings: Finding[] }
  | { ok: false; errors: Finding[]; warnings: Finding[] };

export function originOf(source: WorkflowSource): WorkflowOrigin {
  if (source.scope === 'builtin') return { scope: 'builtin', digest: source.digest };
  return { scope: source.scope, file: source.relFile ?? '', digest: source.digest };
}

const CARRIED_KEYS = [
  'agent',
  'model',
  'effort',
  'permission_mode',
  'on_input',
  'input_timeout',
  'max_retries',
  'retry_backoff',
  'timeout',
] as const;

function carriedOf(defaults: WorkflowDefaults | undefined): CarriedDefaults {
  const out: Record<string, unknown> = {};
  for (const k of CARRIED_KEYS) if (defaults?.[k] !== undefined) out[k] = defaults[k];
  return out as CarriedDefaults;
}

function chainText(chain: readonly string[]): string {
  return chain.join(' → ');
}

class Resolver {
  readonly errors: Finding[] = [];
  readonly warnings: Finding[] = [];
  readonly includes: Array<{ name: string; origin: WorkflowOrigin }> = [];

  constructor(
    private readonly view: WorkflowView,
    private readonly opts: SnapshotOptions,
  ) {}

  error(path: readonly PathSegment[], code: string, message: string): void {
    this.errors.push({ path: formatWorkflowPath(path), code, message });
  }

  /** The callee of an include or a lane, or null after recording why it cannot be used. */
  callee(
    name: string,
    chain: readonly string[],
    path: readonly PathSegment[],
    what: 'included workflow' | 'lane workflow',
  ): WorkflowSource | null {
    const entry = this.view.find(name);
    const via = `(${chainText([...chain, name])})`;
    if (!entry) {
      this.error(
        path,
        what === 'included workflow' ? 'include_not_found' : 'lane_workflow_not_found',
        `${what} "${name}" not found ${via}`,
      );
      return null;
    }
    const def = entry.validation.definition;
    if (!def) {
      const first = entry.validation.errors[0];
      this.error(
        path,
        'include_invalid',
        `${what} "${name}" does not validate ${via}: ${first?.message ?? 'invalid'}`,
      );
      return null;
    }
    if (what === 'included workflow' && !platformAdmits(def.platforms, this.opts.host)) {
      this.error(
        path,
        'include_platform',
        `included workflow "${name}" does not run on ${this.opts.host.os} (platforms: ${(def.platforms ?? []).join(', ')}) ${via}`,
      );
      return null;
    }
    return entry;
  }

  /** Splices includes in `steps` (a list at `path` of the file `chain` ends with). */
  expand(
    steps: readonly unknown[],
    path: readonly PathSegment[],
    chain: readonly string[],
    from: readonly string[],
    carried: CarriedDefaults,
  ): SnapshotStep[] {
    const out: SnapshotStep[] = [];
    steps.forEach((raw, i) => {
      if (!isRecord(raw)) return;
      const here = [...path, i];
      // A type that inlines a workflow (include: meta.inlines, decision 225) is replaced by its steps.
      const inlined = inlinedWorkflow(this.opts.types, raw);
      if (inlined) {
        out.push(...this.include(inlined.name, [...here, inlined.key], chain, from, carried));
        return;
      }
      out.push(this.mark(raw, here, chain, from, carried));
    });
    return out;
  }

  private include(
    name: string,
    path: readonly PathSegment[],
    chain: readonly string[],
    from: readonly string[],
    carried: CarriedDefaults,
  ): SnapshotStep[] {
    if (chain.includes(name)) {
      this.error(path, 'include_cycle', `workflow cycle: ${chainText([...chain, name])}`);
      return [];
    }
    const depth = from.length + 1;
    if (depth > this.opts.limits.include_max_depth) {
      this.error(
        path,
        'include_max_depth',
        `includes nest ${depth} levels deep, past include.max_depth (${this.opts.limits.include_max_depth}) (${chainText([...chain, name])})`,
      );
      return [];
    }
    const entry = this.callee(name, chain, path, 'included workflow');
    const def = entry?.validation.definition;
    if (!entry || !def) return [];
    this.includes.push({ name, origin: originOf(entry) });
    if (def.defaults?.container !== undefined) {
      this.warnings.push({
        path: formatWorkflowPath(path),
        code: 'include_container_ignored',
        message: `included workflow "${name}" sets defaults.container, which only the task's own workflow decides; it is ignored`,
      });
    }
    const calleeSteps = withDerivedIds(def.steps, this.opts.types);
    return this.expand(calleeSteps, ['steps'], [...chain, name], [...from, name], {
      ...carried,
      ...carriedOf(def.defaults),
    });
  }

  /** A copy of a non-include step with its sub-step lists expanded and its origin marked. */
  private mark(
    raw: Record<string, unknown>,
    path: readonly PathSegment[],
    chain: readonly string[],
    from: readonly string[],
    carried: CarriedDefaults,
  ): SnapshotStep {
    const copy = structuredClone(raw) as SnapshotStep;
    for (const k of SNAPSHOT_KEYS) delete copy[k];
    if (from.length > 0) {
      copy.resolved_from = [...from];
      const own: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(carried)) if (copy[k] === undefined) own[k] = v;
      if (Object.keys(own).length > 0) copy.include_defaults = own as CarriedDefaults;
    }
    for (const kid of childrenOf(copy, this.opts.types)) {
      const at = [...path, ...kid.path];
      if (kid.kind === 'list')
        setAt(copy, kid.path, this.expand(kid.steps, at, chain, from, carried));
      else if (isRecord(kid.step))
        setAt(copy, kid.path, this.mark(kid.step, at, chain, from, carried));
    }
    return copy;
  }
}

/** Every step of a snapshot tree with where it came from, for the id check. */
function allSteps(steps: readonly unknown[], opts: SnapshotOptions): SnapshotStep[] {
  const out: SnapshotStep[] = [];
  const visit = (s: unknown) => {
    if (!isRecord(s)) return;
    out.push(s as SnapshotStep);
    for (const kid of childrenOf(s, opts.types)) {
      if (kid.kind === 'list') kid.steps.forEach(visit);
      else visit(kid.step);
    }
  };
  steps.forEach(visit);
  return out;
}

function duplicateIds(
  steps: readonly SnapshotStep[],
  root: string,
  opts: SnapshotOptions,
): Finding[] {
  const seen = new Map<string, string>();
  const out: Finding[] = [];
  for (const step of allSteps(steps, opts)) {
    const origin = step.resolved_from
      ? `included workflow ${chainText(step.resolved_from)}`
      : `workflow "${root}" itself`;
    const first = seen.get(step.id);
    if (first === undefined) seen.set(step.id, origin);
    else
      out.push({
        path: '',
        code: 'duplicate_id',
        message: `expanding this workflow uses step id "${step.id}" twice: once from ${first}, once from ${origin}`,
      });
  }
  return out;
}

/**
 * The fan_out bounds (SPEC §2.10 `fan_out.max_depth`, `fan_out.max_tasks`): lanes counted at every
 * depth through inline steps and named lane workflows, guarded lanes included, the root excluded.
 * A `lane:` template's count is only known when it renders: the engine checks it at spawn.
 */
class FanOutCounter {
  total = 0;
  private reportedDepth = false;

  constructor(
    private readonly resolver: Resolver,
    private readonly view: WorkflowView,
    private readonly opts: SnapshotOptions,
  ) {}

  walk(steps: readonly unknown[], depth: number, chain: readonly string[]): void {
    for (const step of steps) {
      if (!isRecord(step)) continue;
      // Only a type that spawns lanes (StepType.lanes: fan_out) adds a fan-out level.
      if (!spawnsLanes(this.opts.types, step)) {
        for (const kid of childrenOf(step, this.opts.types))
          if (kid.kind === 'list') this.walk(kid.steps, depth, chain);
        continue;
      }
      const d = depth + 1;
      if (d > this.opts.limits.fan_out_max_depth) {
        if (!this.reportedDepth)
          this.resolver.error(
            [],
            'fan_out_max_depth',
            `fan-out nests ${d} levels deep, past fan_out.max_depth (${this.opts.limits.fan_out_max_depth}) (${chainText(chain)})`,
          );
        this.reportedDepth = true;
        return;
      }
      for (const lane of lanesOf(this.opts.types, step)) {
        if (lane.counted) this.total++;
        if (Array.isArray(lane.steps)) this.walk(lane.steps, d, chain);
        else if (typeof lane.workflow === 'string') this.named(lane.workflow, d, chain);
      }
    }
  }

  private named(name: string, depth: number, chain: readonly string[]): void {
    if (chain.includes(name)) {
      this.resolver.error([], 'lane_cycle', `workflow cycle: ${chainText([...chain, name])}`);
      return;
    }
    const entry = this.resolver.callee(name, chain, [], 'lane workflow');
    const def = entry?.validation.definition;
    if (!def) return;
    // The lane's own includes are spliced when the lane task is created; expand them here only to
    // find the fan_outs they bring, reporting what would refuse that creation now.
    const lane = new Resolver(this.view, this.opts);
    const steps = lane.expand(
      withDerivedIds(def.steps, this.opts.types),
      ['steps'],
      [...chain, name],
      [],
      {},
    );
    for (const e of lane.errors)
      this.resolver.error([], e.code ?? 'include_invalid', `lane workflow "${name}": ${e.message}`);
    this.walk(steps, depth, [...chain, name]);
  }
}

/**
 * Resolves `root` (the shadowing winner the task names) into a snapshot, judging it on `opts.host`.
 * Errors are findings whose messages name the chain (`a → b → a`); the engine answers them 400.
 */
export function resolveSnapshot(
  root: WorkflowSource,
  view: WorkflowView,
  opts: SnapshotOptions,
): SnapshotResult {
  const def = root.validation.definition;
  if (!def) {
    return {
      ok: false,
      errors: root.validation.errors.map((e) => ({
        ...e,
        message: `workflow "${root.name}" does not validate: ${e.message}`,
      })),
      warnings: [],
    };
  }
  const resolver = new Resolver(view, opts);
  if (!platformAdmits(def.platforms, opts.host)) {
    resolver.error(
      ['platforms'],
      'platform_unsupported',
      `workflow "${root.name}" does not run on ${opts.host.os} (platforms: ${(def.platforms ?? []).join(', ')})`,
    );
  }
  const steps = resolver.expand(
    withDerivedIds(def.steps, opts.types),
    ['steps'],
    [root.name],
    [],
    {},
  );
  if (resolver.errors.length === 0) resolver.errors.push(...duplicateIds(steps, root.name, opts));
  if (resolver.errors.length === 0 && resolver.includes.length > 0) {
    for (const f of validateSnapshotSteps(steps, def.defaults ?? {}, opts)) {
      resolver.errors.push({
        ...f,
        message: `workflow "${root.name}" does not validate once its includes are expanded: ${f.message}`,
      });
    }
  }
  if (resolver.errors.length === 0) {
    const counter = new FanOutCounter(resolver, view, opts);
    counter.walk(steps, 0, [root.name]);
    if (counter.total > opts.limits.fan_out_max_tasks) {
      resolver.error(
        [],
        'fan_out_max_tasks',
        `fan-out would create more than fan_out.max_tasks (${opts.limits.fan_out_max_tasks}) child tasks (${counter.total})`,
      );
    }
  }
  if (resolver.errors.length > 0)
    return { ok: false, errors: resolver.errors, warnings: resolver.warnings };
  return {
    ok: true,
    warnings: [...root.validation.warnings, ...resolver.warnings],
    snapshot: {
      name: def.name,
      description: def.description ?? '',
      platforms: def.platforms ?? [],
      fields: root.validation.fields,
      defaults: def.defaults ?? {},
      steps,
      workflow_origin: originOf(root),
      includes: resolver.includes,
    },
  };
}
