/**
 * claude: the Claude Code CLI (`claude`, npm `@anthropic-ai/claude-code`) as an agent adapter.
 * Runs `claude -p --output-format stream-json --verbose`, drives input requests through the
 * stream-json control protocol (from 2.1), reports cost, takes one MCP server per run through
 * `--mcp-config`, and has its quota pushed from the user's status line. Uses only the plugin door.
 * Decisions: 111 (usage limits), 112 (input requests), 113 (MCP wiring), 115 (quota).
 */
import { type AgentAdapter, definePlugin } from '../../../kernel/plugin/index.js';
import { planRun } from './argv.js';
import { inputProtocol } from './input.js';
import { createClaudeParser } from './parse.js';
import { probe } from './probe.js';
import { quotaSource } from './quota.js';
import { listSkills } from './skills.js';
import {
  BINARY,
  CATALOGUE,
  inputVerdict,
  LOGGED_IN_PROBE_WINDOW,
  TESTED_VERSIONS,
  TRAITS,
} from './traits.js';

export const claudeAdapter: AgentAdapter = {
  name: 'claude',
  binary: BINARY,
  traits: TRAITS,
  catalogue: CATALOGUE,
  tested_versions: TESTED_VERSIONS,
  logged_in_probe_window: LOGGED_IN_PROBE_WINDOW,
  // --allowedTools is a permission feature of the CLI itself, not an OS sandbox: every host.
  restrictedVerdict: () => 'supported',
  inputVerdict,
  probe,
  planRun,
  createParser: () => createClaudeParser(),
  input: inputProtocol,
  quota: quotaSource,
  listSkills,
};

export default definePlugin({
  name: 'svc:agents/claude',
  svc: '^2.0.0',
  setup(api) {
    api.registerAgent(claudeAdapter);
  },
});
