/**
 * 0011: what issue 18 needs remembered so nothing is lost quietly.
 *
 * On a fan-out lane, `lane_merge` says what became of its branch in the parent's: `merged` once
 * the parent's branch contains it, `left_out` when a human chose to go on without it (skip or
 * merge_finished, decisions 191–192); null while nothing is decided. `lane_merge_note` says why a
 * lane was left out (`aborted`, `conflict`, `unfinished`, `skipped`, …). Kept on the lane, not on
 * the parent, because the lane row already names the branch where the work lies.
 * On a parent, `join_request` holds a human's `merge_finished` until the runner's next join
 * carries it out (the join needs the worktree, so the route only records the wish).
 * On a trigger, `held_back` counts the events past the 20-event cap at its last poll and
 * `truncated` how many of those the ledger recorded as `truncated` because the source's cursor
 * moved past them (the rest come again at the next poll; decision 196).
 */
export default {
  version: 11,
  name: 'lanes_and_held_events',
  sql: `
ALTER TABLE tasks ADD COLUMN lane_merge TEXT;
ALTER TABLE tasks ADD COLUMN lane_merge_note TEXT;
ALTER TABLE tasks ADD COLUMN join_request TEXT;
ALTER TABLE trigger_state ADD COLUMN held_back INTEGER NOT NULL DEFAULT 0;
ALTER TABLE trigger_state ADD COLUMN truncated INTEGER NOT NULL DEFAULT 0;
`,
};
