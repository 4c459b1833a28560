/** The parallel group's keys (SPEC §2.8 "parallel"): the schema and the schema-route rows. */
import { z } from 'zod';
import { type CommonStepKey, commonShape, type SchemaRow } from '../../../kernel/plugin/index.js';

/** `timeout` bounds the whole group; a retry re-runs only the sub-steps that failed. */
export const PARALLEL_COMMON: readonly CommonStepKey[] = [
  'if',
  'max_retries',
  'retry_backoff',
  'timeout',
];

export const ParallelStepSchema = z.strictObject({
  type: z.literal('parallel'),
  ...commonShape(PARALLEL_COMMON),
  steps: z
    .array(z.unknown(), { error: 'must be a list of steps' })
    .min(1, 'needs at least one sub-step'),
  max_parallel: z
    .number({ error: 'must be a whole number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .optional(),
});

export type ParallelStep = z.infer<typeof ParallelStepSchema>;

export const PARALLEL_ROWS: readonly SchemaRow[] = [
  {
    key: 'steps',
    control: 'steps',
    required: true,
    description:
      'Sub-steps run at once in the one worktree: agent and command steps (or includes of them).',
  },
  {
    key: 'max_parallel',
    control: 'int',
    description: 'Sub-steps running at once.',
    default: '4 (parallel.max_parallel)',
  },
];
