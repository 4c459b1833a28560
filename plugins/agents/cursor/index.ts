/**
 * cursor: the Cursor Agent CLI (`cursor-agent`) as an agent adapter. Runs
 * `cursor-agent -p --output-format stream-json --trust`, resumes with `--resume <chatId>`, reports
 * tokens but no cost, has no effort setting, no input requests, no quota surface, no skill listing
 * and no per-run MCP wiring, and cannot run restricted on Windows. Not installable from npm: its
 * fixtures are written from the documented dialect. Uses only the plugin door.
 * Decisions: 113 (no MCP), 117 (untested builds).
 */
import { type AgentAdapter, definePlugin } from '../../../kernel/plugin/index.js';
import { planRun } from './argv.js';
import { createCursorParser } from './parse.js';
import { probe } from './probe.js';
import { BINARY, CATALOGUE, restrictedVerdict, TESTED_VERSIONS, TRAITS } from './traits.js';

export const cursorAdapter: AgentAdapter = {
  name: 'cursor',
  binary: BINARY,
  traits: TRAITS,
  catalogue: CATALOGUE,
  tested_versions: TESTED_VERSIONS,
  restrictedVerdict,
  inputVerdict: () => 'unsupported',
  probe,
  planRun,
  createParser: () => createCursorParser(),
  // SPEC §2.10: usage_limit_auto_continue is inert on cursor (decision 043).
  usage_limit_auto_continue: 'inert',
};

export default definePlugin({
  name: 'svc:agents/cursor',
  svc: '^2.0.0',
  setup(api) {
    api.registerAgent(cursorAdapter);
  },
});
