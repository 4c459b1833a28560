/** Request bodies of the task routes (SPEC §4.4, bounds of §8). zod is the single source of truth. */
import { z } from 'zod';
import { BOUNDS, boundedString, boundedStringMap } from '../http/fields.js';

const nonBlankPrompt = (field: string) =>
  boundedString(field, BOUNDS.prompt).refine((s) => s.trim() !== '', `${field} must not be blank`);

export const CreateTaskSchema = z.strictObject({
  project_id: z.number({ error: 'project_id is required (an integer)' }).int().positive(),
  title: boundedString('title', BOUNDS.title).optional(),
  description: boundedString('description', BOUNDS.description).optional(),
  workflow: z.string().min(1).max(256).optional(),
  fields: boundedStringMap('fields').optional(),
  branch_name: boundedString('branch_name', BOUNDS.branch).optional(),
  base_branch: boundedString('base_branch', BOUNDS.branch).optional(),
  prompt: boundedString('prompt', BOUNDS.prompt)
    .optional()
    .describe(
      'Instructions for the task’s agent, beyond title and description (at most 1 MiB). Templates read it as {{.Task.Prompt}} (the built-in adhoc workflow does); a workflow that never reads it gets it at the top of its first agent step; one with no agent step answers a warning that nothing sees it.',
    ),
  paused: z.boolean().optional(),
  restricted: z.boolean().optional(),
  max_task_cost_usd: z.number().min(0, 'max_task_cost_usd must not be negative').optional(),
  priority: z.number().int().optional(),
  agent: z.string().min(1).max(64).optional(),
  model: z.string().max(256).optional(),
  effort: z.string().max(64).optional(),
  forge_issue: z.number().int().positive().optional(),
  forge_pull: z.number().int().positive().optional(),
});

export type CreateTask = z.infer<typeof CreateTaskSchema>;

export const PatchTaskSchema = z.strictObject({
  priority: z.number({ error: 'priority is the only mutable task field (an integer)' }).int(),
});

export const RetrySchema = z.strictObject({
  prompt_override: boundedString('prompt_override', BOUNDS.prompt).optional(),
  run_override: boundedString('run_override', BOUNDS.run_override).optional(),
  branch_override: boundedString('branch_override', BOUNDS.branch).optional(),
});

export const RepairSchema = z.strictObject({
  prompt: nonBlankPrompt('prompt'),
  agent: z.string().min(1).max(64).optional(),
  model: z.string().max(256).optional(),
  effort: z.string().max(64).optional(),
});

export const FollowUpSchema = z
  .strictObject({
    prompt: boundedString('prompt', BOUNDS.prompt).optional(),
    run: boundedString('run', BOUNDS.run_override).optional(),
    workflow: z.string().min(1).max(256).optional(),
    agent: z.string().min(1).max(64).optional(),
    model: z.string().max(256).optional(),
    effort: z.string().max(64).optional(),
  })
  .refine((b) => [b.prompt, b.run, b.workflow].filter((v) => v !== undefined).length === 1, {
    message: 'give exactly one of prompt, run or workflow',
  });

export const ArchiveSchema = z.strictObject({ force: z.boolean().optional() });

export const AnswerSchema = z.strictObject({
  answers: z
    .record(
      boundedString('answers key', BOUNDS.answer_key),
      z.union([
        boundedString('answer', BOUNDS.value),
        z.array(boundedString('answer', BOUNDS.value)).max(BOUNDS.entries),
      ]),
    )
    .refine(
      (m) => Object.keys(m).length <= BOUNDS.entries,
      `answers has over ${BOUNDS.entries} entries`,
    )
    .optional(),
  allow: z.boolean().optional(),
});

/**
 * `GET /v1/tasks` pages (docs/api.md "Listing tasks"): newest first, `limit` rows (default 100, at
 * most 1000), `X-Next-Cursor` naming where the next page starts. A page keeps the list's cost flat
 * however long the history grows (issue 11: p99 under 50 ms at 10,000 tasks; 10,000 unpaged rows
 * took seconds). Lanes of one parent (`parent_id`) are bounded by the fan-out caps and come whole.
 */
export const LIST_PAGE_DEFAULT = 100;
export const LIST_PAGE_MAX = 1000;

export const TaskListQuerySchema = z.strictObject({
  archived: z
    .enum(['true', 'false', 'all'], { error: 'archived must be false, true or all' })
    .optional(),
  project_id: z
    .string()
    .regex(/^[1-9]\d*$/, 'project_id must be a positive integer')
    .transform(Number)
    .optional(),
  state: z.string().optional(),
  parent_id: z
    .string()
    .regex(/^[1-9]\d*$/, 'parent_id must be a positive integer')
    .transform(Number)
    .optional(),
  include_children: z.enum(['true', 'false']).optional(),
  limit: z
    .string()
    .regex(/^[1-9]\d{0,5}$/, `limit must be an integer from 1 to ${LIST_PAGE_MAX}`)
    .transform(Number)
    .refine((n) => n <= LIST_PAGE_MAX, `limit must be an integer from 1 to ${LIST_PAGE_MAX}`)
    .optional(),
  cursor: z
    .string()
    .regex(/^[1-9]\d*$/, 'cursor must be a task id')
    .transform(Number)
    .optional(),
});
