/**
 * The run half of the step type contract, owned by the engine. `run(ctx, def)` executes one
 * attempt of a step and returns an outcome; it never writes task state (the engine applies the
 * outcome through the transition table). Everything a step may touch comes through the context:
 * rendering, spawning (environment policy, timeout, process-group kill, transcript, live output),
 * the cancellation signal and the clock. `def` is the step as its type's schema describes it: the
 * engine checks the snapshot step against `meta.schema` before `run` or `flow` (decision 223).
 */
import type { AgentHost } from './agent-host.js';
import type { StepClock, StepMcpHost } from './step-host.js';
import type { StepView, TaskView } from './step-view.js';

export type { AttemptView, StepView, TaskView } from './step-view.js';

export type StepFailureReason = string;

/** What one attempt ended as. Matched on `kind`, never with instanceof. */
export type StepOutcome =
  | {
      kind: 'succeeded';
      summary?: string;
      exit_code?: number | null;
      check_exit_code?: number | null;
      usage?: StepUsage;
    }
  | {
      kind: 'failed';
      reason: StepFailureReason;
      message?: string;
      exit_code?: number | null;
      check_exit_code?: number | null;
      usage?: StepUsage;
      /** Failure the retry budget must not see (e.g. a guard error). */
      noRetry?: boolean;
    }
  /** A manual gate: the task waits in awaiting_gate with this step's row open. */
  | { kind: 'awaiting_gate'; instructions: string }
  /** A usage limit: the attempt is interrupted, no retry consumed; `resets_at` when the CLI named one (ms epoch). */
  | {
      kind: 'usage_limit';
      resets_at: number | null;
      message?: string;
      usage?: StepUsage;
      /**
       * The `usage_limit_auto_continue` mode that applies; absent: the config's. An adapter the key
       * is inert on (SPEC §2.10: codex, cursor) passes `always` (decision 043).
       */
      auto_continue?: 'always' | 'reported_only' | 'never';
    }
  /** The attempt was stopped by cancel or shutdown. */
  | { kind: 'cancelled' };

/**
 * A step whose own template does not render: the same input fails the same way every time, so
 * the retry budget must not see it.
 */
export function templateFailure(err: unknown): StepOutcome {
  return {
    kind: 'failed',
    reason: 'template_error',
    message: (err as Error).message,
    noRetry: true,
  };
}

export interface StepUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cost_usd?: number | null;
  session_id?: string | null;
}

export interface SpawnRequest {
  file: string;
  args: string[];
  /** Added on top of the environment policy and the SVC_* variables. */
  env?: Record<string, string>;
  stdin?: string;
  timeoutMs: number;
  /** Labels transcript lines and live output: the step's own run or its check. */
  phase: 'run' | 'check';
  /** How the command was spelled, for the transcript's command_started line. */
  display?: string;
  /** Keep stdin open after writing `stdin` (agent control protocols); the handle writes more. */
  interactive?: boolean;
  /**
   * `lines` (default): each output line becomes an `svc.output` transcript line and live
   * `command.output`. `raw`: stdout lines are written to the transcript verbatim (an agent's own
   * stream) and handed to `onStdoutLine`; stderr is kept only as a tail.
   */
  stdoutMode?: 'lines' | 'raw';
  onStdoutLine?: (line: string) => void;
  /** Called once the process started, with a handle for stdin and the timeout clock. */
  onStart?: (handle: ProcessHandle) => void;
  /** Files written (mode 0600) before spawning, e.g. an agent's per-run MCP config. */
  files?: { path: string; content: string }[];
  /**
   * The program's name inside a container, when `file` is a host path (an agent CLI resolved on the
   * host); ignored on the host. Absent: `file` as given.
   */
  containerFile?: string;
}

export interface ProcessHandle {
  write(text: string): void;
  closeStdin(): void;
  terminate(): void;
  /** Stops the step's timeout clock (waiting for a human) and restarts it. */
  pauseTimeout(): void;
  resumeTimeout(): void;
}

export interface SpawnOutcome {
  exit_code: number | null;
  signal: string | null;
  timed_out: boolean;
  cancelled: boolean;
  transcript_limited: boolean;
  /** The executable could not be started (ENOENT …). */
  spawn_error: string | null;
  /** Last lines of combined output, for `.Steps.<id>.Result` and summaries. */
  tail: string;
  /** The last 64 KiB of stderr. */
  stderr_tail: string;
}

/** A question or permission an agent asked, for a human to answer (SPEC §3.2 awaiting_input). */
export interface InputWait {
  /** Stored as the task's `pending_input` and shown to humans. */
  pending: unknown;
  /** `{kind, summary}` of the notify envelope. */
  kind: string;
  summary: string;
  /** Checks an answer body; a refusal is a 400 naming the problem. */
  validate(
    body: unknown,
  ): { ok: true; answer: unknown } | { ok: false; message: string; field?: string };
}

export type InputOutcome =
  | { kind: 'answered'; answer: unknown; waited_ms: number }
  | { kind: 'timeout'; waited_ms: number }
  | { kind: 'cancelled'; waited_ms: number };

export interface RenderResult {
  text: string;
  /** Environment variables the rendered text refers to (values from users or events). */
  env: Record<string, string>;
}

export interface StepContext {
  readonly task: TaskView;
  readonly step: StepView;
  readonly signal: AbortSignal;
  readonly platform: NodeJS.Platform;
  /** Milliseconds for the step's timeout: step, then workflow defaults, then the config default for its type. */
  timeoutMs(kind: 'agent' | 'command'): number;
  /**
   * A step setting as it resolves below the task: the step's own value, then the defaults its
   * include carried in, then the workflow's `defaults` (decision 025). Undefined: the daemon default.
   */
  setting(key: string): unknown;
  /** Milliseconds for a `check` command (step `check_timeout`, else `defaults.command_timeout`). */
  checkTimeoutMs(): number;
  /**
   * Renders a template of the step. With `shell: true` every value that came from a user or an
   * event is replaced by a quoted reference to an environment variable (returned in `env`) instead
   * of being spliced into the command line.
   */
  render(template: string, opts?: { shell?: boolean }): RenderResult;
  /** Runs a process in the worktree with the environment policy, SVC_* variables, transcript and kill rules. */
  spawn(req: SpawnRequest): Promise<SpawnOutcome>;
  /** Resolves a program name on the PATH children see; null when absent. */
  which(program: string): string | null;
  /** Writes a `svc.<kind>` annotation line to the attempt's transcript. */
  annotate(kind: string, fields: Record<string, unknown>): void;
  /**
   * The container this task's steps run in (SPEC §2.10), or null on the host. An agent wiring an
   * MCP endpoint uses `host_alias` instead of 127.0.0.1 inside it.
   */
  container(): { runtime: string; image: string; host_alias: string; network: boolean } | null;
  /** Publishes live output (never stored) on the task's event stream. */
  live(kind: string, data: Record<string, unknown>): void;
  /** A fresh owner-only directory for this attempt's files; removed after the attempt. */
  scratchDir(): string;
  /** Milliseconds each wait for an answer may last (step, workflow defaults, `defaults.input_timeout`). */
  inputTimeoutMs(): number;
  /**
   * Parks the task in awaiting_input (its slot held) until a human answers through
   * `POST /v1/tasks/{id}/answer`, the input timeout passes, or the task is cancelled.
   */
  requestInput(wait: InputWait): Promise<InputOutcome>;
  /**
   * The kernel's agents service (probes, quota, rows; decision 040), or null when this daemon has
   * none wired in: an agent step then fails `agent_unavailable`.
   */
  readonly agents: AgentHost | null;
  /** The MCP server's per-step endpoints (SPEC §4.7), or null when this daemon has no MCP server. */
  readonly mcp: StepMcpHost | null;
  /** The daemon's clock, read-only (tests advance it; a step never reads the wall). */
  readonly clock: StepClock;
}

/**
 * Keys the kernel itself writes on steps, never authored (a type's strict schema refuses them in
 * a workflow file): the engine leaves them out when it checks a snapshot step against the
 * schema, and hands them to `run` and `flow` beside the typed keys (decision 223).
 */
export type KernelStepKeys = {
  /** The prompt is a human's literal words (a repair or a follow-up), not a template. */
  literal_prompt?: boolean;
  /** Continue the task's latest session of the CLI (a follow-up prompt, decision 044). */
  continue_session?: boolean;
  /** The includes a spliced step came through, outermost first (decision 025). */
  resolved_from?: string[];
  /** The defaults an include carried in for keys the step does not set (decision 025). */
  include_defaults?: Readonly<Record<string, unknown>>;
};

export const KERNEL_STEP_KEYS = [
  'literal_prompt',
  'continue_session',
  'resolved_from',
  'include_defaults',
] as const satisfies readonly (keyof KernelStepKeys)[];

/** The definition `run` and `flow` receive: the step as its schema types it, with the kernel's keys. */
export type StepDefOf<D> = D & KernelStepKeys;

/** One attempt of a step of type `D` (StepType.run). */
export type StepRun<D = unknown> = (ctx: StepContext, def: StepDefOf<D>) => Promise<StepOutcome>;

// ─── control flow ────────────────────────────────────────────────────────────────────────────
// Structural step types (parallel, loop, condition, break, fan_out) do not run one process: they
// compose other steps. They implement `flow(ctx, def)` instead of `run`, and the engine supplies
// the primitives below. Position inside a group or loop is always derived from rows, so a retry
// or a restart resumes where the work stopped.

/** One recorded attempt at this step's index, as flow steps need to see it. */
export interface StepRunView {
  id: number;
  step_id: string;
  step_type: string;
  group_id: string | null;
  attempt: number;
  iteration: number;
  loop_item: string | null;
  loop_total: number | null;
  state: string;
  failure_reason: string | null;
  skip_reason: string | null;
  result_summary: string;
  /** True when the row was written after the last human retry (older failures are history). */
  current: boolean;
}

/** Where a child runs inside a loop. */
export interface LoopPosition {
  iteration: number;
  item: string | null;
  total: number;
}

/** How a child step (a parallel sub-step or a loop body step) ended, retries spent. */
export type ChildVerdict =
  | { kind: 'passed'; state: string }
  /** `allowed`: the step declared allow_failure and the reason is its own, so the flow goes on. */
  | { kind: 'failed'; reason: string; message: string; allowed: boolean }
  /** A condition rendered false (ends a loop iteration). */
  | { kind: 'stopped' }
  /** A break rendered true (ends the innermost loop). */
  | { kind: 'break' }
  /** A failed attempt with retries left and a retry_backoff: the whole task waits. */
  | { kind: 'backoff'; ms: number }
  /** `auto_continue`: the mode the agent's adapter says applies (decision 043). */
  | {
      kind: 'usage_limit';
      resets_at: number | null;
      auto_continue?: 'always' | 'reported_only' | 'never';
    }
  | { kind: 'cancelled' };

export interface LaneSpec {
  id: string;
  /** Declared index among the step's lanes (merge order). */
  order: number;
  workflow?: string;
  steps?: unknown[];
  fields: Record<string, string>;
  agent?: string;
  model?: string;
  effort?: string;
  priority?: number;
  /**
   * The item a `lane:` template expanded this lane for: the lane's own steps see it as
   * `.Loop.Item` / `.Item` (with `.Loop.Iteration` and `.Loop.Total`) outside any loop of their
   * own (decision 197). Absent for a `lanes:` entry.
   */
  item?: { value: string; iteration: number; total: number };
}

export interface LaneView {
  task_id: number;
  lane_id: string;
  lane_order: number;
  state: string;
  branch: string;
}

export type MergeResult =
  | { kind: 'merged' }
  /** The lane's branch is already part of this task's branch. */
  | { kind: 'already' }
  | { kind: 'conflict'; paths: string[] }
  | { kind: 'error'; message: string };

/** What a flow step ended as; the engine applies it to the task. */
export type FlowOutcome =
  | { kind: 'succeeded' }
  /** A child failed for good: the task blocks with the child's reason (decision 011). */
  | { kind: 'failed'; reason: string; message?: string }
  /** The task blocks with exactly this reason (`loop_limit`, `merge_conflict`, `lane_failed`, `condition_error`). */
  | { kind: 'blocked'; reason: string; message?: string }
  /** A condition at the top level rendered false: the workflow ends here, the task is done. */
  | { kind: 'stop_workflow' }
  | { kind: 'backoff'; ms: number }
  | {
      kind: 'usage_limit';
      resets_at: number | null;
      auto_continue?: 'always' | 'reported_only' | 'never';
    }
  /**
   * Lanes were spawned (or some are still running): the task parks in awaiting_children.
   * `settled`: how many of this step's lanes the flow saw settled, so a lane that settles while the
   * task is being parked still wakes it.
   */
  | { kind: 'awaiting_children'; settled?: number }
  | { kind: 'cancelled' };

export interface FlowContext {
  readonly task: TaskView;
  readonly step: { id: string; name: string; type: string; index: number };
  /** Aborts on cancel, shutdown, or when the step's own `timeout` (bounding the whole) passes. */
  readonly signal: AbortSignal;
  /** True once the whole-step timeout has fired (the flow then reports `timeout`). */
  timedOut(): boolean;
  setting(key: string): unknown;
  limits(): { parallel_max: number; loop_max_iterations: number; fan_out_max_tasks: number };
  /** Renders a guard (`true`/`false` only) in this step's context, at a loop position if given. */
  guard(
    template: string,
    at?: LoopPosition,
  ): { ok: true; value: boolean } | { ok: false; error: string };
  /** Renders a template to text in this step's context (for_each entries, lane fields). */
  render(template: string, at?: LoopPosition): string;
  /** A `for_each`'s items: each entry rendered, split on newlines, trimmed, blank lines dropped. */
  items(forEach: unknown): string[];
  /** Rows recorded at this step's index, oldest first. */
  history(): StepRunView[];
  /**
   * True when `row` (the latest of a child) lets the flow go on: it succeeded, was skipped or
   * approved, or failed in a way the child's `allow_failure` swallows.
   */
  isPassed(row: StepRunView, child: Record<string, unknown>): boolean;
  /**
   * What a recorded row of a body-if child (condition, break, a plugin's own) already ended, as
   * its type declares (`StepTypeMeta.bodyIf`): `iteration`, `loop`, or null when the row ended
   * nothing (or is not such a child's). A flow resuming after a restart reads this instead of
   * knowing the child types by name.
   */
  endedBy(row: StepRunView, child: Record<string, unknown>): 'iteration' | 'loop' | null;
  /** Runs a child step to its verdict under its own retry budget (attempts continue across calls). */
  runChild(
    step: Record<string, unknown>,
    opts: {
      group: string;
      at?: LoopPosition;
      signal?: AbortSignal;
      extra?: Record<string, unknown>;
    },
  ): Promise<ChildVerdict>;
  /** Writes a decision row at this index (an empty loop, a fan_out that selected no lane, a join). */
  record(row: {
    step_id: string;
    step_type: string;
    state: 'succeeded' | 'stopped' | 'failed';
    summary?: string;
    failure_reason?: string;
    at?: LoopPosition;
  }): void;
  /** Lanes this step spawned, in declared order. */
  lanes(): LaneView[];
  /** Creates every lane as a child task in one transaction; throws (SvcError 400) when a bound is passed. */
  spawnLanes(lanes: LaneSpec[]): void;
  /** Merges a lane's branch into this task's worktree with `--no-ff`. */
  mergeLane(lane: LaneView): Promise<MergeResult>;
  /** A merge left in the worktree (a human resolving a conflict, or a crash mid-join). */
  pendingMerge(): Promise<
    { kind: 'none' } | { kind: 'conflicted'; paths: string[] } | { kind: 'resolved' }
  >;
  commitMerge(message: string): Promise<MergeResult>;
}

/** A structural step of type `D` composing its children (StepType.flow). */
export type StepFlow<D = unknown> = (ctx: FlowContext, def: StepDefOf<D>) => Promise<FlowOutcome>;
