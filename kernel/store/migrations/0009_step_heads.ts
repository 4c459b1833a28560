/**
 * 0009: the commit the task's worktree was at when each step attempt started and when it
 * finished (decision 171), so `GET /v1/tasks/{id}/diff?run=` shows what one attempt changed. Both
 * are nullable: rows written before this migration, rows that never ran anything (skips, gates,
 * rows opened by a crash) and attempts in a task without a worktree record none, and the diff
 * route refuses them with 409 rather than guess.
 */
export default {
  version: 9,
  name: 'step_heads',
  sql: `
ALTER TABLE step_runs ADD COLUMN head_before TEXT;
ALTER TABLE step_runs ADD COLUMN head_after TEXT;
`,
};
