/**
 * Helpers for chat tests: creating chats through the API, sending a turn and waiting for it to
 * end the way a client would (polling the detail), and reading a turn's transcript.
 */
import type { TestApp } from './app.js';
import { waitFor } from './app.js';

export interface ChatJson {
  id: number;
  project_id: number;
  title: string;
  agent: string;
  state: string;
  worktree_path: string;
  branch_name: string;
  linked_task_id?: number;
  handoff_task_id?: number;
  restricted: boolean;
  session_id: string | null;
  [key: string]: unknown;
}

export interface TurnJson {
  seq: number;
  state: string;
  message: string;
  failure_reason: string | null;
  result_text: string | null;
  session_id: string | null;
  [key: string]: unknown;
}

export async function createChat(t: TestApp, body: Record<string, unknown>): Promise<ChatJson> {
  const res = await t.api('POST', '/v1/chats', body, { 'content-type': 'application/json' });
  if (res.statusCode !== 201) throw new Error(`create chat → ${res.statusCode} ${res.body}`);
  return res.json() as ChatJson;
}

export async function chatDetail(
  t: TestApp,
  id: number,
): Promise<{ chat: ChatJson; turns: TurnJson[] }> {
  return t.json('GET', `/v1/chats/${id}`);
}

export async function send(t: TestApp, id: number, message: string) {
  return t.api('POST', `/v1/chats/${id}/send`, { message }, { 'content-type': 'application/json' });
}

/** Waits until the chat's turn `seq` has ended, then returns the detail. */
export async function waitTurn(t: TestApp, id: number, seq: number, timeoutMs = 20_000) {
  let last: unknown = null;
  try {
    return await waitFor(async () => {
      const d = await chatDetail(t, id);
      last = d;
      const turn = d.turns.find((x) => x.seq === seq);
      return turn && turn.state !== 'running' && d.chat.state !== 'running' ? d : null;
    }, timeoutMs);
  } catch {
    throw new Error(
      `turn ${seq} of chat ${id} never ended; last: ${JSON.stringify(last).slice(0, 2000)}`,
    );
  }
}

export async function waitChatState(t: TestApp, id: number, state: string, timeoutMs = 20_000) {
  return waitFor(async () => {
    const d = await chatDetail(t, id);
    return d.chat.state === state ? d : null;
  }, timeoutMs);
}

export async function turnTranscript(t: TestApp, id: number, seq: number, query = '') {
  const res = await t.api('GET', `/v1/chats/${id}/turns/${seq}/transcript${query}`);
  if (res.statusCode !== 200) throw new Error(`transcript → ${res.statusCode} ${res.body}`);
  return res;
}

export function chatEvents(
  t: TestApp,
  id: number,
): Array<{ kind: string; payload: Record<string, unknown>; task_id: number | null }> {
  return (
    t.kernel.services.store.db
      .prepare('SELECT kind, payload, task_id FROM events WHERE chat_id = ? ORDER BY id')
      .all(id) as Array<{ kind: string; payload: string; task_id: number | null }>
  ).map((r) => ({ ...r, payload: JSON.parse(r.payload) as Record<string, unknown> }));
}
