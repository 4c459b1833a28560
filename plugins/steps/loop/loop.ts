/**
 * The loop step (decision 024). Exactly one driver: `count` (a whole number, at most the ceiling,
 * checked at load) or `for_each` (templates rendered when the loop starts; each non-blank line is
 * one item; a list longer than the ceiling blocks the task `loop_limit` before the first
 * iteration). The ceiling is the step's `max_iterations`, else `loop.max_iterations`. `break`
 * leaves the loop; `condition` false ends one iteration. No `while`: converge with count + break.
 */

import {
  defineStepType,
  requireInputFindings,
  type StepChildren,
  type StepFinding,
} from '../../../kernel/plugin/index.js';
import { loopFlow } from './flow.js';
import { LOOP_COMMON, LOOP_ROWS, type LoopStep, LoopStepSchema } from './schema.js';

function body(def: LoopStep): readonly unknown[] {
  return Array.isArray(def?.steps) ? def.steps : [];
}

export const loopStep = defineStepType<LoopStep>({
  meta: {
    type: 'loop',
    schema: LoopStepSchema,
    common: LOOP_COMMON,
    rows: LOOP_ROWS,
    docs: {
      summary: 'Repeat a body count times or once per rendered for_each item; break leaves it.',
      url: 'docs/workflows.md#loop',
    },
    reasons: ['loop_limit', 'condition_error', 'timeout'],
    contexts: ['body'],
    templates: ['if', 'for_each', 'for_each[]'],
    // The task carries the `loop` object (SPEC §2.1) while this step is current.
    view: 'loop',
  },
  flow: loopFlow,
  children(def): StepChildren[] {
    return [{ kind: 'list', path: ['steps'], context: 'loop', steps: body(def) }];
  },
  validate(def, ctx) {
    const out: StepFinding[] = [];
    const hasCount = def.count !== undefined;
    const hasForEach = def.for_each !== undefined;
    if (hasCount === hasForEach) {
      out.push({
        path: hasCount ? ['for_each'] : [],
        code: 'loop_driver',
        message: hasCount
          ? 'a loop takes count or for_each, not both'
          : 'a loop needs count or for_each',
      });
    }
    const own = typeof def.max_iterations === 'number' ? def.max_iterations : undefined;
    const ceiling = own ?? ctx.limits.loop_max_iterations;
    if (typeof def.count === 'number' && def.count > ceiling) {
      out.push({
        path: ['count'],
        code: 'count_over_ceiling',
        message:
          own === undefined
            ? `count ${def.count} is over loop.max_iterations (${ceiling}); lower it or set max_iterations on the loop`
            : `count ${def.count} is over this loop's max_iterations (${ceiling})`,
      });
    }
    if (Array.isArray(def.for_each) && def.for_each.length === 0) {
      out.push({
        path: ['for_each'],
        code: 'empty',
        message: 'for_each must not be an empty list',
      });
    }
    out.push(...requireInputFindings(body(def), ['steps'], 'in a loop body', ctx));
    return out;
  },
});
