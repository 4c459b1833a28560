/**
 * One headless run as a pure plan (decision 110): argv, env, stdin and files. The prompt goes on
 * stdin, never argv (visible in `ps`, and capped near 8 KB on Windows). What the CLI cannot do is
 * refused with a reason the engine turns into a step failure; it is never quietly weakened.
 */
import type { AgentRunPlanResult, AgentRunSpec } from '../../kernel/plugin/index.js';
import { CATALOGUE } from './traits.js';

export function planRun(spec: AgentRunSpec): AgentRunPlanResult {
  if (spec.mcp)
    return {
      ok: false,
      reason: 'mcp_unsupported',
      message: 'parrot-agent cannot carry an MCP server',
    };
  if (spec.resume_session_id)
    return { ok: false, reason: 'resume_unsupported', message: 'parrot-agent has no sessions' };
  const args = ['--print', '--model', spec.model ?? CATALOGUE.default_model];
  // restricted: the CLI's own read-only mode, so it writes nothing in the worktree.
  if (spec.permission_mode === 'restricted') args.push('--read-only');
  return {
    ok: true,
    plan: {
      args,
      // Only what an unattended run needs; never HOME or a config home (the user's login lives there).
      env: { PARROT_NO_COLOR: '1' },
      stdin: { kind: 'close', data: spec.prompt },
      files: [],
    },
  };
}
