/**
 * codex: OpenAI's Codex CLI (`codex`, npm `@openai/codex`) as an agent adapter. Runs
 * `codex exec --json` (never interactive: no input requests), resumes with `exec … resume <id> -`,
 * reports tokens but no cost, takes one MCP server per run through `-c mcp_servers.svc.*`, and reads
 * quota, models and skills from `codex app-server`. Uses only the plugin door.
 * Decisions: 111 (usage limits), 113 (MCP wiring), 114 (app-server), 115 (quota).
 */
import { type AgentAdapter, definePlugin } from '../../../kernel/plugin/index.js';
import { planRun } from './argv.js';
import { createCodexParser } from './parse.js';
import { probe } from './probe.js';
import { quotaSource } from './quota.js';
import { listSkills } from './skills.js';
import { BINARY, CATALOGUE, restrictedVerdict, TESTED_VERSIONS, TRAITS } from './traits.js';

export const codexAdapter: AgentAdapter = {
  name: 'codex',
  binary: BINARY,
  traits: TRAITS,
  catalogue: CATALOGUE,
  tested_versions: TESTED_VERSIONS,
  restrictedVerdict,
  inputVerdict: () => 'unsupported',
  probe,
  planRun,
  createParser: (options) => createCodexParser(options),
  quota: quotaSource,
  // SPEC §2.10: usage_limit_auto_continue is inert on codex; its stops always wait (decision 043).
  usage_limit_auto_continue: 'inert',
  listSkills,
};

export default definePlugin({
  name: 'svc:agents/codex',
  svc: '^2.0.0',
  setup(api) {
    api.registerAgent(codexAdapter);
  },
});
