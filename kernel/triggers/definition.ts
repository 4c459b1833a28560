/**
 * The trigger file's schema (SPEC §2.6): zod, strict at every level, composed at run time from
 * the registered trigger sources (the `source:` block) and the four kernel-owned actions. It is
 * the single source of truth for validation, the parsed `definition` and the schema route's rows
 * (schema-doc.ts reads the same constants). Decision 081 sets out the format.
 */
import { z } from 'zod';
import { checkTemplate } from '../../lib/template/index.js';
import { BOUNDS, fieldNameProblem } from '../input/index.js';

/** SPEC §4.6: lowercase letters, digits, `-`, `_`, `.`, starting with a letter or digit, no `..`. */
export const TRIGGER_ID_PATTERN = /^[a-z0-9][a-z0-9._-]*$/;
export const MAX_TRIGGER_ID = 128;
/** Ids that would be shadowed by the schema and validate routes (decision 081). */
export const RESERVED_TRIGGER_IDS = ['schema', 'validate'] as const;

/** The problem with a trigger id, or null when it can name a file. */
export function triggerIdProblem(id: string): string | null {
  if (id.length === 0) return 'is empty';
  if (id.length > MAX_TRIGGER_ID) return `is over ${MAX_TRIGGER_ID} characters`;
  if (!TRIGGER_ID_PATTERN.test(id))
    return 'must be lowercase letters, digits, -, _ or ., starting with a letter or digit';
  if (id.includes('..')) return 'must not contain ..';
  if ((RESERVED_TRIGGER_IDS as readonly string[]).includes(id))
    return `is reserved (the route /v1/triggers/${id} exists)`;
  return null;
}

export const OVERRUN_MODES = ['parallel', 'skip', 'queue', 'cancel_previous'] as const;
export type Overrun = (typeof OVERRUN_MODES)[number];
export const ON_FIRE_VALUES = ['propose', 'create'] as const;
export type OnFire = (typeof ON_FIRE_VALUES)[number];
export const PERMISSIONS = ['restricted', 'workflow'] as const;
export type Permission = (typeof PERMISSIONS)[number];
export const ACTION_TYPES = ['create_task', 'follow_up', 'retry', 'cancel'] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

/** The dedupe key when a file names none: the event's own id. */
export const DEFAULT_DEDUPE_KEY = '{{.Event.id}}';

/** A Go text/template that must parse; its errors are reported at load, not at fire time. */
export const templateString = (what: string) =>
  z.string({ error: `${what} must be a template string` }).superRefine((s, ctx) => {
    const err = checkTemplate(s);
    if (err)
      ctx.addIssue({
        code: 'custom',
        message: `${what} does not parse: ${err.message}`,
        params: { code: 'template_syntax' },
      });
  });

const nonEmpty = (what: string) =>
  z.string({ error: `${what} must be a string` }).min(1, `${what} must not be empty`);

const matchValue = z.union([z.string(), z.number(), z.boolean()]);

/** `match:` event key (dotted path) → a value or a list of accepted values. */
export const MatchSchema = z.record(
  z.string().min(1, 'a match key must not be empty'),
  z.union([matchValue, z.array(matchValue).min(1, 'a match list must not be empty')], {
    error: 'a match value is a string, number, boolean or a list of them',
  }),
);

export const LimitsSchema = z.strictObject({
  max_per_hour: z
    .number({ error: 'limits.max_per_hour must be a whole number' })
    .int('limits.max_per_hour must be a whole number')
    .min(1, 'limits.max_per_hour must be at least 1')
    .optional(),
});

const target = {
  task: templateString('task').optional(),
  branch: templateString('branch').optional(),
};

function oneTarget(a: { task?: string; branch?: string }, ctx: z.RefinementCtx): void {
  const n = [a.task, a.branch].filter((v) => v !== undefined).length;
  if (n !== 1)
    ctx.addIssue({
      code: 'custom',
      path: ['task'],
      message: 'give exactly one of task (a task id template) or branch (a branch template)',
    });
}

export const CreateTaskActionSchema = z.strictObject({
  type: z.literal('create_task'),
  title: templateString('title'),
  description: templateString('description').optional(),
  workflow: nonEmpty('workflow').max(256).optional(),
  fields: z
    .record(z.string().min(1).max(BOUNDS.field_key), templateString('a field'))
    // Judged on the whole map: a key schema's own message is lost behind zod's "Invalid key in
    // record", and the file's reader needs the rule (decision 186).
    .superRefine((m, ctx) => {
      for (const k of Object.keys(m)) {
        const problem = fieldNameProblem(k);
        if (problem) ctx.addIssue({ code: 'custom', path: [k], message: problem });
      }
    })
    .refine(
      (m) => Object.keys(m).length <= BOUNDS.entries,
      `fields has over ${BOUNDS.entries} entries`,
    )
    .optional(),
  prompt: templateString('prompt').optional(),
  branch_name: templateString('branch_name').optional(),
  base_branch: nonEmpty('base_branch').max(BOUNDS.branch).optional(),
  agent: nonEmpty('agent').max(64).optional(),
  model: z.string().max(256).optional(),
  effort: z.string().max(64).optional(),
  priority: z.number().int('priority must be a whole number').optional(),
  max_task_cost_usd: z.number().min(0, 'max_task_cost_usd must not be negative').optional(),
  forge_issue: templateString('forge_issue').optional(),
  forge_pull: templateString('forge_pull').optional(),
  permission: z.enum(PERMISSIONS, { error: 'permission is restricted or workflow' }).optional(),
});

export const FollowUpActionSchema = z
  .strictObject({
    type: z.literal('follow_up'),
    ...target,
    prompt: templateString('prompt').optional(),
    run: templateString('run').optional(),
    workflow: nonEmpty('workflow').max(256).optional(),
    agent: nonEmpty('agent').max(64).optional(),
    model: z.string().max(256).optional(),
    effort: z.string().max(64).optional(),
  })
  .superRefine((a, ctx) => {
    oneTarget(a, ctx);
    if ([a.prompt, a.run, a.workflow].filter((v) => v !== undefined).length !== 1)
      ctx.addIssue({
        code: 'custom',
        path: ['prompt'],
        message: 'give exactly one of prompt, run or workflow',
      });
  });

export const RetryActionSchema = z
  .strictObject({
    type: z.literal('retry'),
    ...target,
    prompt_override: templateString('prompt_override').optional(),
    run_override: templateString('run_override').optional(),
  })
  .superRefine(oneTarget);

export const CancelActionSchema = z
  .strictObject({ type: z.literal('cancel'), ...target })
  .superRefine(oneTarget);

export const ACTION_SCHEMAS = {
  create_task: CreateTaskActionSchema,
  follow_up: FollowUpActionSchema,
  retry: RetryActionSchema,
  cancel: CancelActionSchema,
} as const;

export type CreateTaskAction = z.infer<typeof CreateTaskActionSchema>;
export type FollowUpAction = z.infer<typeof FollowUpActionSchema>;
export type RetryAction = z.infer<typeof RetryActionSchema>;
export type CancelAction = z.infer<typeof CancelActionSchema>;
export type TriggerAction = CreateTaskAction | FollowUpAction | RetryAction | CancelAction;
export type ReactionAction = FollowUpAction | RetryAction | CancelAction;

/**
 * The top level with `source` and `action` left open: they are checked against the registered
 * source's schema and the action's schema in a second pass, so an unknown `type` is one clear
 * finding instead of a union's guesswork.
 */
export const TopLevelSchema = z.strictObject({
  id: z.string({ error: 'id is required (the file name without .yaml)' }),
  enabled: z.boolean({ error: 'enabled is true or false' }).default(false),
  project_id: z
    .number({ error: 'project_id is required (a project id)' })
    .int('project_id must be a project id')
    .positive('project_id must be a project id'),
  description: z.string().max(BOUNDS.description).optional(),
  source: z.looseObject(
    { type: z.string({ error: 'source.type is required' }) },
    {
      error: 'source is required: a mapping with a type',
    },
  ),
  match: MatchSchema.optional(),
  allowed_actors: z
    .array(nonEmpty('an allowed actor'), { error: 'allowed_actors is a list of logins' })
    .min(1, 'allowed_actors must not be empty (leave it out to allow everyone)')
    .optional(),
  if: templateString('if').optional(),
  dedupe_key: templateString('dedupe_key').optional(),
  concurrency_key: templateString('concurrency_key').optional(),
  overrun: z
    .enum(OVERRUN_MODES, { error: `overrun is one of ${OVERRUN_MODES.join(', ')}` })
    .optional(),
  limits: LimitsSchema.optional(),
  on_fire: z.enum(ON_FIRE_VALUES, { error: 'on_fire is propose or create' }).optional(),
  action: z.looseObject(
    { type: z.string({ error: 'action.type is required' }) },
    {
      error: 'action is required: a mapping with a type',
    },
  ),
});

export type TopLevel = z.infer<typeof TopLevelSchema>;

/** A valid trigger file as JSON (the `definition` of GET /v1/triggers/{id}). */
export interface TriggerDefinition extends Omit<TopLevel, 'source' | 'action'> {
  source: { type: string } & Record<string, unknown>;
  action: TriggerAction;
}

/** The values in effect where the file leaves them out. */
export function onFireOf(def: TriggerDefinition): OnFire {
  return def.on_fire ?? (def.action.type === 'cancel' ? 'create' : 'propose');
}

export function permissionOf(def: TriggerDefinition): Permission | undefined {
  return def.action.type === 'create_task' ? (def.action.permission ?? 'restricted') : undefined;
}

export function overrunOf(def: TriggerDefinition): Overrun {
  return def.overrun ?? 'parallel';
}
