/**
 * 0001: the durable event log and idempotency keys, which exist from the first start.
 * Events carry their subjects as columns (not only in the payload) so the per-task and
 * per-project streams replay with an index seek instead of a JSON scan. `ts` is text with
 * nanoseconds: SQLite has no native timestamp and the text sorts correctly.
 */
export default {
  version: 1,
  name: 'events',
  sql: `
CREATE TABLE events (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  ts          TEXT    NOT NULL,
  kind        TEXT    NOT NULL,
  project_id  INTEGER,
  task_id     INTEGER,
  chat_id     INTEGER,
  trigger_id  TEXT,
  payload     TEXT    NOT NULL DEFAULT '{}'
);
CREATE INDEX events_task ON events (task_id, id) WHERE task_id IS NOT NULL;
CREATE INDEX events_chat ON events (chat_id, id) WHERE chat_id IS NOT NULL;

CREATE TABLE idempotency_keys (
  route       TEXT    NOT NULL,
  key         TEXT    NOT NULL,
  digest      TEXT    NOT NULL,
  task_id     INTEGER,
  created_at  TEXT    NOT NULL,
  PRIMARY KEY (route, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
`,
};
