/**
 * The condition step (decision 024): a template that must render exactly `true` or `false`. True
 * goes on; false ends the task successfully (in a loop body: ends that iteration). It runs no
 * process, so it takes no retries, timeout or allow_failure. It may not stand in a parallel group,
 * where "the rest" has no order.
 */

import { defineStepType } from '../../../kernel/plugin/index.js';
import { conditionFlow } from './flow.js';
import { CONDITION_ROWS, type ConditionStep, ConditionStepSchema } from './schema.js';

export const conditionStep = defineStepType<ConditionStep>({
  meta: {
    type: 'condition',
    schema: ConditionStepSchema,
    common: [],
    rows: CONDITION_ROWS,
    docs: {
      summary: 'Stop the workflow (or the loop iteration) early unless a template renders true.',
      url: 'docs/workflows.md#condition',
    },
    reasons: ['condition_error'],
    contexts: ['body', 'loop'],
    templates: ['if'],
    ifRole: 'body',
    // In a loop body false ends the iteration (at the top level the flow ends the workflow).
    bodyIf: { when: false, ends: 'iteration' },
  },
  flow: conditionFlow,
});
