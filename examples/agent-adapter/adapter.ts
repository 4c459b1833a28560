/**
 * The parrot adapter, assembled: identity, traits, verdicts, probe, run plan and parser. A real
 * adapter adds `input` (questions and permissions), `quota` and `listSkills` when its traits say so.
 */
import type { AgentAdapter } from '../../kernel/plugin/index.js';
import { planRun } from './argv.js';
import { createParser } from './parse.js';
import { probe } from './probe.js';
import { BINARY, CATALOGUE, NAME, TESTED_VERSIONS, TRAITS } from './traits.js';

export const parrotAdapter: AgentAdapter = {
  name: NAME,
  binary: BINARY,
  traits: TRAITS,
  catalogue: CATALOGUE,
  tested_versions: TESTED_VERSIONS,
  // --read-only is a flag of the CLI itself, so a restricted step is honoured everywhere it runs.
  restrictedVerdict: () => 'supported',
  inputVerdict: () => 'unsupported',
  probe,
  planRun,
  createParser,
};
