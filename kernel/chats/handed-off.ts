/**
 * The end of a handed-off chat's record (decision 217). Hand-off gave the worktree and the branch
 * to the task, so what is left is the conversation: archiving it touches no git, and deleting it
 * never deletes the branch, which is the task's to judge when the task is archived.
 */
import { SvcError } from '../errors.js';
import type { EventLog } from '../events/index.js';
import type { Store } from '../store/index.js';
import type { ChatState } from './schema.js';
import type { ChatRow } from './table.js';

export interface HandedOffDeps {
  store: Store;
  events: EventLog;
  load(id: number): ChatRow;
  /** The service's state change with its `chat.state_changed` event; false when the row moved first. */
  move(chat: ChatRow, to: ChatState, from: readonly ChatState[]): boolean;
}

/** `POST /v1/chats/{id}/archive` on a handed-off chat: `handed_off` → `archived`, nothing else. */
export function archiveHandedOff(d: HandedOffDeps, chat: ChatRow): ChatRow {
  const moved = d.store.tx(() => {
    const now = d.load(chat.id);
    if (!d.move(now, 'archived', ['handed_off'])) return false;
    d.events.append(
      'chat.archived',
      { project_id: chat.project_id, chat_id: chat.id },
      { task_id: chat.handoff_task_id },
    );
    return true;
  });
  if (!moved) {
    const now = d.load(chat.id);
    throw new SvcError('invalid_state', `cannot archive a chat that is ${now.state}`, {
      state: now.state,
    });
  }
  return d.load(chat.id);
}

/** `delete_branch=true` on a chat whose branch went to a task: refused, naming the task. */
export function handedOffBranchRefusal(chat: ChatRow): SvcError {
  return new SvcError(
    'invalid_state',
    `chat ${chat.id} was handed off to task ${chat.handoff_task_id}: its branch is the task's (archiving the task judges it)`,
    { state: chat.state, reason: 'handed_off', task_id: chat.handoff_task_id as number },
  );
}
