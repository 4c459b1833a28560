/** The loop step's keys (decision 024): one driver, `count` or `for_each`, and a body. */
import { z } from 'zod';
import {
  type CommonStepKey,
  commonShape,
  type SchemaRow,
  templateSchema,
} from '../../../kernel/plugin/index.js';

/**
 * `timeout` bounds the whole loop. No retries: each body step has its own budget, and a retried
 * loop resumes at the failed body step rather than starting over. No retry_backoff (SPEC §2.8).
 */
export const LOOP_COMMON: readonly CommonStepKey[] = ['if', 'timeout'];

const positiveInt = z
  .number({ error: 'must be a whole number' })
  .int('must be a whole number')
  .min(1, 'must be at least 1');

export const LoopStepSchema = z.strictObject({
  type: z.literal('loop'),
  ...commonShape(LOOP_COMMON),
  steps: z
    .array(z.unknown(), { error: 'must be a list of steps' })
    .min(1, 'needs at least one body step'),
  count: positiveInt.optional(),
  for_each: z
    .union([templateSchema, z.array(templateSchema)], {
      error: 'must be a template string or a list of template strings',
    })
    .optional(),
  max_iterations: positiveInt.optional(),
});

export type LoopStep = z.infer<typeof LoopStepSchema>;

export const LOOP_ROWS: readonly SchemaRow[] = [
  {
    key: 'steps',
    control: 'steps',
    required: true,
    description:
      'The body, run once per iteration: agent, command, condition, break and include steps.',
  },
  {
    key: 'count',
    control: 'int',
    description: 'Run the body this many times (exactly one of count and for_each).',
  },
  {
    key: 'for_each',
    control: 'template',
    description:
      'Items to iterate: each rendered line (of a string or of each list entry) that is not blank is one item, as .Loop.Item.',
  },
  {
    key: 'max_iterations',
    control: 'int',
    description: 'Ceiling for count and for the rendered for_each list.',
    default: '10 (loop.max_iterations)',
  },
];
