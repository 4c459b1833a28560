/** Request bodies of the task routes (SPEC §4.4, bounds of §8). zod is the single source of truth. */
import { z } from 'zod';
import {
  BOUNDS,
  boundedString,
  boundedStringMap,
  branchField,
  FIELD_NAME_RULE,
} from '../input/index.js';

const nonBlankPrompt = (field: string) =>
  boundedString(field, BOUNDS.prompt).refine((s) => s.trim() !== '', `${field} must not be blank`);

export const CreateTaskSchema = z.strictObject({
  project_id: z
    .number({ error: 'project_id is required (an integer)' })
    .int()
    .positive()
    .describe('The project (a registered git repository) the task works on.'),
  title: boundedString('title', BOUNDS.title)
    .optional()
    .describe(
      'A short title, at most 1 KiB; names the default branch. Required unless forge_issue or forge_pull prefills it.',
    ),
  description: boundedString('description', BOUNDS.description)
    .optional()
    .describe(
      'Longer text for the task, at most 64 KiB; workflows read it as {{.Task.Description}}.',
    ),
  workflow: z
    .string()
    .min(1)
    .max(256)
    .optional()
    .describe(
      "The workflow to run, by name (workflows_list shows them); default: the project's default workflow, else adhoc.",
    ),
  fields: boundedStringMap('fields')
    .optional()
    .describe(
      `Values for the fields the workflow declares, name to string (at most 100 entries; workflows_definition lists them). A name has only ${FIELD_NAME_RULE}; a value has no NUL or control character but tab and line breaks.`,
    ),
  branch_name: branchField('branch_name', { optionalEmpty: true })
    .optional()
    .describe(
      "The task's branch, used verbatim; it must not exist yet. Default: from the branch template (svc/{id}-{slug}).",
    ),
  base_branch: branchField('base_branch')
    .optional()
    .describe(
      "The local branch the task's branch starts from; default: the project's default branch.",
    ),
  prompt: boundedString('prompt', BOUNDS.prompt)
    .optional()
    .describe(
      'Instructions for the task’s agent, beyond title and description (at most 1 MiB). Templates read it as {{.Task.Prompt}} (the built-in adhoc workflow does); a workflow that never reads it gets it at the top of its first agent step; one with no agent step answers a warning that nothing sees it.',
    ),
  paused: z
    .boolean()
    .optional()
    .describe('Create the task held in paused; tasks_resume starts it.'),
  restricted: z
    .boolean()
    .optional()
    .describe(
      'Run every agent step restricted: the agent asks before anything beyond editing files and git.',
    ),
  max_task_cost_usd: z
    .number()
    .min(0, 'max_task_cost_usd must not be negative')
    .optional()
    .describe('A cost cap in US dollars for the whole task; reaching it blocks the task.'),
  priority: z
    .number()
    .int()
    .optional()
    .describe('Admission order among queued tasks: higher first (default 0).'),
  agent: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe('Run every agent step with this agent CLI (claude, codex, cursor; agents_list).'),
  model: z.string().max(256).optional().describe('The model for every agent step.'),
  effort: z.string().max(64).optional().describe('The reasoning effort for every agent step.'),
  forge_issue: z
    .number()
    .int()
    .positive()
    .optional()
    .describe(
      "An issue number on the project's code host: prefills title, description and an `issue` field. A pull request's number goes in forge_pull.",
    ),
  forge_pull: z
    .number()
    .int()
    .positive()
    .optional()
    .describe(
      "A pull request number on the project's code host: the task works on its head branch, fetched at admission.",
    ),
});

export type CreateTask = z.infer<typeof CreateTaskSchema>;

export const PatchTaskSchema = z.strictObject({
  priority: z
    .number({ error: 'priority is the only mutable task field (an integer)' })
    .int()
    .describe('The new priority: higher is admitted first.'),
});

export const RetrySchema = z.strictObject({
  prompt_override: boundedString('prompt_override', BOUNDS.prompt)
    .optional()
    .describe("Replaces the failed agent step's prompt for this attempt (literal text)."),
  run_override: boundedString('run_override', BOUNDS.run_override)
    .optional()
    .describe("Replaces the failed command step's `run` for this attempt (a shell command)."),
  branch_override: branchField('branch_override')
    .optional()
    .describe("Renames the task's branch first (recovers a branch_exists block)."),
});

export const RepairSchema = z.strictObject({
  prompt: nonBlankPrompt('prompt').describe(
    'What the repair agent should do (literal); svc adds the failure context around it.',
  ),
  agent: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe('The agent CLI for the repair run; default: as the task resolves it.'),
  model: z.string().max(256).optional().describe('The model for the repair run.'),
  effort: z.string().max(64).optional().describe('The reasoning effort for the repair run.'),
});

export const FollowUpSchema = z
  .strictObject({
    prompt: boundedString('prompt', BOUNDS.prompt)
      .optional()
      .describe("An agent run in the task's worktree, continuing its latest session of that CLI."),
    run: boundedString('run', BOUNDS.run_override)
      .optional()
      .describe("A shell command run in the task's worktree."),
    workflow: z
      .string()
      .min(1)
      .max(256)
      .optional()
      .describe("A workflow, by name, run as one more round in the task's worktree."),
    agent: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .describe('The agent CLI for a prompt round; default: the task’s.'),
    model: z.string().max(256).optional().describe('The model for a prompt round.'),
    effort: z.string().max(64).optional().describe('The reasoning effort for a prompt round.'),
  })
  .refine((b) => [b.prompt, b.run, b.workflow].filter((v) => v !== undefined).length === 1, {
    message: 'give exactly one of prompt, run or workflow',
  });

export const ArchiveSchema = z.strictObject({
  force: z
    .boolean()
    .optional()
    .describe('Archive even when the worktree has uncommitted changes (they are lost).'),
});

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
    .optional()
    .describe(
      "For a question: each question's text (pending_input.questions[].text) to the answer, a string, or a list for a multi-select question.",
    ),
  allow: z
    .boolean()
    .optional()
    .describe('For a permission request: true allows the tool use, false denies it.'),
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
    .optional()
    .describe('false (default): tasks not archived; true: archived only; all: both.'),
  project_id: z
    .string()
    .regex(/^[1-9]\d*$/, 'project_id must be a positive integer')
    .transform(Number)
    .optional()
    .describe('Only tasks of this project.'),
  state: z
    .string()
    .optional()
    .describe('Only tasks in this state (queued, running, blocked, awaiting_gate, done, …).'),
  parent_id: z
    .string()
    .regex(/^[1-9]\d*$/, 'parent_id must be a positive integer')
    .transform(Number)
    .optional()
    .describe('Only the fan-out lanes of this task.'),
  include_children: z
    .enum(['true', 'false'])
    .optional()
    .describe('true: list fan-out lanes too (left out by default).'),
  limit: z
    .string()
    .regex(/^[1-9]\d{0,5}$/, `limit must be an integer from 1 to ${LIST_PAGE_MAX}`)
    .transform(Number)
    .refine((n) => n <= LIST_PAGE_MAX, `limit must be an integer from 1 to ${LIST_PAGE_MAX}`)
    .optional()
    .describe(
      `At most this many tasks, newest first (default ${LIST_PAGE_DEFAULT}, at most ${LIST_PAGE_MAX}).`,
    ),
  cursor: z
    .string()
    .regex(/^[1-9]\d*$/, 'cursor must be a task id')
    .transform(Number)
    .optional()
    .describe("Where the next page starts: the previous answer's next_cursor."),
});
