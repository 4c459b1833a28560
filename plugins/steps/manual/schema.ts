/** The manual step's keys (SPEC §2.8 "manual"): the schema and the schema-route rows. */
import { z } from 'zod';
import {
  type CommonStepKey,
  commonShape,
  requiredTemplateSchema,
  type SchemaRow,
} from '../../../kernel/plugin/index.js';

/** A gate runs no process: `allow_failure` has nothing to swallow, so it is refused. */
export const MANUAL_COMMON: readonly CommonStepKey[] = [
  'if',
  'max_retries',
  'retry_backoff',
  'timeout',
];

export const ManualStepSchema = z.strictObject({
  type: z.literal('manual'),
  ...commonShape(MANUAL_COMMON),
  instructions: requiredTemplateSchema,
});

export type ManualStep = z.infer<typeof ManualStepSchema>;

export const MANUAL_ROWS: readonly SchemaRow[] = [
  {
    key: 'instructions',
    control: 'template',
    required: true,
    description: 'What the human should check before approving.',
  },
];
