/**
 * 0008: the worktree a task's branch is being cut for (decision 159). Before svc runs
 * `git worktree add -b` for a task that has not started — ahead of its admission or at it — it
 * records `{"branch", "start"}` here; the admission that records `worktree_path` clears it, and so
 * does giving the cut back. A daemon killed in between leaves the mark, which tells the next one
 * that the branch (while it still points at `start`) and whatever lies at the task's worktree path
 * are its own leftovers, not a user's branch to refuse with `branch_exists`.
 */
export default {
  version: 8,
  name: 'worktree_cut',
  sql: `
ALTER TABLE tasks ADD COLUMN worktree_cut TEXT;
`,
};
