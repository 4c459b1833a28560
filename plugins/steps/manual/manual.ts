/**
 * The manual step (SPEC §2.8): a human gate. The task enters awaiting_gate and releases its slot;
 * approve advances, reject blocks. The load-time half is here and in schema.ts; `run` (run.ts) is
 * the engine's half.
 */
import { defineStepType } from '../../../kernel/plugin/index.js';
import { runManual } from './run.js';
import { MANUAL_COMMON, MANUAL_ROWS, type ManualStep, ManualStepSchema } from './schema.js';

export const manualStep = defineStepType<ManualStep>({
  meta: {
    type: 'manual',
    schema: ManualStepSchema,
    common: MANUAL_COMMON,
    rows: MANUAL_ROWS,
    docs: {
      summary: 'A human gate: the task waits in awaiting_gate until approved or rejected.',
      url: 'docs/workflows.md#manual',
    },
    reasons: ['template_error'],
    // A gate parks the whole task, so it cannot stand among running siblings or repeat per iteration.
    contexts: ['body'],
    templates: ['instructions', 'if'],
    waitsForHuman: true,
  },
  run: runManual,
});
