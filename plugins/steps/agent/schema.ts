/** The agent step's keys (SPEC §2.8 "agent"): the schema and the schema-route rows. */
import { z } from 'zod';
import {
  AGENT_KEY_SCHEMAS,
  AGENT_ROWS,
  CHECK_ROWS,
  COMMIT_ROW,
  type CommonStepKey,
  commitSchema,
  commonShape,
  durationSchema,
  requiredTemplateSchema,
  type SchemaRow,
  templateSchema,
} from '../../../kernel/plugin/index.js';

export const AGENT_COMMON: readonly CommonStepKey[] = [
  'if',
  'max_retries',
  'retry_backoff',
  'timeout',
  'allow_failure',
];

export const AgentStepSchema = z.strictObject({
  type: z.literal('agent'),
  ...commonShape(AGENT_COMMON),
  prompt: requiredTemplateSchema,
  agent: AGENT_KEY_SCHEMAS.agent.optional(),
  model: AGENT_KEY_SCHEMAS.model.optional(),
  effort: AGENT_KEY_SCHEMAS.effort.optional(),
  permission_mode: AGENT_KEY_SCHEMAS.permission_mode.optional(),
  on_input: AGENT_KEY_SCHEMAS.on_input.optional(),
  input_timeout: AGENT_KEY_SCHEMAS.input_timeout.optional(),
  check: templateSchema.optional(),
  check_timeout: durationSchema({ positive: true }).optional(),
  commit: commitSchema.optional(),
});

export type AgentStep = z.infer<typeof AgentStepSchema>;

export const AGENT_ROWS_OWN: readonly SchemaRow[] = [
  {
    key: 'prompt',
    control: 'template',
    required: true,
    description: 'What the agent is asked to do; a template with the task, earlier steps and more.',
  },
  ...AGENT_ROWS,
  ...CHECK_ROWS,
  COMMIT_ROW,
];
