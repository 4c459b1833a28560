import type {
  AgentCatalogue,
  AgentTraits,
  InputVerdict,
  VersionWindow,
} from '../../../kernel/plugin/index.js';
import { inWindow } from '../../../kernel/plugin/index.js';

export const BINARY = 'claude';

export const TRAITS: AgentTraits = {
  supports_input: true,
  supports_resume: true,
  supports_restricted_resume: true,
  supports_skill_listing: true,
  skill_sigil: '/',
  skill_position: 'leading',
  supports_file_mentions: true,
  file_mention_sigil: '@',
  file_mention_position: 'anywhere',
  file_mention_expands: true,
  supports_effort: true,
  reports_cost: true,
  supports_mcp: true,
};

// The floor served when the CLI cannot be asked. `haiku` is still accepted as an alias by 2.1.330
// although its help no longer lists it; efforts are the `--effort` choices of 2.1.224 and 2.1.330.
export const CATALOGUE: AgentCatalogue = {
  models: ['sonnet', 'opus', 'haiku'],
  efforts: ['low', 'medium', 'high', 'xhigh', 'max'],
  default_model: '',
  default_effort: '',
};

// Builds whose argv, stream and input protocol were run for real against the mock model server
// (test/fixtures/streams/claude/*_<version>.jsonl record them).
export const TESTED_VERSIONS = ['2.1.197', '2.1.330'] as const;

export const LOGGED_IN_PROBE_WINDOW: VersionWindow = { min: '2.1.41', below: '3.0.0' };

/** The control protocol (`--input-format stream-json --permission-prompt-tool stdio`) exists from 2.1 on. */
export const INPUT_WINDOW: VersionWindow = { min: '2.1.0', below: '3.0.0' };

export function inputVerdict(version: string | null): InputVerdict {
  if (version === null) return 'unknown';
  return inWindow(version, INPUT_WINDOW.min, INPUT_WINDOW.below) ? 'supported' : 'unsupported';
}
