/**
 * 0005: what the agents service keeps across restarts (decision 042).
 * A usage-limit observation (SPEC §2.4) survives a restart: nothing sweeps it, only the next
 * successful step on that adapter deletes it, and a reset one is kept as "recovered". One row per
 * adapter; a newer stop replaces the older. Quota readings are never stored (memory only).
 * Session totals sit beside the step run that reported them, so a later run continuing that CLI
 * session (a follow-up, decision 044) can de-cumulate its tokens (decision 118).
 */
export default {
  version: 5,
  name: 'agents',
  sql: `
CREATE TABLE agent_quota_observations (
  agent               TEXT    PRIMARY KEY,
  observed_at         TEXT    NOT NULL,
  resets_at           TEXT    NOT NULL,
  resets_at_reported  INTEGER NOT NULL,
  message             TEXT    NOT NULL DEFAULT ''
);

CREATE TABLE agent_session_totals (
  run_id              INTEGER PRIMARY KEY REFERENCES step_runs(id) ON DELETE CASCADE,
  input_tokens        INTEGER NOT NULL,
  output_tokens       INTEGER NOT NULL
);
`,
};
