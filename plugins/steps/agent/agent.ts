/**
 * The agent step (SPEC §2.8): runs an agent CLI headlessly in the worktree. Succeeds when the
 * process exits 0, its stream ended in a result that is not an error, and any `check` exits 0.
 * This file is the load-time half; the engine adds `run`.
 */
import { agentValueFindings, defineStepType } from '../../../kernel/plugin/index.js';
import { AGENT_COMMON, AGENT_ROWS_OWN, type AgentStep, AgentStepSchema } from './schema.js';

export const agentStep = defineStepType<AgentStep>({
  meta: {
    type: 'agent',
    schema: AgentStepSchema,
    common: AGENT_COMMON,
    rows: AGENT_ROWS_OWN,
    docs: {
      summary: 'Run an agent CLI headlessly in the worktree; every agent step is a fresh session.',
      url: 'docs/workflows.md#agent',
    },
    reasons: [
      'nonzero_exit',
      'agent_error',
      'check_failed',
      'timeout',
      'transcript_limit',
      'template_error',
      'agent_unavailable',
      'agent_unauthenticated',
      'restricted_unsupported',
      'input_unsupported',
      'input_timeout',
      'input_protocol_error',
      'mcp_unsupported',
    ],
    contexts: ['body', 'parallel', 'loop', 'merge'],
    templates: ['prompt', 'check', 'if'],
  },
  validate(def, ctx) {
    const out = agentValueFindings(def, ctx.resolve(def, 'agent')?.value, ctx.agents);
    if (def.check_timeout !== undefined && def.check === undefined) {
      out.push({
        path: ['check_timeout'],
        code: 'check_timeout_without_check',
        severity: 'warning',
        message: 'check_timeout has no effect without check',
      });
    }
    return out;
  },
});
