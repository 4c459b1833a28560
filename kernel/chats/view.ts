/**
 * What the API shows of a chat and its turns (SPEC §4.5): the row as JSON, with the question a live
 * turn waits on when the chat is awaiting input (it lives in memory, not in the row).
 */
import type { ChatCore } from './core.js';
import type { ChatRow, TurnRow } from './table.js';

export function chatView(core: ChatCore, chat: ChatRow): Record<string, unknown> {
  const v: Record<string, unknown> = {
    id: chat.id,
    project_id: chat.project_id,
    title: chat.title,
    agent: chat.agent,
    model: chat.model,
    effort: chat.effort,
    state: chat.state,
    worktree_path: chat.worktree_path,
    branch_name: chat.branch_name,
    base_branch: chat.base_branch,
    existing_branch: chat.existing_branch === 1,
    restricted: chat.restricted === 1,
    session_id: chat.session_id,
    created_at: chat.created_at,
    updated_at: chat.updated_at,
    ended_at: chat.ended_at,
  };
  if (chat.linked_task_id !== null) v.linked_task_id = chat.linked_task_id;
  if (chat.handoff_task_id !== null) v.handoff_task_id = chat.handoff_task_id;
  const waiting = core.live.get(chat.id)?.waiting;
  if (waiting && chat.state === 'awaiting_input')
    v.pending_input = {
      kind: waiting.wait.kind,
      summary: waiting.wait.summary,
      request: waiting.wait.pending,
    };
  return v;
}

export function turnView(t: TurnRow): Record<string, unknown> {
  return {
    seq: t.seq,
    state: t.state,
    message: t.message,
    failure_reason: t.failure_reason,
    failure_message: t.failure_message,
    result_text: t.result_text,
    session_id: t.session_id,
    input_tokens: t.input_tokens,
    output_tokens: t.output_tokens,
    cost_usd: t.cost_usd,
    exit_code: t.exit_code,
    started_at: t.started_at,
    finished_at: t.finished_at,
  };
}

export function chatDetail(
  core: ChatCore,
  id: number,
): { chat: Record<string, unknown>; turns: Array<Record<string, unknown>> } {
  const chat = core.load(id);
  return { chat: chatView(core, chat), turns: core.table.turns(id).map((t) => turnView(t)) };
}
