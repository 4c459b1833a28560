/**
 * 0015: what the task list reads, without reading every row whole (issue 22 point 3, decision
 * 233). A list row names its current step, which used to mean parsing the task's workflow
 * snapshot — a few KiB of JSON, every prompt of the workflow — per row per request.
 * `steps_outline` keeps `[[name or id, type], …]` of the snapshot's top-level steps beside it,
 * written by SQLite itself whenever a snapshot is inserted or replaced (triggers), so no writer can
 * forget it and rows from before this migration get it here. The snapshot never changes after its
 * insert today; the update trigger keeps the outline honest if it ever does.
 *
 * Indexes: the list walks root tasks newest first under a cursor, filtered by state or project;
 * each filter gets an index in `id` order holding what it filters on, so a page reads the index
 * and then only the rows it returns. `step_runs_spend` covers the cost and token sums, so a
 * page's rollups never read the step runs themselves. An admission pass reads only the head of a
 * long queue (decision 236); the queued tasks with a pause request or a clock further down are
 * found through two small partial indexes.
 */
const outline = (row: 'NEW') => `CASE WHEN json_valid(${row}.workflow_snapshot) THEN (
  SELECT json_group_array(json_array(
    COALESCE(json_extract(s.value, '$.name'), json_extract(s.value, '$.id'), ''),
    COALESCE(json_extract(s.value, '$.type'), '')) ORDER BY s.key)
  FROM json_each(${row}.workflow_snapshot, '$.steps') AS s) ELSE '[]' END`;

export default {
  version: 15,
  name: 'task_list',
  sql: `
ALTER TABLE tasks ADD COLUMN steps_outline TEXT NOT NULL DEFAULT '[]';
UPDATE tasks SET steps_outline = ${outline('NEW').replaceAll('NEW.', 'tasks.')};

CREATE TRIGGER tasks_steps_outline_insert AFTER INSERT ON tasks
BEGIN
  UPDATE tasks SET steps_outline = ${outline('NEW')} WHERE id = NEW.id;
END;

CREATE TRIGGER tasks_steps_outline_update AFTER UPDATE OF workflow_snapshot ON tasks
BEGIN
  UPDATE tasks SET steps_outline = ${outline('NEW')} WHERE id = NEW.id;
END;

CREATE INDEX tasks_roots ON tasks (id, state) WHERE parent_task_id IS NULL;
CREATE INDEX tasks_roots_state ON tasks (state, id) WHERE parent_task_id IS NULL;
CREATE INDEX tasks_roots_project ON tasks (project_id, id, state) WHERE parent_task_id IS NULL;
CREATE INDEX step_runs_spend ON step_runs (task_id, cost_usd, input_tokens, output_tokens);

CREATE INDEX tasks_queued_pauses ON tasks (id) WHERE state = 'queued' AND pause_requested = 1;
CREATE INDEX tasks_queued_clocks ON tasks (admit_not_before)
  WHERE state = 'queued' AND admit_not_before IS NOT NULL;
`,
};
