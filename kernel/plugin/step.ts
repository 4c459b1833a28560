/**
 * The step type contract (SPEC §2.8): the meta half, owned by the workflow format. A step type is
 * one self-describing module: `meta` holds the data — its id, strict zod schema, the rows the
 * schema route serves, docs, the failure reasons `run` may return, where it may nest, which of its
 * keys are templates — and the behaviour hangs off it: `children` tells the validator where its
 * sub-steps are, `validate` adds the load-time rules a schema cannot express, and the engine's
 * `run` (step-run.ts) executes one attempt. The workflow validator composes every registered step
 * type, so a plugin's step type is validated and listed without kernel changes (decision 020).
 */
import type { ZodType } from 'zod';

/** A path into a workflow file, relative to the step unless stated: `['lanes', 0, 'workflow']`. */
export type PathSegment = string | number;

/**
 * Where a step sits, for the nesting rules (decision 022): `body` is a workflow's own `steps` (the
 * file's, or a fan_out lane's inline steps), `parallel` a parallel group's sub-steps, `loop` a
 * loop's body, `merge` the conflict resolver of a fan_out merge.
 */
export type StepContextName = 'body' | 'parallel' | 'loop' | 'merge';
export const STEP_CONTEXTS: readonly StepContextName[] = ['body', 'parallel', 'loop', 'merge'];

/**
 * How a client draws a row of the schema route (SPEC §4.3). The set is open (§9.4): a client
 * draws an unknown control as `text`.
 */
export type SchemaControl =
  | 'string'
  | 'text'
  | 'enum'
  | 'bool'
  | 'int'
  | 'duration'
  | 'list'
  | 'map'
  | 'agent'
  | 'model'
  | 'effort'
  | 'steps'
  | 'lanes'
  | 'lane'
  | 'merge'
  | 'workflow'
  | 'fields'
  | 'template';

/** One key as `GET /v1/workflows/schema` describes it. */
export interface SchemaRow {
  key: string;
  control: SchemaControl;
  description: string;
  required?: boolean;
  /** What an absent key means, as users would write it (`4`, `block`, `60m (config)`). */
  default?: string | number | boolean;
  /** The closed value set of an `enum` row. */
  values?: readonly string[];
}

/** Keys every step type may accept; `id`, `name` and `type` are accepted by all (SPEC §2.8). */
export const COMMON_STEP_KEYS = [
  'id',
  'name',
  'type',
  'if',
  'max_retries',
  'retry_backoff',
  'timeout',
  'allow_failure',
] as const;
export type CommonStepKey = (typeof COMMON_STEP_KEYS)[number];

/** Keys of the workflow `defaults` block a step may resolve against (SPEC §2.8 defaults table). */
export type DefaultsKey =
  | 'agent'
  | 'model'
  | 'effort'
  | 'permission_mode'
  | 'on_input'
  | 'input_timeout'
  | 'max_retries'
  | 'retry_backoff'
  | 'timeout';

export interface StepTypeMeta<D = unknown> {
  /** The id users write as `type:` (`command`), equal to the plugin folder name. */
  type: string;
  /**
   * Strict schema of one authored step of this type, `type` included: the single source of truth
   * for its keys. Sub-step lists are `z.array(z.unknown())` here; the validator checks their items
   * against their own types through `children`.
   */
  schema: ZodType<D>;
  /** Which common keys the schema accepts, beyond `id`, `name` and `type` (drawn from `common` rows). */
  common: readonly CommonStepKey[];
  /** Rows for the type's own keys, in the order an editor shows them. */
  rows: readonly SchemaRow[];
  /** Rows of nested shapes the type owns (fan_out: `lane`, `merge`), served beside the step rows. */
  sections?: Readonly<Record<string, readonly SchemaRow[]>>;
  docs: { summary: string; url: string };
  /** Every `failed{reason}` the step's run may return; the step tester rejects any other. */
  reasons: readonly string[];
  /** Where a step of this type may stand (decision 022). */
  contexts: readonly StepContextName[];
  /**
   * Keys whose strings are Go text/templates, parsed at load: dotted paths where `key[]` means
   * every item of a list and `key.*` every value of a map (`prompt`, `env.*`, `lanes[].if`).
   */
  templates: readonly string[];
  /**
   * What `if:` means for this type: a `guard` (default) skips the step when it renders false; a
   * `body` is the step's own condition (condition, break), evaluated by its flow.
   */
  ifRole?: 'guard' | 'body';

  // ─── declared behaviour (decision 225) ───────────────────────────────────────────────────────
  // What the kernel once knew about particular type names, declared by the types themselves, so a
  // new control-flow step type is one folder. The kernel asks these through kernel/plugin/
  // step-traits.ts; only the types the kernel writes itself are named in the kernel
  // (kernel/engine/kernel-steps.ts).

  /**
   * For an `ifRole: 'body'` type run inside a loop body: which value of the rendered `if` ends work
   * and what it ends. `iteration` ends this loop iteration (condition: `{ when: false, ends:
   * 'iteration' }`), `loop` leaves the innermost loop, which then succeeds (break: `{ when: true,
   * ends: 'loop' }`). The other value lets the body go on. The ending row is recorded `stopped`, the
   * other `succeeded`. Absent: condition's.
   */
  bodyIf?: { when: boolean; ends: 'iteration' | 'loop' };
  /**
   * The step waits for a human (manual): its run returns `awaiting_gate`, the task parks in
   * awaiting_gate and the step's open row is the gate that approve, reject, a chat's context and a
   * lost worktree look for.
   */
  waitsForHuman?: boolean;
  /**
   * The step runs an agent CLI (agent): its `agent`/`model`/`effort` resolve through the task's
   * overrides, lanes and defaults and are previewed and checked before a task starts, the task's
   * prompt opens the first such step's prompt, it needs the network for its MCP endpoint, the
   * workflow list names its agent, and `on_input: require` is refused where nobody could answer.
   */
  runsAgent?: boolean;
  /**
   * The view clients get while this step is the task's current step: `loop` puts the SPEC §2.1
   * `loop` object on the task (driver, iteration, extent, body position), computed from the step's
   * `count`, `for_each`, `max_iterations` and `steps` keys and its rows. The views are the API's,
   * so the kernel computes them; a type only says which it shows.
   */
  view?: 'loop';
  /**
   * The step is replaced when a task is created (or a workflow is listed) by the steps of the
   * workflow its `key` names (include: `{ key: 'workflow' }`), carrying `resolved_from[]` and the
   * callee's defaults; nothing of it survives into the run.
   */
  inlines?: { key: string };
}

/** Where a step's lanes come from, for the fan-out bounds walked at task creation. */
export interface LaneSource {
  /** A lane's inline steps, walked for nested fan-outs. */
  steps?: readonly unknown[];
  /** A named lane workflow, walked through the resolver. */
  workflow?: string;
  /** Counted toward `fan_out.max_tasks` now (a `lane:` template's count is only known at spawn). */
  counted: boolean;
}

/** One list of sub-steps (or one implied sub-step) the validator should descend into. */
export type StepChildren =
  | {
      kind: 'list';
      /** Where the list is, relative to the step (`['steps']`, `['lanes', 2, 'steps']`). */
      path: readonly PathSegment[];
      context: StepContextName;
      steps: readonly unknown[];
    }
  | {
      kind: 'single';
      path: readonly PathSegment[];
      context: StepContextName;
      step: unknown;
      /** The type an absent `type:` means (the merge resolver is an agent step). */
      impliedType: string;
      /** The sub-step must carry an `id` (the merge resolver, SPEC §2.8). */
      requiresId?: boolean;
    };

/** A load-time problem a step type reports; the kernel adds the file path prefix and the line. */
export interface StepFinding {
  /** Relative to the step, or, with `fromRoot`, to the file (to point at `defaults.on_input`). */
  path: readonly PathSegment[];
  fromRoot?: boolean;
  /** Stable snake_case id of the rule. */
  code: string;
  message: string;
  /** Warnings are reported but do not make the workflow invalid. Default `error`. */
  severity?: 'error' | 'warning';
}

/** Agent, model and effort value sets (from the agent adapters; empty lists mean "not known"). */
export interface AgentValueSets {
  agents: readonly string[];
  models: Readonly<Record<string, readonly string[]>>;
  efforts: Readonly<Record<string, readonly string[]>>;
}

export interface ResolvedValue {
  value: unknown;
  from: 'step' | 'include' | 'defaults';
}

/** What `validate` may consult. Everything is read-only and the same for every step of one file. */
export interface StepValidationContext {
  /** The configuration ceilings in force (`loop.max_iterations`, ...). */
  readonly limits: {
    readonly loop_max_iterations: number;
    readonly parallel_max_parallel: number;
    readonly fan_out_max_tasks: number;
    readonly fan_out_max_depth: number;
    readonly include_max_depth: number;
  };
  /** The container image steps of this workflow would run in; '' means the host. */
  readonly containerImage: string;
  /** Known agents and their catalogues, or null when nothing is known (offline validation). */
  readonly agents: AgentValueSets | null;
  /**
   * What `key` resolves to for `step` and where it came from: the step's own value, else the
   * defaults an include carried in with it (decision 025), else the workflow's `defaults`.
   * `undefined` means none of them sets it: the daemon's default applies.
   */
  resolve(step: unknown, key: DefaultsKey): ResolvedValue | undefined;
  /** The declared meta of a step's type (its hooks), or undefined for an unknown type. */
  typeOf(step: unknown): StepTypeMeta | undefined;
}

/**
 * A step type. `children` and `validate` are optional: leaving `children` out means the type has
 * no sub-steps; leaving `validate` out means the schema is the whole load-time check. `validate`
 * is called only with a step its schema accepted. `children` is called with the authored value
 * even when the schema refused it (so the sub-steps' problems are reported in the same pass):
 * write it defensively; a throw counts as "no children".
 */
export interface StepType<D = unknown> {
  meta: StepTypeMeta<D>;
  /** Sub-step lists to validate, nest-check and splice includes into. */
  children?(def: D): readonly StepChildren[];
  /** Load-time rules beyond the schema; an empty list means none failed. */
  validate?(def: D, ctx: StepValidationContext): readonly StepFinding[];
  /**
   * The lanes the step spawns as child tasks it joins (fan_out). Declaring it is the join policy:
   * the flow parks the task in awaiting_children, `merge_finished` acts on a join it blocked, its
   * lanes count toward `fan_out.max_depth` and `fan_out.max_tasks` at task creation, and its
   * `timeout` does not bound the flow (the task parks between spawn and join; each lane's own
   * steps keep theirs). Called with the authored value: write it defensively.
   */
  lanes?(def: D): readonly LaneSource[];
  /**
   * Runs one attempt (engine-owned contract in step-run.ts). Absent for purely structural types.
   * `def` is typed by `meta.schema`: the engine checks the step against it first (decision 223).
   * Method syntax, so a `StepType<CommandStep>` registers where a `StepType` is expected.
   */
  run?(
    ctx: import('./step-run.js').StepContext,
    def: import('./step-run.js').StepDefOf<D>,
  ): Promise<import('./step-run.js').StepOutcome>;
  /** Composes other steps (parallel, loop, condition, break, fan_out) with the engine's flow primitives. */
  flow?(
    ctx: import('./step-run.js').FlowContext,
    def: import('./step-run.js').StepDefOf<D>,
  ): Promise<import('./step-run.js').FlowOutcome>;
}

/** Identity helper that types a step type module; the registry checks the shape at registration. */
export function defineStepType<D>(stepType: StepType<D>): StepType<D> {
  return stepType;
}
