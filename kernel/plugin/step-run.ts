/**
 * The run half of the step type contract, owned by the engine. `run(ctx, def)` executes one
 * attempt of a step and returns an outcome; it never writes task state (the engine applies the
 * outcome through the transition table). Everything a step may touch comes through the context:
 * rendering, spawning (environment policy, timeout, process-group kill, transcript, live output),
 * the cancellation signal and the clock.
 */

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

export interface StepUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cost_usd?: number | null;
  session_id?: string | null;
}

export interface TaskView {
  id: number;
  title: string;
  description: string;
  workflow: string;
  fields: Record<string, string>;
  branch: string;
  base_branch: string;
  worktree: string;
  project: { id: number; name: string; path: string; default_branch: string };
  restricted: boolean;
  /** Task-level agent overrides (SPEC §4.4 create), null when unset. */
  agent_override: string | null;
  model_override: string | null;
  effort_override: string | null;
  /** The task's own prompt (create body `prompt`), empty when unset. */
  prompt: string;
}

export interface StepView {
  id: string;
  name: string;
  type: string;
  index: number;
  attempt: number;
  iteration: number;
  item: string | null;
  run_id: number;
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
  /** Capabilities other rooms add for their step types (the agent host, MCP wiring, …). */
  readonly services: Readonly<Record<string, unknown>>;
}

export type StepRun = (ctx: StepContext, def: Record<string, unknown>) => Promise<StepOutcome>;
