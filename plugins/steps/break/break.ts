/**
 * The break step (decision 024): inside a loop body only, leaves the innermost loop when its `if`
 * renders true (the loop succeeds and the workflow goes on after it); false continues the body.
 * With `count` it is how a converge loop is written (`count: 5` + `break` when tests pass).
 */
import { defineStepType } from '../../../kernel/plugin/index.js';
import { BREAK_ROWS, type BreakStep, BreakStepSchema } from './schema.js';

export const breakStep = defineStepType<BreakStep>({
  meta: {
    type: 'break',
    schema: BreakStepSchema,
    common: [],
    rows: BREAK_ROWS,
    docs: {
      summary: 'Leave the enclosing loop when a template renders true.',
      url: 'docs/workflows.md#break',
    },
    reasons: ['condition_error'],
    contexts: ['loop'],
    templates: ['if'],
    ifRole: 'body',
    // True leaves the innermost loop, which succeeds; false lets the body go on.
    bodyIf: { when: true, ends: 'loop' },
  },
});
