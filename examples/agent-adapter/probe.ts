/**
 * Asking the installed binary about itself, through the kernel's runner only. Never throws:
 * what it cannot learn is null (never guessed), and a failed model listing is `probe_error`.
 */
import type { AgentProbe, ProbeContext } from '../../kernel/plugin/index.js';

export async function probe(ctx: ProbeContext): Promise<AgentProbe> {
  const version = await ctx.run({ args: ['--version'], timeout_ms: 5000 });
  const v =
    version.kind === 'exited' && version.code === 0
      ? (/(\d+\.\d+\.\d+)/.exec(version.stdout)?.[1] ?? (version.stdout.trim() || null))
      : null;
  const list = await ctx.run({ args: ['--list-models'], timeout_ms: 5000 });
  const models =
    list.kind === 'exited' && list.code === 0
      ? list.stdout
          .split('\n')
          .map((l) => l.trim())
          .filter(Boolean)
      : null;
  return {
    version: v,
    // parrot-agent needs no login; a real CLI asks its auth command here (true, false or null).
    logged_in: null,
    models,
    efforts: null,
    probe_error: models ? null : `parrot-agent --list-models failed (${list.kind})`,
  };
}
