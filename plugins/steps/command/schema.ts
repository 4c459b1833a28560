/** The command step's keys (SPEC §2.8 "command"): the schema and the schema-route rows. */
import { z } from 'zod';
import {
  CHECK_ROWS,
  COMMIT_ROW,
  type CommonStepKey,
  commitSchema,
  commonShape,
  durationSchema,
  requiredTemplateSchema,
  type SchemaRow,
  SHELLS,
  templateSchema,
} from '../../../kernel/plugin/index.js';

export const COMMAND_COMMON: readonly CommonStepKey[] = [
  'if',
  'max_retries',
  'retry_backoff',
  'timeout',
  'allow_failure',
];

/** Portable environment variable names; anything else is refused before it reaches a shell. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const CommandStepSchema = z.strictObject({
  type: z.literal('command'),
  ...commonShape(COMMAND_COMMON),
  run: requiredTemplateSchema,
  shell: z.enum(SHELLS, { error: `must be one of ${SHELLS.join(', ')}` }).optional(),
  env: z
    .record(
      z.string().regex(ENV_NAME, 'must be a variable name (letters, digits, _; not first a digit)'),
      z.string({ error: 'must be a string' }),
      { error: 'must be a map of variable names to strings' },
    )
    .optional(),
  check: templateSchema.optional(),
  check_timeout: durationSchema({ positive: true }).optional(),
  commit: commitSchema.optional(),
});

export type CommandStep = z.infer<typeof CommandStepSchema>;

export const COMMAND_ROWS: readonly SchemaRow[] = [
  {
    key: 'run',
    control: 'template',
    required: true,
    description: 'Shell command run in the worktree.',
  },
  {
    key: 'shell',
    control: 'enum',
    values: SHELLS,
    description: 'Pin a shell; refused with a pinned container image when pwsh or cmd.',
    default: '/bin/sh -c on POSIX, pwsh on Windows',
  },
  {
    key: 'env',
    control: 'map',
    description: 'Extra environment variables, literal values (not templates). Layered over SVC_*.',
  },
  ...CHECK_ROWS,
  COMMIT_ROW,
];
