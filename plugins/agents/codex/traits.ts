import type {
  AgentCatalogue,
  AgentTraits,
  HostPlatform,
  RestrictedVerdict,
} from '../../../kernel/plugin/index.js';

export const BINARY = 'codex';

export const TRAITS: AgentTraits = {
  supports_input: false,
  supports_resume: true,
  // `codex exec resume` takes no --sandbox of its own: a resumed turn cannot be held restricted.
  supports_restricted_resume: false,
  supports_skill_listing: true,
  skill_sigil: '$',
  skill_position: 'anywhere',
  supports_file_mentions: true,
  file_mention_sigil: '@',
  file_mention_position: 'anywhere',
  file_mention_expands: false,
  supports_effort: true,
  reports_cost: false,
  supports_mcp: true,
};

// No curated models: availability is account dependent and the installed binary lists its own
// catalogue offline (app-server model/list). Efforts are the ones every model of 0.142.5 and
// 0.169.0 offers; `minimal` is in no model's list any more.
export const CATALOGUE: AgentCatalogue = {
  models: [],
  efforts: ['low', 'medium', 'high', 'xhigh'],
  default_model: '',
  default_effort: '',
};

export const TESTED_VERSIONS = ['0.169.0'] as const;

/** workspace-write is bubblewrap/seatbelt; the Windows sandbox was not exercised, so no verdict there. */
export function restrictedVerdict(platform: HostPlatform): RestrictedVerdict {
  return platform === 'win32' ? 'unknown' : 'supported';
}
