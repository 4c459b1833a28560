/**
 * One headless run as a pure plan (decision 110): argv, env, stdin and files. The prompt goes on
 * stdin, never argv (visible in `ps`, and capped near 8 KB on Windows). What the CLI cannot do is
 * refused with a reason the engine turns into a step failure; it is never quietly weakened.
 */
import { join } from 'node:path';
import type { AgentRunPlanResult, AgentRunSpec } from '../../kernel/plugin/index.js';
import { CATALOGUE } from './traits.js';

export function planRun(spec: AgentRunSpec): AgentRunPlanResult {
  if (spec.resume_session_id)
    return { ok: false, reason: 'resume_unsupported', message: 'parrot-agent has no sessions' };
  const args = ['--print', '--model', spec.model ?? CATALOGUE.default_model];
  // restricted: the CLI's own read-only mode, so it writes nothing in the worktree.
  if (spec.permission_mode === 'restricted') args.push('--read-only');
  const files: Array<{ path: string; content: string }> = [];
  // The step's MCP endpoint (mcp.wire_steps, on by default), carried like the built-ins carry it:
  // in a file in the run's scratch directory, never on argv, where `ps` would show the token. A
  // CLI that cannot take one refuses here with `mcp_unsupported` instead.
  if (spec.mcp) {
    const path = join(spec.scratch_dir, 'parrot-mcp.json');
    const config = {
      url: spec.mcp.url,
      headers: { Authorization: `Bearer ${spec.mcp.bearer_token}` },
    };
    files.push({ path, content: `${JSON.stringify(config)}\n` });
    args.push('--mcp-config', path);
  }
  return {
    ok: true,
    plan: {
      args,
      // Only what an unattended run needs; never HOME or a config home (the user's login lives there).
      env: { PARROT_NO_COLOR: '1' },
      stdin: { kind: 'close', data: spec.prompt },
      files,
    },
  };
}
