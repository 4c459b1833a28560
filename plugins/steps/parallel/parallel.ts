/**
 * The parallel group (SPEC §2.8): sub-steps run at once in one worktree under one index, one slot
 * and one timeline entry. Only agent and command steps may stand inside (meta.contexts of each
 * type say so); an agent sub-step that resolves to `on_input: require` is refused too, judged on
 * the resolved value, so a `defaults.on_input: require` is caught as well.
 */

import {
  defineStepType,
  requireInputFindings,
  type StepChildren,
} from '../../../kernel/plugin/index.js';
import { parallelFlow } from './flow.js';
import { PARALLEL_COMMON, PARALLEL_ROWS, type ParallelStep, ParallelStepSchema } from './schema.js';

function subSteps(def: ParallelStep): readonly unknown[] {
  return Array.isArray(def?.steps) ? def.steps : [];
}

export const parallelStep = defineStepType<ParallelStep>({
  meta: {
    type: 'parallel',
    schema: ParallelStepSchema,
    common: PARALLEL_COMMON,
    rows: PARALLEL_ROWS,
    docs: {
      summary: 'Run agent and command sub-steps at once in the one worktree.',
      url: 'docs/workflows.md#parallel',
    },
    // The group's outcome is its first failing sub-step's, in declaration order.
    reasons: ['timeout'],
    contexts: ['body'],
    templates: ['if'],
  },
  flow: parallelFlow,
  children(def): StepChildren[] {
    return [{ kind: 'list', path: ['steps'], context: 'parallel', steps: subSteps(def) }];
  },
  validate(def, ctx) {
    return requireInputFindings(subSteps(def), ['steps'], 'inside a parallel group', ctx);
  },
});
