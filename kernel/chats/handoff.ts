/**
 * Hand-off (SPEC §4.5): an idle chat of its own becomes a task that takes its worktree and branch.
 * What is left of the chat afterwards (archive, delete) is `handed-off.ts`'s.
 */
import { existsSync } from 'node:fs';
import { type CreateTask, CreateTaskSchema } from '../engine/index.js';
import { SvcError } from '../errors.js';
import { operationInProgress } from '../git/index.js';
import { parseWith } from '../input/index.js';
import type { TaskRow } from '../store/index.js';
import type { ChatCore } from './core.js';
import type { ChatRow } from './table.js';

/**
 * `POST /v1/chats/{id}/handoff` (SPEC §4.5): the body is a `POST /v1/tasks` body validated by the
 * same code; the task takes the chat's project, base, branch and worktree (uncommitted work and
 * all), and one transaction writes the task, `task.created` and `chat.handed_off`.
 */
export async function handOffChat(
  core: ChatCore,
  id: number,
  raw: unknown,
): Promise<{ task: TaskRow; chat: ChatRow; warnings: string[] }> {
  const { d } = core;
  const chat = core.load(id);
  if (chat.linked_task_id !== null) throw core.linkedRefusal(chat, 'handoff');
  if (chat.state !== 'idle')
    throw new SvcError('invalid_state', `cannot hand off a chat that is ${chat.state}`, {
      state: chat.state,
    });
  if (!chat.worktree_path || !existsSync(chat.worktree_path))
    throw new SvcError('invalid_state', `chat ${id} has no worktree to hand off`, {
      state: chat.state,
      reason: 'no_worktree',
    });
  const given =
    raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const { project_id: _p, base_branch: _b, branch_name: _n, ...rest } = given;
  const body: CreateTask = parseWith(CreateTaskSchema, {
    title: chat.title,
    ...rest,
    project_id: chat.project_id,
    base_branch: chat.base_branch,
    branch_name: chat.branch_name,
  });
  const op = await operationInProgress(chat.worktree_path);
  if (op)
    throw new SvcError(
      'repo_operation_in_progress',
      `chat ${id}'s worktree is in the middle of a ${op}`,
      {
        operation: op,
      },
    );
  const r = await d.engine.creator.create(body, {
    via: `chat:${id}`,
    handoff: {
      chat_id: id,
      worktree_path: chat.worktree_path,
      // Inside the task's transaction: both durable events or neither (SPEC §4.5).
      inTx: (taskId) => {
        const now = core.load(id);
        if (
          !core.moveChat(now, 'handed_off', { handoff_task_id: taskId, worktree_path: '' }, [
            'idle',
          ])
        )
          throw new SvcError('invalid_state', `cannot hand off a chat that is ${now.state}`, {
            state: now.state,
          });
        d.events.append(
          'chat.handed_off',
          { project_id: chat.project_id, chat_id: id },
          { task_id: taskId },
        );
      },
    },
  });
  d.engine.poke();
  core.skillCache.delete(id);
  return { task: r.task, chat: core.load(id), warnings: r.warnings };
}
