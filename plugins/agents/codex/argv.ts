import type { AgentRunPlanResult, AgentRunSpec } from '../../../kernel/plugin/index.js';

/** The MCP server name the daemon's endpoint appears under. */
export const MCP_SERVER_NAME = 'svc';
/** codex reads the MCP bearer token from this variable, so the token never sits on argv. */
export const MCP_TOKEN_ENV = 'SVC_MCP_BEARER_TOKEN';

/** A TOML basic string: JSON's escapes (\" \\ \n \uXXXX) are valid TOML. */
function toml(value: string): string {
  return JSON.stringify(value);
}

/**
 * `codex exec --json …` with the prompt on stdin (codex blocks until stdin reaches EOF).
 * `--skip-git-repo-check` because a linked worktree or a chat directory must not be refused;
 * plugins, remote plugins and analytics are switched off so an unattended run makes no calls
 * of its own (otherwise every run tries `git ls-remote` against the plugin host).
 */
export function planRun(spec: AgentRunSpec): AgentRunPlanResult {
  if (spec.resume_session_id && spec.permission_mode === 'restricted') {
    return {
      ok: false,
      reason: 'restricted_unsupported',
      message: 'codex cannot keep a resumed turn restricted (exec resume takes no --sandbox)',
    };
  }
  const args = [
    'exec',
    '--json',
    '--skip-git-repo-check',
    '--disable',
    'plugins',
    '--disable',
    'remote_plugin',
    '-c',
    'analytics.enabled=false',
  ];
  const env: Record<string, string> = {};
  if (spec.permission_mode === 'full-auto') args.push('--dangerously-bypass-approvals-and-sandbox');
  else args.push('--sandbox', 'workspace-write');
  if (spec.model) args.push('--model', spec.model);
  if (spec.effort) args.push('-c', `model_reasoning_effort=${toml(spec.effort)}`);
  if (spec.mcp) {
    args.push('-c', `mcp_servers.${MCP_SERVER_NAME}.url=${toml(spec.mcp.url)}`);
    args.push('-c', `mcp_servers.${MCP_SERVER_NAME}.bearer_token_env_var=${toml(MCP_TOKEN_ENV)}`);
    env[MCP_TOKEN_ENV] = spec.mcp.bearer_token;
  }
  // Exec-level flags sit before `resume`; `-` reads the prompt from stdin.
  if (spec.resume_session_id) args.push('resume', spec.resume_session_id, '-');
  return { ok: true, plan: { args, env, stdin: { kind: 'close', data: spec.prompt }, files: [] } };
}
