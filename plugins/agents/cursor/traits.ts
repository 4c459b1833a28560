import type {
  AgentCatalogue,
  AgentTraits,
  HostPlatform,
  RestrictedVerdict,
} from '../../../kernel/plugin/index.js';

/** `cursor-agent`, never `cursor`: that name is the editor's launcher and opens a window. */
export const BINARY = 'cursor-agent';

export const TRAITS: AgentTraits = {
  supports_input: false,
  supports_resume: true,
  supports_restricted_resume: true,
  // No skill-listing surface is known (SPEC §2.3: false for this adapter).
  supports_skill_listing: false,
  skill_sigil: '/',
  skill_position: 'anywhere',
  supports_file_mentions: true,
  file_mention_sigil: '@',
  file_mention_position: 'anywhere',
  file_mention_expands: false,
  // Reasoning depth is part of cursor's model ids; there is no effort flag, so effort is dropped.
  supports_effort: false,
  reports_cost: false,
  // No per-run MCP flag: cursor reads only mcp.json files shared with the editor (decision 113).
  supports_mcp: false,
};

// `auto` is the only id every account has; the listed catalogue is account-scoped.
export const CATALOGUE: AgentCatalogue = {
  models: ['auto'],
  efforts: [],
  default_model: 'auto',
  default_effort: '',
};

// Nothing was run here: cursor-agent is not on the npm registry. The anchor's pinned builds
// (2026.08.04-aaa8809, 2026.08.11) are not claimed as tested by this project (decision 117).
export const TESTED_VERSIONS: readonly string[] = [];

/** `--sandbox enabled` needs macOS or Linux; on Windows the CLI exits before doing any work. */
export function restrictedVerdict(platform: HostPlatform): RestrictedVerdict {
  return platform === 'win32' ? 'unsupported' : 'supported';
}
