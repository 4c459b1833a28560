/**
 * The agent step (SPEC §2.8): runs an agent CLI headlessly in the worktree. Succeeds when the
 * process exits 0, its stream ended in a result that is not an error, and any `check` exits 0.
 * The load-time half is here and in schema.ts; `run` (run.ts) is the engine's half.
 */
import { agentValueFindings, defineStepType } from '../../../kernel/plugin/index.js';
import { AGENT_REASONS, runAgentStep } from './run.js';
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
    reasons: AGENT_REASONS,
    contexts: ['body', 'parallel', 'loop', 'merge'],
    templates: ['prompt', 'check', 'if'],
    runsAgent: true,
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
  run: runAgentStep,
});
