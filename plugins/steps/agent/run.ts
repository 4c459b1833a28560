/**
 * Running an agent step (SPEC §2.8 agent row, §3.2): resolve agent/model/effort, find the CLI,
 * let the adapter plan the run, spawn it in the worktree with its own stream written raw to the
 * transcript, turn each stdout line into live events through the adapter's parser, answer its
 * input requests through the task's `awaiting_input` (per `on_input`), and map the verdict to an
 * outcome (decision 046): a usage limit interrupts without spending a retry, everything else
 * fails with the verdict's reason, and a success still has to pass the `check`. The kernel side
 * (probe cache, quota, rows) is reached through `ctx.services.agents` (`AgentHost`).
 */
import type {
  AgentAdapter,
  AgentEvent,
  AgentHost,
  ContinuableSession,
  InputAnswer,
  InputRequest,
  OnInput,
  PendingInput,
  PermissionMode,
  ProcessHandle,
  StepContext,
  StepOutcome,
  StepUsage,
} from '../../../kernel/plugin/index.js';

export const AGENT_REASONS = [
  'nonzero_exit',
  'agent_error',
  'check_failed',
  'timeout',
  'transcript_limit',
  'template_error',
  'agent_unavailable',
  'agent_unauthenticated',
  'restricted_unsupported',
  'input_unsupported',
  'input_timeout',
  'input_protocol_error',
  'mcp_unsupported',
  'shell_unavailable',
] as const;

function failed(reason: string, message: string, extra: Partial<StepOutcome> = {}): StepOutcome {
  return { kind: 'failed', reason, message, ...extra } as StepOutcome;
}

/** The notify envelope's `input.summary` (SPEC §2.10): the question(s), or the tool asked for. */
export function inputSummary(p: PendingInput): string {
  if (p.kind === 'permission')
    return `permission: ${p.permission?.tool ?? 'tool'}${p.permission?.summary ? ` ${p.permission.summary}` : ''}`;
  return (p.questions ?? []).map((q) => q.text).join(' / ') || 'question';
}

/** Live kinds on the task's event stream (never stored): `agent.output`, `agent.tool_use`, … */
const LIVE_TYPES = new Set(['output', 'thinking', 'tool_use', 'tool_result', 'usage']);

function permissionMode(ctx: StepContext): PermissionMode {
  // A restricted task tightens every agent step (SPEC §4.4 rule 5); a step may restrict itself.
  return ctx.task.restricted || ctx.setting('permission_mode') === 'restricted'
    ? 'restricted'
    : 'full-auto';
}

function onInputMode(ctx: StepContext): OnInput {
  const v = ctx.setting('on_input');
  return v === 'deny' || v === 'require' ? v : 'wait';
}

/** The default shell for a `check` (agent steps have no `shell:` key). */
function checkShell(ctx: StepContext, text: string): { file: string; args: string[] } | null {
  if (ctx.platform !== 'win32') return { file: '/bin/sh', args: ['-c', text] };
  const file = ctx.which('pwsh') ?? ctx.which('powershell');
  return file ? { file, args: ['-NoProfile', '-Command', text] } : null;
}

async function runCheck(
  ctx: StepContext,
  check: string,
  usage: StepUsage,
  exitCode: number | null,
  summary: string,
): Promise<StepOutcome> {
  let rendered: { text: string; env: Record<string, string> };
  try {
    rendered = ctx.render(check, { shell: true });
  } catch (err) {
    return failed('template_error', (err as Error).message, { exit_code: exitCode, usage });
  }
  const shell = checkShell(ctx, rendered.text);
  if (!shell)
    return failed('shell_unavailable', 'no shell to run the check', { exit_code: exitCode, usage });
  const c = await ctx.spawn({
    file: shell.file,
    args: shell.args,
    env: rendered.env,
    timeoutMs: ctx.checkTimeoutMs(),
    phase: 'check',
    display: rendered.text,
  });
  if (c.cancelled) return { kind: 'cancelled' };
  if (c.spawn_error)
    return failed('shell_unavailable', c.spawn_error, { exit_code: exitCode, usage });
  if (c.timed_out)
    return failed('timeout', 'check did not finish within check_timeout', {
      exit_code: exitCode,
      usage,
    });
  if (c.exit_code !== 0)
    return failed('check_failed', `check exit ${c.exit_code ?? c.signal}`, {
      exit_code: exitCode,
      check_exit_code: c.exit_code,
      usage,
    });
  return { kind: 'succeeded', summary, exit_code: exitCode, check_exit_code: 0, usage };
}

/**
 * Input requests, one at a time in arrival order (decision 046). `deny` answers at once; `wait`
 * and `require` park the task in awaiting_input until a human answers, the input timeout passes
 * (the run is stopped and fails `input_timeout`) or the task is cancelled.
 */
class InputPump {
  private readonly queue: InputRequest[] = [];
  private running = false;
  failure: { reason: string; message: string } | null = null;
  handle: ProcessHandle | null = null;

  constructor(
    private readonly ctx: StepContext,
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
    const { ctx, adapter } = this;
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
      ctx.annotate('input_denied', { request_id: req.request_id, on_input: 'deny' });
      this.write(protocol.deny(req));
      return;
    }
    const outcome = await ctx.requestInput({
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
    } else if (!ctx.signal.aborted) {
      // Not a cancel: the task could not take the wait (another member of its parallel group is
      // waiting for an answer). Refuse this one so the agent carries on rather than hangs.
      ctx.annotate('input_denied', { request_id: req.request_id, reason: 'another_wait' });
      this.write(protocol.deny(req, 'another request of this task is waiting for an answer'));
    }
  }
}

export async function runAgentStep(
  ctx: StepContext,
  def: Record<string, unknown>,
): Promise<StepOutcome> {
  const host = ctx.services.agents as AgentHost | undefined;
  if (!host) return failed('agent_unavailable', 'this daemon has no agent host wired in');
  const values = host.resolve(def, ctx);
  const name = values.agent.value;
  const adapter = host.adapter(name);
  if (!adapter)
    return failed('agent_unavailable', `agent ${name || '(none)'} is not a registered adapter`);
  host.recordRun(ctx.step.run_id, {
    agent: name,
    model: values.model.value || null,
    effort: values.effort.value || null,
  });

  let prompt = String(def.prompt ?? '');
  // Repair and follow-up prompts are a human's literal words (SPEC §4.4); workflow prompts are templates.
  if (def.literal_prompt !== true) {
    try {
      prompt = ctx.render(prompt).text;
    } catch (err) {
      return failed('template_error', (err as Error).message);
    }
  }
  // In a container the CLI is the image's (SPEC §2.10: `agents.<name>.path` is ignored there); the
  // host's probed build, when there is one, is the best guess of its version.
  const container = ctx.container();
  const found = await host.locate(name);
  if (!found.ok && !container) return failed('agent_unavailable', found.message);
  const located = found.ok ? found : { path: adapter.binary, version: null };
  if (ctx.signal.aborted) return { kind: 'cancelled' };

  const mode = permissionMode(ctx);
  const onInput = onInputMode(ctx);
  if (onInput === 'require' && adapter.inputVerdict(located.version) === 'unsupported')
    return failed(
      'input_unsupported',
      `on_input: require, but ${name} ${located.version ?? ''} cannot ask for input`,
    );
  // A follow-up prompt continues the task's latest session of this CLI (decision 044).
  let resume: ContinuableSession | null = null;
  if (
    def.continue_session === true &&
    adapter.traits.supports_resume &&
    (mode === 'full-auto' || adapter.traits.supports_restricted_resume)
  )
    resume = host.sessionToContinue(ctx.task.id, name);
  const mcp = await host.mcpFor(ctx, name);

  const planned = adapter.planRun({
    prompt,
    cwd: ctx.task.worktree,
    ...(values.model.value !== '' && { model: values.model.value }),
    ...(values.effort.value !== '' && { effort: values.effort.value }),
    permission_mode: mode,
    on_input: onInput,
    cli_version: located.version,
    ...(resume && { resume_session_id: resume.session_id }),
    ...(mcp && { mcp }),
    scratch_dir: ctx.scratchDir(),
    platform: ctx.platform,
    is_root: host.isRoot,
  });
  if (!planned.ok) return failed(planned.reason, planned.message);
  const { plan } = planned;
  if (host.debug()) {
    ctx.annotate('agent_debug', {
      agent: values.agent,
      model: values.model,
      effort: values.effort,
      permission_mode: mode,
      on_input: onInput,
      cwd: ctx.task.worktree,
      argv: [located.path, ...plan.args],
      cli_version: located.version,
      resumed_session: resume?.session_id ?? null,
      mcp: mcp !== null,
    });
  }

  const parser = adapter.createParser(resume?.totals ? { resume_baseline: resume.totals } : {});
  const pump = new InputPump(ctx, adapter, onInput);
  const interactive = plan.stdin.kind === 'interactive';
  let handle: ProcessHandle | null = null;
  const quotaSource = adapter.quota?.source ?? 'stream';
  const onEvent = (ev: AgentEvent) => {
    if (LIVE_TYPES.has(ev.type)) {
      const { type, ...data } = ev;
      ctx.live(`agent.${type}`, data);
    }
    switch (ev.type) {
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
        // One turn per step: closing stdin lets an interactive CLI exit (decision 112).
        if (interactive) handle?.closeStdin();
        break;
      case 'error':
        // Never wait on a request that cannot be rendered; never sit out the CLI's auth retries.
        if (ev.reason) handle?.terminate();
        break;
    }
  };

  const r = await ctx.spawn({
    file: located.path,
    containerFile: adapter.binary,
    args: plan.args,
    env: plan.env,
    stdin: plan.stdin.data,
    interactive,
    stdoutMode: 'raw',
    files: plan.files,
    timeoutMs: ctx.timeoutMs('agent'),
    phase: 'run',
    // Full argv only with `debug: true` (SPEC §2.10); otherwise the transcript names the CLI.
    display: host.debug() ? [located.path, ...plan.args].join(' ') : `${name} (${mode})`,
    onStart: (h) => {
      handle = h;
      pump.handle = h;
    },
    onStdoutLine: (line) => {
      for (const ev of parser.push(line)) onEvent(ev);
    },
  });
  if (r.cancelled) return { kind: 'cancelled' };
  if (r.spawn_error) return failed('agent_unavailable', `cannot start ${name}: ${r.spawn_error}`);

  const verdict = parser.finish({
    code: r.exit_code,
    signal: r.signal,
    stderr_tail: r.stderr_tail,
    now: new Date(host.now()),
  });
  const usage: StepUsage = {
    input_tokens: verdict.input_tokens,
    output_tokens: verdict.output_tokens,
    cost_usd: verdict.cost_usd,
    session_id: verdict.session_id,
  };
  if (verdict.session_totals) host.recordSessionTotals(ctx.step.run_id, verdict.session_totals);
  const exit = { exit_code: r.exit_code, usage };
  if (pump.failure) return failed(pump.failure.reason, pump.failure.message, exit);
  if (r.timed_out) return failed('timeout', `${name} did not finish within the step timeout`, exit);

  switch (verdict.kind) {
    case 'usage_limit': {
      const auto = host.usageLimited(name, verdict.resets_at, verdict.message);
      return {
        kind: 'usage_limit',
        resets_at: verdict.resets_at ? Date.parse(verdict.resets_at) : null,
        message: verdict.message,
        usage,
        auto_continue: auto,
      };
    }
    case 'failed':
      return failed(verdict.reason, verdict.message, exit);
    case 'succeeded': {
      const check = typeof def.check === 'string' && def.check.trim() !== '' ? def.check : null;
      const outcome = check
        ? await runCheck(ctx, check, usage, r.exit_code, verdict.result_text)
        : ({
            kind: 'succeeded',
            summary: verdict.result_text,
            exit_code: r.exit_code,
            usage,
          } satisfies StepOutcome);
      if (outcome.kind === 'succeeded') host.succeeded(name);
      return outcome;
    }
  }
}
