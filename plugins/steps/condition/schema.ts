/** The condition step's keys (decision 024): `if` is its body, nothing else runs. */
import { z } from 'zod';
import { COMMON_KEY_SCHEMAS, commonShape, type SchemaRow } from '../../../kernel/plugin/index.js';

export const ConditionStepSchema = z.strictObject({
  type: z.literal('condition'),
  ...commonShape([]),
  if: COMMON_KEY_SCHEMAS.if,
});

export type ConditionStep = z.infer<typeof ConditionStepSchema>;

export const CONDITION_ROWS: readonly SchemaRow[] = [
  {
    key: 'if',
    control: 'template',
    required: true,
    description:
      'Renders true to go on; false ends the workflow (inside a loop: ends that iteration).',
  },
];
