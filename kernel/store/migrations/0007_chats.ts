/**
 * 0007: chats and their turns (SPEC §2.5, §3.3). Numbered 7 because 0006 is the MCP branch's; the
 * runner applies any migration it has not recorded, so the two land in either order (decision
 * 169).
 *
 * A chat keeps the CLI's own session id (`session_id`, the resume handle) and the usage totals the
 * CLI last reported (`session_totals`, for CLIs whose counts are cumulative), so every turn after
 * the first resumes the agent's conversation. `linked_task_id` carries no foreign key: a chat on a
 * task is kept when a forced project delete removes the task rows (it goes with its project).
 * `context` is the block the daemon assembled when the chat opened on a task; the first turn
 * consumes it (sets it to NULL), so later turns carry none (SPEC §4.5). `ended_at` is when the chat
 * left the live set (archived, handed_off or closed): the list's `archived_before/since` read it.
 * A turn's `transcript_path` lives under {data_dir}/transcripts/chat-{id}/, which the orphan
 * sweep reads as claimed through this column.
 */
export default {
  version: 7,
  name: 'chats',
  sql: `
CREATE TABLE chats (
  id               INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id       INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  title            TEXT    NOT NULL,
  agent            TEXT    NOT NULL,
  model            TEXT    NOT NULL DEFAULT '',
  effort           TEXT    NOT NULL DEFAULT '',
  state            TEXT    NOT NULL,
  linked_task_id   INTEGER,
  worktree_path    TEXT    NOT NULL DEFAULT '',
  branch_name      TEXT    NOT NULL DEFAULT '',
  base_branch      TEXT    NOT NULL DEFAULT '',
  existing_branch  INTEGER NOT NULL DEFAULT 0,
  handoff_task_id  INTEGER,
  restricted       INTEGER NOT NULL DEFAULT 0,
  session_id       TEXT,
  session_totals   TEXT,
  context          TEXT,
  created_at       TEXT    NOT NULL,
  updated_at       TEXT    NOT NULL,
  ended_at         TEXT
);
CREATE INDEX chats_project ON chats (project_id, id);
CREATE INDEX chats_task ON chats (linked_task_id) WHERE linked_task_id IS NOT NULL;

CREATE TABLE chat_turns (
  id               INTEGER PRIMARY KEY AUTOINCREMENT,
  chat_id          INTEGER NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
  seq              INTEGER NOT NULL,
  state            TEXT    NOT NULL,
  message          TEXT    NOT NULL,
  failure_reason   TEXT,
  failure_message  TEXT,
  result_text      TEXT,
  session_id       TEXT,
  input_tokens     INTEGER,
  output_tokens    INTEGER,
  cost_usd         REAL,
  exit_code        INTEGER,
  transcript_path  TEXT,
  started_at       TEXT    NOT NULL,
  finished_at      TEXT,
  UNIQUE (chat_id, seq)
);
`,
};
