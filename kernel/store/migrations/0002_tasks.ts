/**
 * 0002: projects, tasks and step runs — the engine's state.
 * A task keeps its workflow snapshot (includes resolved) as JSON so later edits to the workflow
 * file never change a task already created. `root_task_id` and `depth` make fan-out tree
 * queries (children rollups, tree cost) one indexed read instead of a recursive walk.
 * Step runs are append-only per attempt; position inside loops and groups is derived from rows.
 * Idempotency keys die with their task (trigger), so a key whose task a forced project delete
 * destroyed creates a fresh task.
 */
export default {
  version: 2,
  name: 'tasks',
  sql: `
CREATE TABLE projects (
  id                  INTEGER PRIMARY KEY AUTOINCREMENT,
  name                TEXT    NOT NULL UNIQUE,
  path                TEXT    NOT NULL UNIQUE,
  default_branch      TEXT    NOT NULL,
  default_workflow    TEXT,
  max_parallel_tasks  INTEGER,
  branch_template     TEXT,
  created_at          TEXT    NOT NULL,
  updated_at          TEXT    NOT NULL
);

CREATE TABLE tasks (
  id                  INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id          INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  parent_task_id      INTEGER REFERENCES tasks(id) ON DELETE CASCADE,
  root_task_id        INTEGER,
  depth               INTEGER NOT NULL DEFAULT 0,
  lane_id             TEXT,
  lane_order          INTEGER,
  title               TEXT    NOT NULL,
  description         TEXT    NOT NULL DEFAULT '',
  prompt              TEXT,
  state               TEXT    NOT NULL,
  workflow            TEXT    NOT NULL,
  workflow_origin     TEXT,
  workflow_snapshot   TEXT    NOT NULL,
  fields              TEXT    NOT NULL DEFAULT '{}',
  fields_defaulted    TEXT    NOT NULL DEFAULT '[]',
  branch_name         TEXT,
  base_branch         TEXT    NOT NULL,
  worktree_path       TEXT,
  priority            INTEGER NOT NULL DEFAULT 0,
  agent_override      TEXT,
  model_override      TEXT,
  effort_override     TEXT,
  restricted          INTEGER NOT NULL DEFAULT 0,
  max_task_cost_usd   REAL,
  current_step        INTEGER NOT NULL DEFAULT 0,
  step_total          INTEGER NOT NULL,
  block_reason        TEXT,
  block_detail        TEXT,
  queued_reason       TEXT,
  admit_not_before    TEXT,
  pause_requested     INTEGER NOT NULL DEFAULT 0,
  pending_input       TEXT,
  followup_origin     TEXT,
  followup_round      INTEGER NOT NULL DEFAULT 0,
  followup_spec       TEXT,
  repair_spec         TEXT,
  pending_override    TEXT,
  retry_floor         INTEGER NOT NULL DEFAULT 0,
  source_chat_id      INTEGER,
  forge_issue         TEXT,
  forge_pull          TEXT,
  created_via         TEXT,
  created_at          TEXT    NOT NULL,
  updated_at          TEXT    NOT NULL,
  started_at          TEXT,
  finished_at         TEXT,
  archived_at         TEXT
);
CREATE INDEX tasks_state ON tasks (state, priority DESC, created_at, id);
CREATE INDEX tasks_project ON tasks (project_id, state);
CREATE INDEX tasks_parent ON tasks (parent_task_id) WHERE parent_task_id IS NOT NULL;
CREATE INDEX tasks_root ON tasks (root_task_id) WHERE root_task_id IS NOT NULL;
CREATE INDEX tasks_branch ON tasks (project_id, branch_name) WHERE state <> 'archived';

CREATE TABLE step_runs (
  id                  INTEGER PRIMARY KEY AUTOINCREMENT,
  task_id             INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
  step_index          INTEGER NOT NULL,
  step_id             TEXT    NOT NULL,
  step_name           TEXT    NOT NULL,
  step_type           TEXT    NOT NULL,
  group_id            TEXT,
  attempt             INTEGER NOT NULL,
  iteration           INTEGER NOT NULL DEFAULT 0,
  loop_item           TEXT,
  state               TEXT    NOT NULL,
  agent               TEXT,
  model               TEXT,
  effort              TEXT,
  pid                 INTEGER,
  proc_started_at     TEXT,
  exit_code           INTEGER,
  check_exit_code     INTEGER,
  failure_reason      TEXT,
  skip_reason         TEXT,
  result_summary      TEXT    NOT NULL DEFAULT '',
  transcript_path     TEXT,
  input_tokens        INTEGER,
  output_tokens       INTEGER,
  cost_usd            REAL,
  input_wait_ms       INTEGER NOT NULL DEFAULT 0,
  prompt_override     TEXT,
  run_override        TEXT,
  counts_retry        INTEGER NOT NULL DEFAULT 1,
  session_id          TEXT,
  started_at          TEXT    NOT NULL,
  finished_at         TEXT
);
CREATE INDEX step_runs_task ON step_runs (task_id, step_index, iteration, id);
CREATE INDEX step_runs_open ON step_runs (task_id) WHERE state = 'running';

CREATE TRIGGER tasks_drop_idempotency AFTER DELETE ON tasks
BEGIN
  DELETE FROM idempotency_keys WHERE task_id = OLD.id;
END;
`,
};
