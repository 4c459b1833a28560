/**
 * Review tools (issue 16 point 4): `tasks_diff` reads a task's work as the diff route serves it
 * (the same query, the same 16 MiB bound), so a reviewing agent — a review step of another task,
 * or a chat — reads through svc instead of running git in someone else's worktree; its answer is
 * the diff text itself, with the route's headers as a second content item. `tasks_review` sends
 * line comments back as the review route does.
 */
import { reviewDeps } from '../../http/index.js';
import {
  DiffQuerySchema,
  isDiffText,
  ReviewSchema,
  reviewTask,
  taskDiff,
} from '../../review/index.js';
import { defineTool, type McpTool, type ToolId, type ToolIds, ToolText } from '../tool.js';

const TASK: ToolId = { key: 'task_id', what: 'task' };

const taskId = (ids: ToolIds) => ids.task_id as number;

export const reviewTools: McpTool[] = [
  defineTool({
    name: 'tasks_diff',
    description:
      'A task’s changes as a unified diff (text): its worktree — committed, staged, unstaged and untracked files — against the merge base with its base branch, or its branch once the worktree is gone. `run` narrows to one step run, `path` to one file, `stat: true` answers JSON files with +/- counts. Cut at a file boundary past 16 MiB; the second content item says `{source, truncated}`.',
    route: 'GET /v1/tasks/:id/diff',
    readOnly: true,
    ids: [TASK],
    guard: (s, ids) => {
      s.engine.get(taskId(ids));
    },
    input: { schema: DiffQuerySchema, from: 'query' },
    run: async ({ s, signal }, q, ids) => {
      const r = await taskDiff(reviewDeps(s), taskId(ids), q, { signal });
      if (!isDiffText(r)) return r;
      return new ToolText(r.body.toString('utf8'), { source: r.source, truncated: r.truncated });
    },
  }),
  defineTool({
    name: 'tasks_review',
    description:
      'Send line comments on a task’s diff back to its agent in one action: a follow-up of a done or aborted task, a reject then repair at a gate, a repair of a blocked task. Each comment is `{path, line, side?, body}`; `summary` goes first; `dry_run` returns the composed prompt and changes nothing.',
    route: 'POST /v1/tasks/:id/review',
    readOnly: false,
    ids: [TASK],
    guard: (s, ids) => {
      s.engine.get(taskId(ids));
    },
    input: { schema: ReviewSchema, from: 'body' },
    run: async ({ s, signal }, body, ids) => {
      const r = await reviewTask(reviewDeps(s), taskId(ids), body, signal);
      if (!r.task) return { review: r.review };
      return { ...s.engine.view(r.task), warnings: r.warnings ?? [], review: r.review };
    },
  }),
];
