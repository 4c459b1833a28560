/**
 * 0012: what a task's worktree holds that its branch does not (decision 204), as JSON
 * `{files, additions, deletions, untracked}`, NULL when clean or unknown. A measurement, not
 * state: recorded at each transition and each detail read, so a list shows it without running
 * git for every row. No index: it is read with the row, never searched.
 */
export default {
  version: 12,
  name: 'worktree_changes',
  sql: `
ALTER TABLE tasks ADD COLUMN worktree_changes TEXT;
`,
};
