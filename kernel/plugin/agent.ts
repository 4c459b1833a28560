/**
 * The agent adapter contract (SPEC §2.3, §2.4, §2.8 agent steps, §3.2 input and usage-limit rows).
 *
 * An adapter teaches the kernel one agent CLI (claude, codex, cursor-agent): what it can do
 * (traits, catalogue), how to ask the installed binary about itself (probe), how to start one
 * headless run (a pure argv/env/stdin plan), how to read its stdout stream (a stateful parser that
 * ends in a verdict), how to answer its input requests, and where its usage quota comes from.
 *
 * The adapter never spawns a process and never touches task state: the kernel supplies a
 * `ProbeRunner` for probes and owns every run's process (environment policy, timeouts, tree kill,
 * transcript). Everything here is plain data matched on `kind`/`type`, never on `instanceof`,
 * because a user plugin may bundle its own copy of these types. Decisions: 110–118.
 */

// ─── identity and traits ──────────────────────────────────────────────────────────────────────

/** `process.platform` of the daemon's host (`linux`, `darwin`, `win32`, …). */
export type HostPlatform = NodeJS.Platform;

/** SPEC §2.3 `restricted_verdict`: the one verdict that refuses work (task create is 400). */
export type RestrictedVerdict = 'supported' | 'unsupported' | 'unknown';

/** SPEC §2.3 `input_verdict`. `unknown` (not installed, unprobed) never refuses anything. */
export type InputVerdict = 'supported' | 'unsupported' | 'unknown';

/**
 * Facts about the adapter, not about the installed build (SPEC §2.3). Served on `/v1/agents`
 * even when the CLI is missing. Every field is required: an adapter states each one.
 */
export interface AgentTraits {
  /** The CLI can stop mid-run and ask a question or a permission (then `input` is implemented). */
  supports_input: boolean;
  /** The CLI can resume its own session, so the adapter may hold a chat (`resume_session_id`). */
  supports_resume: boolean;
  /**
   * A resumed turn can be kept `restricted`. False for codex (`exec resume` takes no
   * `--sandbox`): a chat on a restricted task refuses it (400 validation_failed, SPEC §4.5).
   */
  supports_restricted_resume: boolean;
  /** The adapter can list the skills a chat would load (then `listSkills` is implemented). */
  supports_skill_listing: boolean;
  /** `/`, `$`, or empty when skills cannot be invoked. */
  skill_sigil: '/' | '$' | '';
  /** `leading`: only at message start; `anywhere`: inside the text. */
  skill_position: 'leading' | 'anywhere';
  supports_file_mentions: boolean;
  /** `@`, or empty. */
  file_mention_sigil: '@' | '';
  file_mention_position: 'leading' | 'anywhere';
  /** true: the CLI puts the file in front of the model; false: the path arrives as prose. */
  file_mention_expands: boolean;
  /** The CLI takes an effort setting. When false the engine drops `effort` (SPEC §2.8). */
  supports_effort: boolean;
  /** The stream reports a USD cost (then cost caps apply; otherwise they are inert). */
  reports_cost: boolean;
  /**
   * The adapter can wire one per-run MCP server (`AgentRunSpec.mcp`). When false and
   * `mcp.wire_steps` is on, the engine fails the step `mcp_unsupported` without spawning.
   */
  supports_mcp: boolean;
}

/** The daemon's built-in floor of options (SPEC §2.3 `source: curated`). */
export interface AgentCatalogue {
  models: readonly string[];
  efforts: readonly string[];
  /** Empty means the CLI decides at run time. */
  default_model: string;
  /** Empty means the CLI decides at run time. */
  default_effort: string;
}

/** A half-open version range `[min, below)` compared numerically on `major.minor.patch`. */
export interface VersionWindow {
  min: string;
  below: string;
}

// ─── probing ─────────────────────────────────────────────────────────────────────────────────

/** One probe invocation, handed to the kernel's runner. */
export interface ProbeCommand {
  /** Arguments after the binary path. */
  args: readonly string[];
  /** Hard bound; on expiry the kernel kills the process tree and answers `timed_out`. */
  timeout_ms: number;
  /** Written to the child's stdin. Absent: stdin is closed at once (many CLIs wait on an open pipe). */
  stdin?: string;
  /**
   * Keep stdin open after writing `stdin` until this returns true for the stdout read so far,
   * then close stdin and let the child exit (killed after a short grace). Used for request/answer
   * protocols (claude control requests, `codex app-server` JSON-RPC) whose servers drop in-flight
   * requests on EOF. Absent: stdin is closed right after `stdin` is written.
   */
  until?: (stdout: string) => boolean;
  /** Added to the environment policy's result for this child only. */
  env?: Readonly<Record<string, string>>;
  /** Working directory; absent means the daemon's own (probes that do not care). */
  cwd?: string;
}

/** What the kernel's runner reports. It never throws. */
export type ProbeOutcome =
  | { kind: 'exited'; code: number | null; signal: string | null; stdout: string; stderr: string }
  | { kind: 'timed_out'; stdout: string; stderr: string }
  | { kind: 'spawn_failed'; message: string };

/** Spawns the resolved binary with a timeout. Supplied by the kernel; the only way to run it. */
export type ProbeRunner = (command: ProbeCommand) => Promise<ProbeOutcome>;

export interface ProbeContext {
  /** Absolute path of the resolved binary. A missing binary is never probed (availability data). */
  path: string;
  run: ProbeRunner;
}

/** What a probe learned. The kernel adds `available`, `path`, `probed_at` and merges catalogues. */
export interface AgentProbe {
  /** Normalized version (`2.1.330`, `0.169.0`, `2026.08.04-aaa8809`); raw text when unparseable; null when unknown. */
  version: string | null;
  /** true: credentials configured (not validated). false: the CLI says logged out. null: could not tell, or not asked. Never guessed. */
  logged_in: boolean | null;
  /** Models the installed CLI listed (source `cli`); null when it cannot list or the listing failed. */
  models: string[] | null;
  /** Efforts the installed CLI listed (source `cli`); null when it cannot list or the listing failed. */
  efforts: string[] | null;
  /** Non-null: the option listing failed, so the curated catalogue is served (SPEC §2.3). */
  probe_error: string | null;
}

// ─── one run ─────────────────────────────────────────────────────────────────────────────────

export type PermissionMode = 'full-auto' | 'restricted';
export type OnInput = 'wait' | 'deny' | 'require';

/** Everything the adapter needs to plan one headless run (an agent step attempt or a chat turn). */
export interface AgentRunSpec {
  /** Literal prompt text. Goes on stdin, never on argv (Windows caps command lines near 8 KB). */
  prompt: string;
  /** The task's (or chat's) worktree; the kernel spawns the CLI there. */
  cwd: string;
  /** Absent: the catalogue default, else the CLI decides. */
  model?: string;
  /** Absent: the CLI decides. Ignored by adapters without `supports_effort`. */
  effort?: string;
  permission_mode: PermissionMode;
  on_input: OnInput;
  /** The probed version of the binary about to run (gates version-dependent modes); null when unknown. */
  cli_version: string | null;
  /** Resume this CLI session (a chat's next turn). Only for adapters with `supports_resume`. */
  resume_session_id?: string;
  /** Wire this MCP endpoint for the run (`mcp.wire_steps`). Only for adapters with `supports_mcp`. */
  mcp?: { url: string; bearer_token: string };
  /** A fresh per-run directory (owner-only) for files the plan asks the kernel to write. */
  scratch_dir: string;
  platform: HostPlatform;
  /** The daemon runs as root (uid 0): some CLIs refuse unattended modes unless told it is a sandbox. */
  is_root: boolean;
}

/** How the kernel feeds the child's stdin. */
export type StdinPlan =
  /** Write `data`, then close stdin (the CLI reads to EOF). */
  | { kind: 'close'; data: string }
  /**
   * Write `data` and keep stdin open for the input protocol: the engine writes answers from
   * `AgentAdapter.input`, and closes stdin as soon as the parser emits `result` (single turn).
   */
  | { kind: 'interactive'; data: string };

export interface AgentRunPlan {
  /** Arguments after the binary path. Never contains the prompt. */
  args: string[];
  /** Added on top of the environment policy's result. Never overrides the user's CLAUDE_CONFIG_DIR / CODEX_HOME. */
  env: Record<string, string>;
  stdin: StdinPlan;
  /** Files the kernel writes (mode 0600) before spawning; paths lie inside `scratch_dir`. */
  files: { path: string; content: string }[];
}

/** Why a run cannot be planned; the engine fails the step with `reason` without spawning. */
export type RunRefusalReason = 'restricted_unsupported' | 'mcp_unsupported' | 'resume_unsupported';

export type AgentRunPlanResult =
  | { ok: true; plan: AgentRunPlan }
  | { ok: false; reason: RunRefusalReason; message: string };

// ─── the stream ──────────────────────────────────────────────────────────────────────────────

export interface ToolUse {
  name: string;
  /** One-line subject (command, path, pattern, …), whitespace collapsed, ≤200 characters. */
  summary?: string;
  /** Correlates with the later result (claude `tool_use_id`, codex `item.id`, cursor `call_id`). */
  call_id?: string;
}

export interface ToolResult {
  call_id?: string;
  name?: string;
  /** One-line outcome (≤120 characters): claude first text line, codex `exit N`, cursor `+A −R`. */
  summary?: string;
  is_error?: boolean;
}

/** A usage window as SPEC §2.4 names it; `resets_at` is RFC 3339 and omitted when not named. */
export interface QuotaWindow {
  name: string;
  used_percent: number;
  window: string | null;
  resets_at?: string;
}

/** A normalized question or permission request, as stored in `pending_input` and shown to humans. */
export interface PendingInput {
  kind: 'question' | 'permission';
  questions?: {
    text: string;
    header?: string;
    options?: string[];
    /** What each option means, index for index with `options`, when the agent said (issue 19). */
    option_descriptions?: string[];
    multi_select?: boolean;
  }[];
  permission?: { tool: string; summary: string };
}

/**
 * One input request as the parser saw it. JSON-serializable: the engine may persist it and later
 * pass it back to `input.answer` / `input.deny`, which need `payload` (adapter-private).
 */
export interface InputRequest {
  request_id: string;
  pending: PendingInput;
  payload: unknown;
}

/** Normalized events for the live view and the transcript (SPEC §6 live output). */
export type AgentEvent =
  | { type: 'output'; text: string }
  | { type: 'thinking'; text: string }
  | { type: 'tool_use'; tools: ToolUse[] }
  | { type: 'tool_result'; results: ToolResult[] }
  /** Running totals when the CLI reports them mid-run. */
  | { type: 'usage'; input_tokens?: number; output_tokens?: number; cost_usd?: number }
  /** The CLI's session id (resume handle); emitted once, when first seen. */
  | { type: 'session'; id: string }
  /**
   * The CLI asks and waits (adapters with `supports_input`, interactive stdin only). Requests are
   * emitted in arrival order; the engine surfaces one at a time and queues the rest.
   */
  | { type: 'input_request'; request: InputRequest }
  /** The CLI withdrew a pending request. */
  | { type: 'input_canceled'; request_id: string }
  /** A free quota reading seen in the stream (claude `rate_limit_event` windows). */
  | { type: 'quota'; windows: QuotaWindow[] }
  /** The terminal result of a turn. In interactive mode the engine closes stdin on it. */
  | {
      type: 'result';
      is_error: boolean;
      text: string;
      input_tokens?: number;
      output_tokens?: number;
      cost_usd?: number;
    }
  /**
   * Something went wrong. `reason` set means the verdict will carry it whatever else follows; the
   * engine may stop the run early (`input_protocol_error`: never wait on a request it cannot
   * render; `agent_unauthenticated`: do not sit out the CLI's own retries).
   */
  | { type: 'error'; message: string; reason?: 'input_protocol_error' | 'agent_unauthenticated' };

/** Why an agent run failed, as the verdict names it (a subset of SPEC's step failure reasons). */
export type AgentFailureReason =
  | 'agent_error'
  | 'nonzero_exit'
  | 'agent_unauthenticated'
  | 'input_protocol_error';

/** Token and cost accounting, carried by every verdict (failed attempts cost too). */
export interface RunUsage {
  /** This run's tokens (cumulative CLIs are de-cumulated against `ParserOptions.resume_baseline`); null when not reported. */
  input_tokens: number | null;
  output_tokens: number | null;
  /** This run's spend in USD; null when the CLI reports none (never 0 for "unknown"). */
  cost_usd: number | null;
  /** What the CLI reported for the whole session, to pass as the next turn's `resume_baseline`. */
  session_totals: UsageTotals | null;
  /** The CLI session id (resume handle), when seen. */
  session_id: string | null;
}

export interface UsageTotals {
  input_tokens: number;
  output_tokens: number;
}

export type AgentVerdict =
  | ({ kind: 'succeeded'; result_text: string } & RunUsage)
  | ({ kind: 'failed'; reason: AgentFailureReason; message: string } & RunUsage)
  /**
   * A spent usage window (attempt interrupted, no retry consumed). `resets_at` (RFC 3339) only when
   * the CLI named a plausible reset (in the future, at most 7 days out); null means the engine uses
   * `usage_limit_recheck_interval`. Recognized from structured fields only (decision 111).
   */
  | ({ kind: 'usage_limit'; resets_at: string | null; message: string } & RunUsage);

/** How the process ended, plus what the kernel kept of stderr. */
export interface RunExit {
  /** null when killed by a signal. */
  code: number | null;
  signal: string | null;
  /** The last bytes of stderr (the kernel keeps a bounded tail, 64 KiB). */
  stderr_tail: string;
  /** Injected clock for reset-time sanity checks. */
  now: Date;
}

export interface ParserOptions {
  /** On a resumed run: the previous turn's `session_totals`, for CLIs whose counts are cumulative (codex). */
  resume_baseline?: UsageTotals;
}

/** One per run; not shared, not reused. */
export interface AgentStreamParser {
  /**
   * Called with each stdout line (no trailing newline), in order. Returns zero or more events.
   * Never throws: malformed JSON and unknown types yield `[]` (the raw line stays in the transcript).
   */
  push(line: string): AgentEvent[];
  /**
   * Called once, after the process exited and every line was pushed. Never throws. A stream with
   * no terminal result is a failure whose message starts `stream ended without a result event`.
   */
  finish(exit: RunExit): AgentVerdict;
}

// ─── input requests ──────────────────────────────────────────────────────────────────────────

/** A human's answer (`POST …/answer` body after validation, SPEC §4.4). */
export interface InputAnswer {
  /** Keyed by the question text; several values only for a multi-select question. */
  answers?: Record<string, string | string[]>;
  /** Permission requests only. */
  allow?: boolean;
}

export interface AnswerIssue {
  /** Field path of the offending value, e.g. `['answers', 'Which colour?']`. */
  path: (string | number)[];
  code:
    | 'required'
    | 'unknown_question'
    | 'too_many_values'
    | 'empty_value'
    | 'not_allowed'
    | 'invalid_type';
  message: string;
}

/** Present exactly when `traits.supports_input` is true. */
export interface AgentInputProtocol {
  /**
   * Checks an answer body (unknown JSON) against the pending request: every question answered,
   * one value unless multi_select, no empty values, no unknown question texts, no `allow`; a
   * permission needs `allow` and no `answers`. Never throws.
   */
  validateAnswer(
    pending: PendingInput,
    body: unknown,
  ): { ok: true; answer: InputAnswer } | { ok: false; issues: AnswerIssue[] };
  /** The stdin line(s), newline-terminated, that answer `request` with a validated answer. */
  answer(request: InputRequest, answer: InputAnswer): string;
  /** The stdin line(s) that refuse `request` (`on_input: deny`, input timeout, cancel). */
  deny(request: InputRequest, message?: string): string;
}

// ─── quota ───────────────────────────────────────────────────────────────────────────────────

/** SPEC §4.1 `POST /v1/agents/{name}/quota` body, validated. */
export interface QuotaPush {
  source: string;
  windows: QuotaWindow[];
}

export type QuotaReading =
  | { kind: 'reading'; windows: QuotaWindow[] }
  /** The source answered that there is nothing to read (e.g. not a subscription login). */
  | { kind: 'none'; detail: string }
  /** The read failed. Never fails a probe (SPEC §2.4); the kernel keeps the last reading. */
  | { kind: 'error'; message: string };

export type AgentQuotaSource =
  /** The daemon reads it: called at most every 5 minutes on ordinary requests, and by doctor. Never throws. */
  | { kind: 'pull'; source: string; read(ctx: ProbeContext): Promise<QuotaReading> }
  /**
   * It is pushed to `POST /v1/agents/{name}/quota`; `parsePush` validates that body (and, as a
   * convenience, the CLI's own status-line document). Never throws.
   */
  | {
      kind: 'push';
      source: string;
      parsePush(body: unknown): { ok: true; push: QuotaPush } | { ok: false; issues: string[] };
    };

// ─── skills ──────────────────────────────────────────────────────────────────────────────────

export interface AgentSkill {
  name: string;
  description?: string;
}

// ─── the adapter ─────────────────────────────────────────────────────────────────────────────

export interface AgentAdapter {
  /** The id users type (`claude`), equal to the plugin folder name. */
  readonly name: string;
  /** Binary looked up on PATH when `agents.<name>.path` is empty (`cursor-agent`, never `cursor`). */
  readonly binary: string;
  readonly traits: AgentTraits;
  readonly catalogue: AgentCatalogue;
  /**
   * Builds this project ran (decision 117), compared by whole-string equality with the probed
   * version for `version_verdict: tested`; the kernel joins them with commas for SPEC §2.3.
   */
  readonly tested_versions: readonly string[];
  /**
   * Builds whose `logged_in` probe is asked; others answer null ("unprobed build"). Undefined: every
   * build is asked. claude: `[2.1.41, 3.0.0)` (SPEC §2.3).
   */
  readonly logged_in_probe_window?: VersionWindow;

  /** SPEC §2.3 `restricted_verdict` for this host. Pure, called per request, even for a missing CLI. */
  restrictedVerdict(platform: HostPlatform): RestrictedVerdict;
  /**
   * SPEC §2.3 `input_verdict` for a probed version (null: not installed or unprobed → `unknown`).
   * Adapters without `supports_input` answer `unsupported`. Pure.
   */
  inputVerdict(version: string | null): InputVerdict;

  /**
   * Asks the installed binary its version, login state and options. Called when the cache key
   * (path + mtime + version) changes, on `?refresh=true` and by doctor. Never throws: failures are
   * data (`logged_in: null`, `probe_error`).
   */
  probe(ctx: ProbeContext): Promise<AgentProbe>;

  /** Plans one run. Pure: no I/O, no clock. Never throws; refusals are `{ok: false}`. */
  planRun(spec: AgentRunSpec): AgentRunPlanResult;

  /** A fresh stream parser for one run. */
  createParser(options?: ParserOptions): AgentStreamParser;

  /** Present exactly when `traits.supports_input`; undefined means the CLI can never ask. */
  readonly input?: AgentInputProtocol;

  /** Undefined: the adapter has no quota surface (`quota: null` unless a usage limit was observed). */
  readonly quota?: AgentQuotaSource;

  /**
   * Whether `usage_limit_auto_continue` governs this adapter's usage-limit stops. `inert` (SPEC
   * §2.10 says so for codex and cursor): a recognised stop always waits for its reset, or for
   * `usage_limit_recheck_interval`. Undefined means `honored` (decision 043).
   */
  readonly usage_limit_auto_continue?: 'honored' | 'inert';

  /**
   * The skills a chat in `cwd` would load (`GET /v1/chats/{id}/skills`). Present exactly when
   * `traits.supports_skill_listing`. Never throws: null means the listing failed.
   */
  listSkills?(ctx: ProbeContext & { cwd: string }): Promise<AgentSkill[] | null>;
}
