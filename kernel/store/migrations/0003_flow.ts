/**
 * 0003: control flow. A lane remembers which step of its parent spawned it (`spawned_by_index`),
 * so a workflow with two fan_out steps joins each with its own lanes. A loop body row carries the
 * loop's extent (`loop_total`) as rendered when its iteration started, so the task's `loop` view is
 * computed from rows without rendering templates on a read.
 */
export default {
  version: 3,
  name: 'flow',
  sql: `
ALTER TABLE tasks ADD COLUMN spawned_by_index INTEGER;
ALTER TABLE step_runs ADD COLUMN loop_total INTEGER;
CREATE INDEX tasks_awaiting_children ON tasks (state) WHERE state = 'awaiting_children';
`,
};
