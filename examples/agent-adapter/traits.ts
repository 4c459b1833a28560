/**
 * What the parrot CLI can do (SPEC §2.3). Every trait is stated: the engine reads them to decide
 * what to offer (chats need resume, cost caps need cost, MCP wiring needs supports_mcp).
 */
import type { AgentCatalogue, AgentTraits } from '../../kernel/plugin/index.js';

export const NAME = 'parrot';
/** Looked up on PATH unless config.yaml names it: `agents: {parrot: {path: /abs/parrot-agent}}`. */
export const BINARY = 'parrot-agent';

export const TRAITS: AgentTraits = {
  supports_input: false,
  supports_resume: false,
  supports_restricted_resume: false,
  supports_skill_listing: false,
  skill_sigil: '',
  skill_position: 'anywhere',
  supports_file_mentions: false,
  file_mention_sigil: '',
  file_mention_position: 'anywhere',
  file_mention_expands: false,
  supports_effort: false,
  reports_cost: false,
  supports_mcp: true,
};

/** The floor served when the CLI cannot list its models (`source: curated`). */
export const CATALOGUE: AgentCatalogue = {
  models: ['parrot', 'macaw'],
  efforts: [],
  default_model: 'parrot',
  default_effort: '',
};

/** Builds this adapter was run against (decision 117): `version_verdict: tested` for these. */
export const TESTED_VERSIONS = ['1.0.0'];
