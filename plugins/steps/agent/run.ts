/**
 * Running an agent step (SPEC §2.8 agent row, §3.2): resolve agent/model/effort, find the CLI,
 * run one turn through the kernel's shared `runAgentTurn` (plan, spawn in the worktree, parse the
 * stream into live events, answer input requests through the task's `awaiting_input` per
 * `on_input`; decision 160), and map the verdict to an outcome (decision 046): a usage limit
 * interrupts without spending a retry, everything else fails with the verdict's reason, and a
 * success still has to pass the `check`. The kernel side (probe cache, quota, rows) is reached
 * through `ctx.agents` (`AgentHost`, decision 224).
 */
import {
  type ContinuableSession,
  type OnInput,
  type PermissionMode,
  runAgentTurn,
  type StepContext,
  type StepDefOf,
  type StepOutcome,
  type StepUsage,
} from '../../../kernel/plugin/index.js';
import type { AgentStep } from './schema.js';

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

export async function runAgentStep(
  ctx: StepContext,
  def: StepDefOf<AgentStep>,
): Promise<StepOutcome> {
  const host = ctx.agents;
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

  let prompt = def.prompt;
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

  const turn = await runAgentTurn(ctx, host, {
    adapter,
    located,
    prompt,
    cwd: ctx.task.worktree,
    model: values.model.value,
    effort: values.effort.value,
    permission_mode: mode,
    on_input: onInput,
    resume,
    mcp,
    scratch_dir: ctx.scratchDir(),
    platform: ctx.platform,
    timeoutMs: ctx.timeoutMs('agent'),
    label: `${name} (${mode})`,
    debugFields: { agent: values.agent, model: values.model, effort: values.effort },
  });
  if (turn.kind === 'refused') return failed(turn.reason, turn.message);
  if (turn.kind === 'cancelled') return { kind: 'cancelled' };
  if (turn.kind === 'spawn_failed') return failed('agent_unavailable', turn.message);

  const { verdict } = turn;
  const usage: StepUsage = {
    input_tokens: verdict.input_tokens,
    output_tokens: verdict.output_tokens,
    cost_usd: verdict.cost_usd,
    session_id: verdict.session_id,
  };
  if (verdict.session_totals) host.recordSessionTotals(ctx.step.run_id, verdict.session_totals);
  const exit = { exit_code: turn.exit_code, usage };
  if (turn.input_failure)
    return failed(turn.input_failure.reason, turn.input_failure.message, exit);
  if (turn.timed_out)
    return failed('timeout', `${name} did not finish within the step timeout`, exit);

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
      const check = def.check !== undefined && def.check.trim() !== '' ? def.check : null;
      const outcome = check
        ? await runCheck(ctx, check, usage, turn.exit_code, verdict.result_text)
        : ({
            kind: 'succeeded',
            summary: verdict.result_text,
            exit_code: turn.exit_code,
            usage,
          } satisfies StepOutcome);
      if (outcome.kind === 'succeeded') host.succeeded(name);
      return outcome;
    }
  }
}
