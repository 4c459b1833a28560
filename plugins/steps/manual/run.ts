/** A manual step (SPEC §2.8): no process; the task waits in awaiting_gate for approve or reject. */
import {
  type StepContext,
  type StepOutcome,
  templateFailure,
} from '../../../kernel/plugin/index.js';
import type { ManualStep } from './schema.js';

export async function runManual(ctx: StepContext, def: ManualStep): Promise<StepOutcome> {
  try {
    return { kind: 'awaiting_gate', instructions: ctx.render(def.instructions).text };
  } catch (err) {
    return templateFailure(err);
  }
}
