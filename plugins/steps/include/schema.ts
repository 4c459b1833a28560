/** The include step's keys (decision 025): the workflow to splice in, nothing else. */
import { z } from 'zod';
import { commonShape, type SchemaRow } from '../../../kernel/plugin/index.js';

export const IncludeStepSchema = z.strictObject({
  type: z.literal('include'),
  ...commonShape([]),
  workflow: z
    .string({ error: 'must be a workflow name' })
    .min(1, 'must name a workflow')
    .regex(/^[^\s/\\]+$/, 'a workflow name has no whitespace, "/" or "\\"'),
});

export type IncludeStep = z.infer<typeof IncludeStepSchema>;

export const INCLUDE_ROWS: readonly SchemaRow[] = [
  {
    key: 'workflow',
    control: 'workflow',
    required: true,
    description: 'Workflow whose steps replace this one when a task is created.',
  },
];
