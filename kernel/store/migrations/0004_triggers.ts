/**
 * 0004: what the trigger runtime remembers (SPEC §2.6). The definition of a trigger is its file;
 * the database keeps only what the file cannot: the source's cursor and poll health
 * (`trigger_state`), the delivery ledger (`trigger_deliveries`) and events waiting behind a busy
 * concurrency key (`trigger_queue`). Rows are keyed by the trigger's id as text and carry no
 * foreign keys on purpose: the ledger outlives the file (DELETE keeps it, so a re-created trigger
 * still dedupes against its history) and outlives the tasks it names (a forced project delete
 * must not erase why a task was made). `source_digest` lets the runtime notice that the source
 * block changed and seed again instead of replaying a cursor meant for another command.
 * The partial index serves the dedupe lookup, which only ever asks about fired and seeded rows.
 * `forge_pull_state` is the forge reconciler's last look at a task's pull request (decision 087):
 * kept beside the task rather than in its `forge_pull` link, which is written once at creation.
 */
export default {
  version: 4,
  name: 'triggers',
  sql: `
CREATE TABLE trigger_state (
  trigger_id     TEXT    PRIMARY KEY,
  cursor         TEXT,
  seeded         INTEGER NOT NULL DEFAULT 0,
  source_digest  TEXT,
  last_poll_at   TEXT,
  ok             INTEGER,
  error          TEXT,
  last_fire_at   TEXT
);

CREATE TABLE trigger_deliveries (
  id                  INTEGER PRIMARY KEY AUTOINCREMENT,
  trigger_id          TEXT    NOT NULL,
  event_id            TEXT    NOT NULL,
  dedupe_key          TEXT,
  concurrency_key     TEXT,
  outcome             TEXT    NOT NULL,
  task_id             INTEGER,
  superseded_task_id  INTEGER,
  detail              TEXT,
  created_at          TEXT    NOT NULL
);
CREATE INDEX trigger_deliveries_recent ON trigger_deliveries (trigger_id, id);
CREATE INDEX trigger_deliveries_dedupe ON trigger_deliveries (trigger_id, dedupe_key)
  WHERE outcome IN ('fired', 'seeded');
CREATE INDEX trigger_deliveries_key ON trigger_deliveries (trigger_id, concurrency_key, outcome);

CREATE TABLE trigger_queue (
  id               INTEGER PRIMARY KEY AUTOINCREMENT,
  trigger_id       TEXT    NOT NULL,
  delivery_id      INTEGER NOT NULL,
  dedupe_key       TEXT,
  concurrency_key  TEXT    NOT NULL,
  event            TEXT    NOT NULL,
  created_at       TEXT    NOT NULL
);
CREATE INDEX trigger_queue_key ON trigger_queue (trigger_id, concurrency_key, id);

CREATE TABLE forge_pull_state (
  task_id     INTEGER PRIMARY KEY REFERENCES tasks(id) ON DELETE CASCADE,
  state       TEXT,
  head_sha    TEXT,
  checked_at  TEXT    NOT NULL,
  error       TEXT
);
`,
};
