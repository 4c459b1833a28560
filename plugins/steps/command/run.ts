/**
 * Running a command step (SPEC §2.8 command row): the rendered `run` through the step's shell in
 * the worktree, then its `check`. Values from users and events reach the shell only as quoted
 * environment variable references (StepContext.render with `shell: true`); `env:` is literal.
 */
import type { StepContext, StepOutcome } from '../../../kernel/plugin/index.js';
import type { CommandStep } from './schema.js';

export const COMMAND_REASONS = [
  'nonzero_exit',
  'check_failed',
  'timeout',
  'shell_unavailable',
  'template_error',
  'transcript_limit',
] as const;

export interface ShellInvocation {
  file: string;
  args: string[];
}

/** argv for a shell; null when a pinned shell is missing (the step then fails shell_unavailable). */
export function shellFor(
  ctx: StepContext,
  shell: string | undefined,
  text: string,
): ShellInvocation | null {
  const windows = ctx.platform === 'win32';
  switch (shell) {
    case 'pwsh': {
      const file = ctx.which('pwsh');
      return file ? { file, args: ['-NoProfile', '-Command', text] } : null;
    }
    case 'cmd': {
      const file = ctx.which('cmd') ?? ctx.which('cmd.exe');
      return file ? { file, args: ['/C', text] } : null;
    }
    case 'sh': {
      const file = windows ? ctx.which('sh') : ctx.which('/bin/sh');
      return file ? { file, args: ['-c', text] } : null;
    }
    default: {
      if (!windows) return { file: '/bin/sh', args: ['-c', text] };
      const file = ctx.which('pwsh') ?? ctx.which('powershell');
      return file ? { file, args: ['-NoProfile', '-Command', text] } : null;
    }
  }
}

async function runPhase(
  ctx: StepContext,
  def: CommandStep,
  phase: 'run' | 'check',
  source: string,
  timeoutMs: number,
) {
  let rendered: { text: string; env: Record<string, string> };
  try {
    rendered = ctx.render(source, { shell: true });
  } catch (err) {
    return { kind: 'template_error' as const, message: (err as Error).message };
  }
  const shell = shellFor(ctx, def.shell, rendered.text);
  if (!shell)
    return {
      kind: 'shell_unavailable' as const,
      message: `shell ${def.shell ?? 'default'} is not installed`,
    };
  const r = await ctx.spawn({
    file: shell.file,
    args: shell.args,
    env: { ...def.env, ...rendered.env },
    timeoutMs,
    phase,
    display: rendered.text,
  });
  return { kind: 'ran' as const, r };
}

export async function runCommand(ctx: StepContext, def: CommandStep): Promise<StepOutcome> {
  const main = await runPhase(ctx, def, 'run', def.run, ctx.timeoutMs('command'));
  if (main.kind !== 'ran') return { kind: 'failed', reason: main.kind, message: main.message };
  const r = main.r;
  if (r.cancelled) return { kind: 'cancelled' };
  if (r.spawn_error) return { kind: 'failed', reason: 'shell_unavailable', message: r.spawn_error };
  if (r.timed_out)
    return {
      kind: 'failed',
      reason: 'timeout',
      message: `run did not finish within its timeout`,
      exit_code: r.exit_code,
    };
  if (r.exit_code !== 0) {
    return {
      kind: 'failed',
      reason: 'nonzero_exit',
      message: `exit ${r.exit_code ?? r.signal}`,
      exit_code: r.exit_code,
    };
  }
  if (def.check !== undefined && def.check.trim() !== '') {
    const check = await runPhase(ctx, def, 'check', def.check, ctx.checkTimeoutMs());
    if (check.kind !== 'ran')
      return { kind: 'failed', reason: check.kind, message: check.message, exit_code: 0 };
    const c = check.r;
    if (c.cancelled) return { kind: 'cancelled' };
    if (c.timed_out)
      return {
        kind: 'failed',
        reason: 'timeout',
        message: 'check did not finish within check_timeout',
        exit_code: 0,
      };
    if (c.exit_code !== 0) {
      return {
        kind: 'failed',
        reason: 'check_failed',
        message: `check exit ${c.exit_code ?? c.signal}`,
        exit_code: 0,
        check_exit_code: c.exit_code,
      };
    }
    return { kind: 'succeeded', exit_code: 0, check_exit_code: 0, summary: r.tail };
  }
  return { kind: 'succeeded', exit_code: 0, summary: r.tail };
}
