/** The break step's keys (decision 024): `if` is its body. */
import { z } from 'zod';
import { COMMON_KEY_SCHEMAS, commonShape, type SchemaRow } from '../../../kernel/plugin/index.js';

export const BreakStepSchema = z.strictObject({
  type: z.literal('break'),
  ...commonShape([]),
  if: COMMON_KEY_SCHEMAS.if,
});

export type BreakStep = z.infer<typeof BreakStepSchema>;

export const BREAK_ROWS: readonly SchemaRow[] = [
  {
    key: 'if',
    control: 'template',
    required: true,
    description: 'Renders true to leave the loop (it succeeds), false to go on with the body.',
  },
];
