/**
 * Task tools (SPEC §4.4): create, list, show, priority, step runs, a transcript tail and every
 * human action, each through the engine exactly as its route calls it. A task created from an
 * agent step's own endpoint carries its creator and is held to `mcp.max_depth` and
 * `mcp.max_tasks` (decision 123). The per-task event stream has no tool: MCP results are not
 * streams.
 */

import {
  AnswerSchema,
  ArchiveSchema,
  CreateTaskSchema,
  FollowUpSchema,
  PatchTaskSchema,
  RepairSchema,
  RetrySchema,
  TaskListQuerySchema,
} from '../../engine/index.js';
import { SvcError } from '../../errors.js';
import { readTranscript, TranscriptQuerySchema } from '../../http/index.js';
import type { Services } from '../../services.js';
import type { TaskRow } from '../../store/index.js';
import { defineTool, type McpTool, type ToolContext, type ToolId, type ToolIds } from '../tool.js';

const TASK: ToolId = { key: 'task_id', what: 'task' };
const RUN: ToolId = { key: 'run_id', what: 'step run' };

/** Without `offset` or `tail`, a transcript tool call reads the last 64 KiB (decision 121). */
export const TRANSCRIPT_DEFAULT_TAIL = 64 * 1024;

function taskId(ids: ToolIds): number {
  return ids.task_id as number;
}

/** The step run a transcript call names, which must be the task's. */
function runOf(s: Services, ids: ToolIds) {
  const id = taskId(ids);
  const runId = ids.run_id as number;
  const row = s.engine.runs.get(runId);
  if (!row || row.task_id !== id)
    throw new SvcError('not_found', `step run ${runId} not found on task ${id}`);
  return row;
}

/** The routes' `s.engine.get(id)` before their body: an unknown task is 404 whatever the body. */
function taskExists(s: Services, ids: ToolIds): void {
  s.engine.get(taskId(ids));
}

/** A no-body human action: answers the task as it is afterwards. */
function action(
  name: 'cancel' | 'pause' | 'resume' | 'approve' | 'reject' | 'merge_finished',
  description: string,
): McpTool {
  return defineTool({
    name: `tasks_${name}`,
    description,
    route: `POST /v1/tasks/:id/${name}`,
    readOnly: false,
    ids: [TASK],
    run: ({ s }: ToolContext, _input, ids) => {
      const fn: (id: number) => TaskRow = (id) =>
        name === 'merge_finished' ? s.engine.actions.mergeFinished(id) : s.engine.actions[name](id);
      return s.engine.view(fn(taskId(ids)));
    },
  });
}

export const taskTools: McpTool[] = [
  defineTool({
    name: 'tasks_list',
    description:
      'List tasks, newest first: `{tasks[], next_cursor}`. `archived` is false (default), true or all; filters by project, state or parent; `limit` and `cursor` page.',
    route: 'GET /v1/tasks',
    readOnly: true,
    input: { schema: TaskListQuerySchema, from: 'query' },
    run: ({ s }, q) => {
      const { rows, next_cursor } = s.engine.list(q);
      return { tasks: rows, next_cursor };
    },
  }),
  defineTool({
    name: 'tasks_create',
    description:
      'Create a task: a unit of work on a project, run by a workflow in its own worktree and branch. Returns the task plus `warnings[]`.',
    route: 'POST /v1/tasks',
    readOnly: false,
    input: { schema: CreateTaskSchema, from: 'body' },
    run: async ({ s, caller }, body) => {
      // A restricted agent creates restricted tasks, as a lane inherits its parent's flag (decision 125).
      const restricted = caller.kind === 'step' && caller.restricted;
      const r = await s.engine.create(restricted ? { ...body, restricted: true } : body, {
        via: 'mcp',
        ...(caller.kind === 'step' ? { mcpCaller: caller.task_id } : {}),
      });
      return { ...s.engine.view(r.task), warnings: r.warnings };
    },
  }),
  defineTool({
    name: 'tasks_show',
    description: 'One task in detail, with its workflow steps and step runs.',
    route: 'GET /v1/tasks/:id',
    readOnly: true,
    ids: [TASK],
    run: ({ s }, _input, ids) => s.engine.detail(taskId(ids)),
  }),
  defineTool({
    name: 'tasks_update',
    description: 'Set a task’s priority (higher is admitted first).',
    route: 'PATCH /v1/tasks/:id',
    readOnly: false,
    ids: [TASK],
    guard: taskExists,
    input: { schema: PatchTaskSchema, from: 'body' },
    run: ({ s }, body, ids) => {
      const id = taskId(ids);
      return s.engine.view(s.engine.actions.setPriority(id, body.priority));
    },
  }),
  defineTool({
    name: 'tasks_steps',
    description:
      'A task’s step runs, oldest first, including repair and follow-up rows. Each `id` is a `run_id` for tasks_transcript.',
    route: 'GET /v1/tasks/:id/steps',
    readOnly: true,
    ids: [TASK],
    run: ({ s }, _input, ids) => ({ steps: s.engine.steps(taskId(ids)) }),
  }),
  defineTool({
    name: 'tasks_transcript',
    description: `A step run's transcript (NDJSON lines): \`tail\` (last bytes), or \`offset\` to continue from a \`next_offset\`; neither reads the last ${TRANSCRIPT_DEFAULT_TAIL} bytes. Returns \`{text, next_offset, size}\`.`,
    route: 'GET /v1/tasks/:id/steps/:run/transcript',
    readOnly: true,
    ids: [TASK, RUN],
    guard: (s, ids) => {
      taskExists(s, ids);
      runOf(s, ids);
    },
    input: { schema: TranscriptQuerySchema, from: 'query' },
    run: async ({ s }, q, ids) => {
      const row = runOf(s, ids);
      const runId = row.id;
      const tail =
        q.offset === undefined && q.tail === undefined ? TRANSCRIPT_DEFAULT_TAIL : q.tail;
      const t = await readTranscript(row.transcript_path, {
        ...q,
        ...(tail !== undefined ? { tail } : {}),
      });
      if (!t) throw new SvcError('not_found', `step run ${runId} has no transcript`);
      return { text: t.body.toString('utf8'), next_offset: t.nextOffset, size: t.size };
    },
  }),
  action('cancel', 'Cancel a task: stops its running step and aborts it.'),
  action('pause', 'Pause a task: a queued task is held; a running task stops after its step.'),
  action('resume', 'Resume a paused task.'),
  defineTool({
    name: 'tasks_skip',
    description:
      'Skip the step a blocked or gated task stopped at and go on with the next. Refused while its worktree is mid-merge; at a fan-out join, `warnings[]` names each lane left out and the branch its work stays on.',
    route: 'POST /v1/tasks/:id/skip',
    readOnly: false,
    ids: [TASK],
    run: async ({ s }, _input, ids) => {
      const r = await s.engine.actions.skip(taskId(ids));
      return { ...s.engine.view(r.task), warnings: r.warnings };
    },
  }),
  action('approve', 'Approve the manual gate a task waits at.'),
  action('reject', 'Reject the manual gate a task waits at.'),
  action(
    'merge_finished',
    'At a fan-out join (parked for its lanes, or blocked lane_failed or merge_conflict): cancel the lanes still working, merge every lane that finished, record the rest as left out with their branches, and go on.',
  ),
  defineTool({
    name: 'tasks_retry',
    description:
      'Retry a blocked task’s failed step, optionally with a new prompt, command or branch name.',
    route: 'POST /v1/tasks/:id/retry',
    readOnly: false,
    ids: [TASK],
    guard: taskExists,
    input: { schema: RetrySchema, from: 'body' },
    run: async ({ s }, body, ids) => {
      const id = taskId(ids);
      const r = await s.engine.actions.retry(id, body);
      return {
        ...s.engine.view(r.task),
        ...(r.readmitted !== undefined ? { readmitted: r.readmitted } : {}),
      };
    },
  }),
  defineTool({
    name: 'tasks_repair',
    description:
      'Queue a repair run on a blocked task: an agent gets `prompt` (literal) plus the failure context.',
    route: 'POST /v1/tasks/:id/repair',
    readOnly: false,
    ids: [TASK],
    guard: taskExists,
    input: { schema: RepairSchema, from: 'body' },
    run: ({ s }, body, ids) => {
      const id = taskId(ids);
      const r = s.engine.actions.repair(id, body);
      return { ...s.engine.view(r.task), warnings: r.warnings };
    },
  }),
  defineTool({
    name: 'tasks_answer',
    description:
      'Answer the question or permission request a task waits on: `answers` keyed by question text, or `allow`.',
    route: 'POST /v1/tasks/:id/answer',
    readOnly: false,
    ids: [TASK],
    guard: taskExists,
    input: { schema: AnswerSchema, from: 'body' },
    run: ({ s }, body, ids) => {
      const id = taskId(ids);
      return s.engine.view(s.engine.actions.answer(id, body));
    },
  }),
  defineTool({
    name: 'tasks_follow_up',
    description:
      'Queue more work on a finished task: exactly one of `prompt` (an agent run), `run` (a command) or `workflow`.',
    route: 'POST /v1/tasks/:id/follow_up',
    readOnly: false,
    ids: [TASK],
    guard: taskExists,
    input: { schema: FollowUpSchema, from: 'body' },
    run: ({ s }, body, ids) => {
      const id = taskId(ids);
      const r = s.engine.actions.followUp(id, body);
      return { ...s.engine.view(r.task), warnings: r.warnings };
    },
  }),
  defineTool({
    name: 'tasks_archive',
    description:
      'Archive a stopped task: removes its worktree (refused when dirty unless `force`) and deletes an empty branch.',
    route: 'POST /v1/tasks/:id/archive',
    readOnly: false,
    ids: [TASK],
    guard: taskExists,
    input: { schema: ArchiveSchema, from: 'body' },
    run: async ({ s, caller }, body, ids) => {
      const id = taskId(ids);
      // An agent step's archive is not a human's: it never reaches the remote (decision 124).
      const human = caller.kind === 'client';
      const r = await s.engine.actions.archive(id, { force: body.force === true, human });
      return { ...s.engine.view(r.task), ...(r.branch ? { branch: r.branch } : {}) };
    },
  }),
];
