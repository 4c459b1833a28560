/**
 * The fan_out step's keys (SPEC §2.8 "fan_out" and "merge"): a static `lanes:` list or one `lane:`
 * template (decision 028), and how lanes merge back. The schema and the schema-route rows.
 */
import { z } from 'zod';
import {
  AGENT_KEY_SCHEMAS,
  type CommonStepKey,
  commonShape,
  requiredTemplateSchema,
  type SchemaRow,
  slugSchema,
  templateSchema,
} from '../../../kernel/plugin/index.js';

/** `max_retries` governs the join (one attempt unless declared); `timeout` bounds it. */
export const FAN_OUT_COMMON: readonly CommonStepKey[] = [
  'if',
  'max_retries',
  'retry_backoff',
  'timeout',
];

const laneShape = {
  id: slugSchema,
  if: requiredTemplateSchema.optional(),
  workflow: z
    .string({ error: 'must be a workflow name' })
    .min(1, 'must name a workflow')
    .regex(/^[^\s/\\]+$/, 'a workflow name has no whitespace, "/" or "\\"')
    .optional(),
  steps: z
    .array(z.unknown(), { error: 'must be a list of steps' })
    .min(1, 'needs at least one step')
    .optional(),
  fields: z
    .record(slugSchema, z.union([templateSchema, z.number(), z.boolean()]), {
      error: 'must be a map of field names to values',
    })
    .optional(),
  agent: AGENT_KEY_SCHEMAS.agent.optional(),
  model: AGENT_KEY_SCHEMAS.model.optional(),
  effort: AGENT_KEY_SCHEMAS.effort.optional(),
  priority: z.number({ error: 'must be a whole number' }).int('must be a whole number').optional(),
};

export const LaneSchema = z.strictObject(laneShape);
export type Lane = z.infer<typeof LaneSchema>;

export const LaneTemplateSchema = z.strictObject({
  ...laneShape,
  for_each: z.union([requiredTemplateSchema, z.array(templateSchema)], {
    error: 'must be a template string or a list of template strings',
  }),
});
export type LaneTemplate = z.infer<typeof LaneTemplateSchema>;

export const ON_CONFLICT = ['block', 'agent'] as const;

export const MergeSchema = z.strictObject({
  on_conflict: z
    .enum(ON_CONFLICT, { error: `must be one of ${ON_CONFLICT.join(', ')}` })
    .optional(),
  // The resolver is a whole agent step, checked as one through children().
  agent: z.unknown().optional(),
});

export const FanOutStepSchema = z.strictObject({
  type: z.literal('fan_out'),
  ...commonShape(FAN_OUT_COMMON),
  lanes: z
    .array(LaneSchema, { error: 'must be a list of lanes' })
    .min(1, 'needs at least one lane')
    .optional(),
  lane: LaneTemplateSchema.optional(),
  merge: MergeSchema.optional(),
  /** `all` (default) joins once every lane settled; `eager` merges each lane as soon as it and those before it settled (decision 017). */
  schedule: z.enum(['all', 'eager'], { error: 'must be all or eager' }).optional(),
});

export type FanOutStep = z.infer<typeof FanOutStepSchema>;

export const FAN_OUT_ROWS: readonly SchemaRow[] = [
  {
    key: 'lanes',
    control: 'lanes',
    description: 'Child tasks, one per lane, merged back in this order (or use lane).',
  },
  {
    key: 'lane',
    control: 'lane',
    description: 'One lane template expanded once per rendered for_each item (or use lanes).',
  },
  { key: 'merge', control: 'merge', description: 'How lane branches merge back.' },
  {
    key: 'schedule',
    control: 'enum',
    values: ['all', 'eager'],
    default: 'all',
    description:
      'all: join once every lane settled; eager: merge each lane as soon as it and the lanes before it settled.',
  },
];

const LANE_ROWS: readonly SchemaRow[] = [
  {
    key: 'id',
    control: 'string',
    required: true,
    description: 'Slug unique among the lanes of this step.',
  },
  {
    key: 'workflow',
    control: 'workflow',
    description: 'Workflow the child task runs (exactly one of workflow and steps).',
  },
  { key: 'steps', control: 'steps', description: 'Inline steps the child task runs.' },
  {
    key: 'if',
    control: 'template',
    description: 'Guard: false means this lane is not spawned (the join still happens).',
  },
  {
    key: 'fields',
    control: 'map',
    description: "Task fields for the child, merged over the parent's (lane wins); templates.",
  },
  { key: 'agent', control: 'agent', description: "Agent for the lane's agent steps." },
  { key: 'model', control: 'model', description: "Model for the lane's agent steps." },
  { key: 'effort', control: 'effort', description: "Effort for the lane's agent steps." },
  { key: 'priority', control: 'int', description: "The child task's priority." },
];

export const FAN_OUT_SECTIONS: Readonly<Record<string, readonly SchemaRow[]>> = {
  lane: [
    ...LANE_ROWS,
    {
      key: 'for_each',
      control: 'template',
      required: true,
      description:
        'lane: only. One lane per rendered non-blank line, ids <id>-1, <id>-2, …, the item as .Loop.Item.',
    },
  ],
  merge: [
    {
      key: 'on_conflict',
      control: 'enum',
      values: ON_CONFLICT,
      description:
        'block stops with merge_conflict; agent runs the resolver first, falling back to block.',
      default: 'block',
    },
    {
      key: 'agent',
      control: 'map',
      description:
        'The resolver: an agent step (type implied) with an id; only with on_conflict: agent. Sees .Conflicts.',
    },
  ],
};
