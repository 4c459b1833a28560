/**
 * The include step (decision 025): replaced at task creation by the named workflow's steps
 * (project, then global, then built-in), each carrying `resolved_from[]`. Nothing of it survives
 * into the run, so it takes no guard, retries or timeout. Whether the name resolves is judged at
 * creation, not at load: the callee may be written later.
 */
import { defineStepType } from '../../../kernel/plugin/index.js';
import { INCLUDE_ROWS, type IncludeStep, IncludeStepSchema } from './schema.js';

export const includeStep = defineStepType<IncludeStep>({
  meta: {
    type: 'include',
    schema: IncludeStepSchema,
    common: [],
    rows: INCLUDE_ROWS,
    docs: {
      summary: "Splice another workflow's steps in here when a task is created.",
      url: 'docs/workflows.md#include',
    },
    reasons: [],
    // Checked again on the spliced steps: an include in a parallel group must bring agent and
    // command steps only.
    contexts: ['body', 'parallel', 'loop'],
    templates: [],
    // Replaced at task creation by the steps of the workflow `workflow:` names.
    inlines: { key: 'workflow' },
  },
});
