/**
 * 0006: who created a task through MCP (SPEC §2.10 `mcp.max_depth`, `mcp.max_tasks`; decision 123).
 * `created_by_task_id` is the task whose agent step called `tasks_create` on its per-step endpoint;
 * it is only a record, so deleting the creator (its project may differ) leaves the link null.
 * `mcp_origin_task_id` names the first task of the chain that was not itself created through MCP
 * and `mcp_depth` counts the links down to this task, so both bounds are one indexed read at
 * creation instead of a walk up the chain. Tasks created any other way keep the defaults.
 */
export default {
  version: 6,
  name: 'mcp',
  sql: `
ALTER TABLE tasks ADD COLUMN created_by_task_id INTEGER REFERENCES tasks(id) ON DELETE SET NULL;
ALTER TABLE tasks ADD COLUMN mcp_origin_task_id INTEGER;
ALTER TABLE tasks ADD COLUMN mcp_depth INTEGER NOT NULL DEFAULT 0;
CREATE INDEX tasks_mcp_origin ON tasks (mcp_origin_task_id) WHERE mcp_origin_task_id IS NOT NULL;
`,
};
