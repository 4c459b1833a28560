/** A condition at the top level (decision 024): true goes on, false ends the workflow; the task is done. */
import type { StepFlow } from '../../../kernel/plugin/index.js';
import type { ConditionStep } from './schema.js';

export const conditionFlow: StepFlow<ConditionStep> = async (ctx, def) => {
  const template = def.if;
  const g = ctx.guard(template);
  if (!g.ok) {
    ctx.record({
      step_id: ctx.step.id,
      step_type: 'condition',
      state: 'failed',
      failure_reason: 'condition_error',
      summary: g.error,
    });
    return { kind: 'blocked', reason: 'condition_error', message: g.error };
  }
  ctx.record({
    step_id: ctx.step.id,
    step_type: 'condition',
    state: g.value ? 'succeeded' : 'stopped',
    summary: template,
  });
  return g.value ? { kind: 'succeeded' } : { kind: 'stop_workflow' };
};
