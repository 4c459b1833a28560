/** The `chats` and `chat_turns` tables (migration 0007): rows, inserts and compare-and-swap moves. */
import type { Db } from '../store/index.js';
import type { ChatState } from './schema.js';

export interface ChatRow {
  id: number;
  project_id: number;
  title: string;
  agent: string;
  model: string;
  effort: string;
  state: ChatState;
  linked_task_id: number | null;
  worktree_path: string;
  branch_name: string;
  base_branch: string;
  existing_branch: number;
  handoff_task_id: number | null;
  restricted: number;
  session_id: string | null;
  session_totals: string | null;
  context: string | null;
  created_at: string;
  updated_at: string;
  ended_at: string | null;
}

export type TurnState = 'running' | 'succeeded' | 'failed' | 'cancelled' | 'interrupted';

export interface TurnRow {
  id: number;
  chat_id: number;
  seq: number;
  state: TurnState;
  message: string;
  failure_reason: string | null;
  failure_message: string | null;
  result_text: string | null;
  session_id: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cost_usd: number | null;
  exit_code: number | null;
  transcript_path: string | null;
  started_at: string;
  finished_at: string | null;
}

export type ChatInsert = Omit<
  ChatRow,
  'id' | 'session_id' | 'session_totals' | 'ended_at' | 'handoff_task_id'
> & {
  id?: number;
};

type Patch<T> = Partial<Omit<T, 'id'>>;

function setClause(patch: Record<string, unknown>): { sql: string; values: unknown[] } {
  const keys = Object.keys(patch);
  return { sql: keys.map((k) => `${k} = ?`).join(', '), values: keys.map((k) => patch[k]) };
}

export class ChatsTable {
  constructor(private readonly db: Db) {}

  get(id: number): ChatRow | undefined {
    return this.db.prepare('SELECT * FROM chats WHERE id = ?').get(id) as ChatRow | undefined;
  }

  /** The id the next insert will take (AUTOINCREMENT never reuses one). */
  nextId(): number {
    const row = this.db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'chats'").get() as
      | { seq: number }
      | undefined;
    return (row?.seq ?? 0) + 1;
  }

  insert(row: ChatInsert): number {
    const cols = Object.keys(row);
    const info = this.db
      .prepare(
        `INSERT INTO chats (${cols.join(', ')}) VALUES (${cols.map((c) => `@${c}`).join(', ')})`,
      )
      .run(row);
    return Number(info.lastInsertRowid);
  }

  /** Compare-and-swap: true when the row was in `from` and now carries the patch. */
  move(id: number, from: readonly ChatState[], patch: Patch<ChatRow>): boolean {
    const { sql, values } = setClause(patch);
    const info = this.db
      .prepare(
        `UPDATE chats SET ${sql} WHERE id = ? AND state IN (${from.map(() => '?').join(', ')})`,
      )
      .run(...values, id, ...from);
    return info.changes === 1;
  }

  update(id: number, patch: Patch<ChatRow>): void {
    const { sql, values } = setClause(patch);
    this.db.prepare(`UPDATE chats SET ${sql} WHERE id = ?`).run(...values, id);
  }

  delete(id: number): void {
    this.db.prepare('DELETE FROM chats WHERE id = ?').run(id);
  }

  countIn(states: readonly ChatState[]): number {
    return (
      this.db
        .prepare(
          `SELECT COUNT(*) AS n FROM chats WHERE state IN (${states.map(() => '?').join(', ')})`,
        )
        .get(...states) as { n: number }
    ).n;
  }

  /** The open chat on a task (at most one, SPEC §4.5). */
  openOnTask(taskId: number, live: readonly ChatState[]): ChatRow | undefined {
    return this.db
      .prepare(
        `SELECT * FROM chats WHERE linked_task_id = ? AND state IN (${live.map(() => '?').join(', ')}) ORDER BY id DESC LIMIT 1`,
      )
      .get(taskId, ...live) as ChatRow | undefined;
  }

  /** The newest chat in `live` states on each of `taskIds`, by task id: one read for a list page. */
  openOnTasks(taskIds: readonly number[], live: readonly ChatState[]): Map<number, number> {
    const out = new Map<number, number>();
    if (taskIds.length === 0) return out;
    const rows = this.db
      .prepare(
        `SELECT linked_task_id AS task, MAX(id) AS chat FROM chats
         WHERE linked_task_id IN (SELECT value FROM json_each(?))
           AND state IN (${live.map(() => '?').join(', ')})
         GROUP BY linked_task_id`,
      )
      .all(JSON.stringify(taskIds), ...live) as Array<{ task: number; chat: number }>;
    for (const r of rows) out.set(r.task, r.chat);
    return out;
  }

  /** A chat of its own (not on a task) working on `branch`, other than `exceptId`. */
  claimOf(
    projectId: number,
    branch: string,
    live: readonly ChatState[],
    exceptId = 0,
  ): ChatRow | undefined {
    return this.db
      .prepare(
        `SELECT * FROM chats WHERE project_id = ? AND branch_name = ? AND linked_task_id IS NULL AND id <> ? AND state IN (${live.map(() => '?').join(', ')}) LIMIT 1`,
      )
      .get(projectId, branch, exceptId, ...live) as ChatRow | undefined;
  }

  inStates(states: readonly ChatState[]): ChatRow[] {
    return this.db
      .prepare(`SELECT * FROM chats WHERE state IN (${states.map(() => '?').join(', ')})`)
      .all(...states) as ChatRow[];
  }

  list(where: string[], params: unknown[], limit: number, offset: number): ChatRow[] {
    const sql = `SELECT * FROM chats ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ? OFFSET ?`;
    return this.db.prepare(sql).all(...params, limit, offset) as ChatRow[];
  }

  // ─── turns ─────────────────────────────────────────────────────────────────────────────────

  turns(chatId: number): TurnRow[] {
    return this.db
      .prepare('SELECT * FROM chat_turns WHERE chat_id = ? ORDER BY seq')
      .all(chatId) as TurnRow[];
  }

  turn(chatId: number, seq: number): TurnRow | undefined {
    return this.db
      .prepare('SELECT * FROM chat_turns WHERE chat_id = ? AND seq = ?')
      .get(chatId, seq) as TurnRow | undefined;
  }

  insertTurn(chatId: number, message: string, startedAt: string): TurnRow {
    const seq =
      (
        this.db.prepare('SELECT MAX(seq) AS s FROM chat_turns WHERE chat_id = ?').get(chatId) as {
          s: number | null;
        }
      ).s ?? 0;
    const info = this.db
      .prepare(
        "INSERT INTO chat_turns (chat_id, seq, state, message, started_at) VALUES (?, ?, 'running', ?, ?)",
      )
      .run(chatId, seq + 1, message, startedAt);
    return this.db
      .prepare('SELECT * FROM chat_turns WHERE id = ?')
      .get(Number(info.lastInsertRowid)) as TurnRow;
  }

  updateTurn(id: number, patch: Patch<TurnRow>): void {
    const { sql, values } = setClause(patch);
    this.db.prepare(`UPDATE chat_turns SET ${sql} WHERE id = ?`).run(...values, id);
  }

  /** Turns left `running` by a daemon that stopped mid-turn. */
  runningTurns(): TurnRow[] {
    return this.db.prepare("SELECT * FROM chat_turns WHERE state = 'running'").all() as TurnRow[];
  }
}
