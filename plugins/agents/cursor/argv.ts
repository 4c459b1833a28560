import type { AgentRunPlanResult, AgentRunSpec } from '../../../kernel/plugin/index.js';
import { CATALOGUE, restrictedVerdict } from './traits.js';

/**
 * `cursor-agent -p --output-format stream-json --trust …`, prompt on stdin. `--trust` in both
 * modes: every task runs in a never-seen worktree, and the workspace-trust prompt would hang a
 * headless run. `--model` is always passed because cursor persists the last chosen model and
 * would otherwise run whatever the previous run (or the user) picked.
 */
export function planRun(spec: AgentRunSpec): AgentRunPlanResult {
  if (spec.permission_mode === 'restricted' && restrictedVerdict(spec.platform) === 'unsupported') {
    // Never fall back to --force: a restricted step that cannot be restricted does not run.
    return {
      ok: false,
      reason: 'restricted_unsupported',
      message: 'cursor-agent --sandbox needs macOS or Linux',
    };
  }
  if (spec.mcp) {
    return {
      ok: false,
      reason: 'mcp_unsupported',
      message: 'cursor-agent has no per-run MCP configuration',
    };
  }
  const args = ['-p', '--output-format', 'stream-json', '--trust'];
  if (spec.permission_mode === 'full-auto') args.push('--force');
  else args.push('--sandbox', 'enabled');
  args.push('--model', spec.model || CATALOGUE.default_model);
  if (spec.resume_session_id) args.push('--resume', spec.resume_session_id);
  return {
    ok: true,
    plan: { args, env: {}, stdin: { kind: 'close', data: spec.prompt }, files: [] },
  };
}
