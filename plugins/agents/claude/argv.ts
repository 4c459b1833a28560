import { join } from 'node:path';
import type { AgentRunPlanResult, AgentRunSpec } from '../../../kernel/plugin/index.js';
import { inputVerdict } from './traits.js';

/** The MCP server name the daemon's endpoint appears under (tools become `mcp__svc__<tool>`). */
export const MCP_SERVER_NAME = 'svc';

/**
 * What a restricted step may do without asking: file tools plus git. Other tools become
 * permission requests (input mode) or are denied (plain mode). 2.1.330's help writes Bash rules
 * as `Bash(git *)`; the older `Bash(git:*)` spelling is not documented any more.
 */
export const RESTRICTED_TOOLS = [
  'Read',
  'Glob',
  'Grep',
  'Edit',
  'Write',
  'MultiEdit',
  'Bash(git *)',
];

/** The first stdin line in input mode: the prompt as a stream-json user message. */
export function userMessageLine(prompt: string): string {
  return `${JSON.stringify({
    type: 'user',
    message: { role: 'user', content: [{ type: 'text', text: prompt }] },
  })}\n`;
}

/**
 * `claude -p --output-format stream-json --verbose …` (decision 112 for input mode). The prompt
 * is never on argv: plain mode writes it to stdin and closes it; input mode writes one user line and
 * keeps stdin open for control responses.
 */
export function planRun(spec: AgentRunSpec): AgentRunPlanResult {
  const inputMode = inputVerdict(spec.cli_version) === 'supported';
  const args = ['-p', '--output-format', 'stream-json', '--verbose'];
  const env: Record<string, string> = {
    // No telemetry, error reporting or update checks from an unattended run.
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
  };
  const files: { path: string; content: string }[] = [];

  if (spec.permission_mode === 'full-auto') {
    args.push('--dangerously-skip-permissions');
    // As root claude refuses to skip permissions unless told it runs in a sandbox.
    if (spec.is_root) env.IS_SANDBOX = '1';
  } else {
    const allowed = spec.mcp ? [...RESTRICTED_TOOLS, `mcp__${MCP_SERVER_NAME}`] : RESTRICTED_TOOLS;
    // Input mode routes anything else to the daemon as a permission request; plain mode has no
    // one to ask, so `dontAsk` denies deterministically instead of depending on the default mode.
    args.push('--permission-mode', inputMode ? 'default' : 'dontAsk');
    args.push('--allowedTools', allowed.join(','));
  }
  if (inputMode) args.push('--input-format', 'stream-json', '--permission-prompt-tool', 'stdio');
  if (spec.model) args.push('--model', spec.model);
  if (spec.effort) args.push('--effort', spec.effort);
  if (spec.resume_session_id) args.push('--resume', spec.resume_session_id);
  if (spec.mcp) {
    // A file, not inline JSON: argv is readable by every local user through ps, the token is not.
    const path = join(spec.scratch_dir, 'mcp.json');
    const config = {
      mcpServers: {
        [MCP_SERVER_NAME]: {
          type: 'http',
          url: spec.mcp.url,
          headers: { Authorization: `Bearer ${spec.mcp.bearer_token}` },
        },
      },
    };
    files.push({ path, content: `${JSON.stringify(config, null, 2)}\n` });
    args.push('--mcp-config', path);
  }

  return {
    ok: true,
    plan: {
      args,
      env,
      stdin: inputMode
        ? { kind: 'interactive', data: userMessageLine(spec.prompt) }
        : { kind: 'close', data: spec.prompt },
      files,
    },
  };
}
