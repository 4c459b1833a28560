/**
 * One turn of an agent CLI: plan the run through the adapter, spawn it with its own stream written
 * raw to the transcript, turn each stdout line into live events through the adapter's parser,
 * answer its input requests one at a time (per `on_input`), and hand back the parser's verdict.
 * Shared by the agent step (an attempt, decision 046) and a chat turn (decision 160), which differ
 * only in where the process runs, where a question parks (the task or the chat) and what they make
 * of the verdict; everything they share is here, so the two can never drift apart.
 *
 * The caller supplies the `TurnIo` (its spawn, transcript annotations, live output and input wait);
 * this module holds no state and writes no row. It lives in the plugin room because it needs
 * nothing but the contracts: plugins reach it through the door, the chats room likewise.
 */
import type {
  AgentAdapter,
  AgentEvent,
  AgentVerdict,
  InputAnswer,
  InputRequest,
  OnInput,
  PendingInput,
  PermissionMode,
  QuotaWindow,
  UsageTotals,
} from './agent.js';
import type {
  InputOutcome,
  InputWait,
  ProcessHandle,
  SpawnOutcome,
  SpawnRequest,
} from './step-run.js';

/** What a turn needs of whoever runs it: a step's context, or a chat's. */
export interface TurnIo {
  /** Aborts on cancel or shutdown; the process tree is then terminated by `spawn`. */
  readonly signal: AbortSignal;
  /** Runs the CLI with the environment policy, transcript, timeout and kill rules. */
  spawn(req: SpawnRequest): Promise<SpawnOutcome>;
  /** Writes a `svc.<kind>` annotation line to the transcript. */
  annotate(kind: string, fields: Record<string, unknown>): void;
  /** Publishes live output (never stored) on the owner's event stream. */
  live(kind: string, data: Record<string, unknown>): void;
  /** Parks the owner until a human answers, the input timeout passes, or the turn is stopped. */
  requestInput(wait: InputWait): Promise<InputOutcome>;
}

/** The kernel services a turn reports to (a subset of `AgentHost`). */
export interface TurnHost {
  now(): number;
  debug(): boolean;
  readonly isRoot: boolean;
  quotaSeen(agent: string, source: string, windows: QuotaWindow[]): void;
}

export interface AgentTurnSpec {
  adapter: AgentAdapter;
  /** The CLI to run and its probed version (null: unknown). */
  located: { path: string; version: string | null };
  prompt: string;
  cwd: string;
  /** Empty or absent: the CLI decides. */
  model?: string;
  effort?: string;
  permission_mode: PermissionMode;
  on_input: OnInput;
  /** Continue this CLI session (a chat's next turn, a follow-up prompt). */
  resume?: { session_id: string; totals: UsageTotals | null } | null;
  mcp?: { url: string; bearer_token: string } | null;
  scratch_dir: string;
  platform: NodeJS.Platform;
  timeoutMs: number;
  /** The transcript's `command_started` line without `debug: true` (the full argv only with it). */
  label: string;
  /** Extra fields for the `agent_debug` annotation (resolved values and their sources). */
  debugFields?: Record<string, unknown>;
}

export type AgentTurnResult =
  /** The adapter would not plan the run; nothing was spawned. */
  | { kind: 'refused'; reason: string; message: string }
  /** `session_id`: the session the CLI had opened before it was stopped (a chat resumes it). */
  | { kind: 'cancelled'; session_id: string | null }
  | { kind: 'spawn_failed'; message: string }
  | {
      kind: 'finished';
      verdict: AgentVerdict;
      exit_code: number | null;
      timed_out: boolean;
      /** An input request went wrong (timeout, no protocol); it wins over the verdict. */
      input_failure: { reason: string; message: string } | null;
    };

/** The notify envelope's `input.summary` (SPEC §2.10): the question(s), or the tool asked for. */
export function inputSummary(p: PendingInput): string {
  if (p.kind === 'permission')
    return `permission: ${p.permission?.tool ?? 'tool'}${p.permission?.summary ? ` ${p.permission.summary}` : ''}`;
  return (p.questions ?? []).map((q) => q.text).join(' / ') || 'question';
}

/** Live kinds on the owner's event stream (never stored): `agent.output`, `agent.tool_use`, … */
const LIVE_TYPES = new Set(['output', 'thinking', 'tool_use', 'tool_result', 'usage']);

/**
 * Input requests, one at a time in arrival order (decision 046). `deny` answers at once; `wait`
 * and `require` park the owner until a human answers, the input timeout passes (the run is
 * stopped and fails `input_timeout`) or the turn is stopped.
 */
class InputPump {
  private readonly queue: InputRequest[] = [];
  private running = false;
  failure: { reason: string; message: string } | null = null;
  handle: ProcessHandle | null = null;

  constructor(
    private readonly io: TurnIo,
    private readonly adapter: AgentAdapter,
    private readonly mode: OnInput,
  ) {}

  push(request: InputRequest): void {
    this.queue.push(request);
    void this.pump();
  }

  cancel(requestId: string): void {
    const i = this.queue.findIndex((r) => r.request_id === requestId);
    if (i >= 0) this.queue.splice(i, 1);
  }

  private write(text: string): void {
    this.handle?.write(text);
  }

  private async pump(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (let req = this.queue.shift(); req && !this.failure; req = this.queue.shift())
        await this.one(req);
    } finally {
      this.running = false;
    }
  }

  private async one(req: InputRequest): Promise<void> {
    const { io, adapter } = this;
    const protocol = adapter.input;
    if (!protocol) {
      this.failure = {
        reason: 'input_protocol_error',
        message: `${adapter.name} asked for input but its adapter has no input protocol`,
      };
      this.handle?.terminate();
      return;
    }
    if (this.mode === 'deny') {
      io.annotate('input_denied', { request_id: req.request_id, on_input: 'deny' });
      this.write(protocol.deny(req));
      return;
    }
    const outcome = await io.requestInput({
      pending: req.pending,
      kind: req.pending.kind,
      summary: inputSummary(req.pending),
      validate: (body) => {
        const v = protocol.validateAnswer(req.pending, body);
        if (v.ok) return { ok: true, answer: v.answer };
        const first = v.issues[0];
        return {
          ok: false,
          message: v.issues.map((i) => `${i.path.map(String).join('.')}: ${i.message}`).join('; '),
          ...(first ? { field: first.path.map(String).join('.') } : {}),
        };
      },
    });
    if (outcome.kind === 'answered') {
      this.write(protocol.answer(req, outcome.answer as InputAnswer));
    } else if (outcome.kind === 'timeout') {
      this.failure = {
        reason: 'input_timeout',
        message: `nobody answered within the input timeout (${Math.round(outcome.waited_ms / 1000)}s)`,
      };
      this.write(protocol.deny(req, 'input timeout: nobody answered'));
      this.handle?.terminate();
    } else if (!io.signal.aborted) {
      // Not a stop: the owner could not take the wait (another member of a task's parallel group
      // is waiting for an answer). Refuse this one so the agent carries on rather than hangs.
      io.annotate('input_denied', { request_id: req.request_id, reason: 'another_wait' });
      this.write(protocol.deny(req, 'another request is waiting for an answer'));
    }
  }
}

/** Plans, spawns and parses one turn. Never throws for a CLI's failure: that is the verdict. */
export async function runAgentTurn(
  io: TurnIo,
  host: TurnHost,
  spec: AgentTurnSpec,
): Promise<AgentTurnResult> {
  const { adapter, located } = spec;
  const name = adapter.name;
  const planned = adapter.planRun({
    prompt: spec.prompt,
    cwd: spec.cwd,
    ...(spec.model ? { model: spec.model } : {}),
    ...(spec.effort ? { effort: spec.effort } : {}),
    permission_mode: spec.permission_mode,
    on_input: spec.on_input,
    cli_version: located.version,
    ...(spec.resume ? { resume_session_id: spec.resume.session_id } : {}),
    ...(spec.mcp ? { mcp: spec.mcp } : {}),
    scratch_dir: spec.scratch_dir,
    platform: spec.platform,
    is_root: host.isRoot,
  });
  if (!planned.ok) return { kind: 'refused', reason: planned.reason, message: planned.message };
  const { plan } = planned;
  const argv = [located.path, ...plan.args];
  if (host.debug()) {
    io.annotate('agent_debug', {
      ...spec.debugFields,
      permission_mode: spec.permission_mode,
      on_input: spec.on_input,
      cwd: spec.cwd,
      argv,
      cli_version: located.version,
      resumed_session: spec.resume?.session_id ?? null,
      mcp: Boolean(spec.mcp),
    });
  }

  const parser = adapter.createParser(
    spec.resume?.totals ? { resume_baseline: spec.resume.totals } : {},
  );
  const pump = new InputPump(io, adapter, spec.on_input);
  const interactive = plan.stdin.kind === 'interactive';
  let handle: ProcessHandle | null = null;
  const quotaSource = adapter.quota?.source ?? 'stream';
  let sessionSeen: string | null = null;
  const onEvent = (ev: AgentEvent) => {
    if (LIVE_TYPES.has(ev.type)) {
      const { type, ...data } = ev;
      io.live(`agent.${type}`, data);
    }
    switch (ev.type) {
      case 'session':
        sessionSeen = ev.id;
        break;
      case 'input_request':
        if (interactive) pump.push(ev.request);
        break;
      case 'input_canceled':
        pump.cancel(ev.request_id);
        break;
      case 'quota':
        host.quotaSeen(name, quotaSource, ev.windows);
        break;
      case 'result':
        // One turn per run: closing stdin lets an interactive CLI exit (decision 112).
        if (interactive) handle?.closeStdin();
        break;
      case 'error':
        // Never wait on a request that cannot be rendered; never sit out the CLI's auth retries.
        if (ev.reason) handle?.terminate();
        break;
    }
  };

  const r = await io.spawn({
    file: located.path,
    containerFile: adapter.binary,
    args: plan.args,
    env: plan.env,
    stdin: plan.stdin.data,
    interactive,
    stdoutMode: 'raw',
    files: plan.files,
    timeoutMs: spec.timeoutMs,
    phase: 'run',
    // Full argv only with `debug: true` (SPEC §2.10); otherwise the transcript names the CLI.
    display: host.debug() ? argv.join(' ') : spec.label,
    onStart: (h) => {
      handle = h;
      pump.handle = h;
    },
    onStdoutLine: (line) => {
      for (const ev of parser.push(line)) onEvent(ev);
    },
  });
  if (r.cancelled) return { kind: 'cancelled', session_id: sessionSeen };
  if (r.spawn_error)
    return { kind: 'spawn_failed', message: `cannot start ${name}: ${r.spawn_error}` };

  const verdict = parser.finish({
    code: r.exit_code,
    signal: r.signal,
    stderr_tail: r.stderr_tail,
    now: new Date(host.now()),
  });
  return {
    kind: 'finished',
    verdict,
    exit_code: r.exit_code,
    timed_out: r.timed_out,
    input_failure: pump.failure,
  };
}
