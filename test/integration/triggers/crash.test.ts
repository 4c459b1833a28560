// Issue 17 hold 9: the trigger path's Idempotency-Key across a crash. A fired create_task replays
// POST /v1/tasks with a key derived from the trigger and its dedupe key, then writes its ledger
// row. A daemon that dies between the two leaves a task and no ledger row; the sender, never
// answered, delivers the same event again to the next daemon, which must find the task it already
// made instead of making a second one. The death is a fault at the database boundary: the ledger
// insert aborts, then the daemon stops with the store exactly as a kill would leave it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sign } from '../../../plugins/triggers/http/signature.js';
import { buildTestApp, type TestApp } from '../../support/app.js';
import { addProject } from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';
import { CREATE_OK, WORKFLOWS } from '../../support/triggers.js';

const SECRET = 'a-long-enough-shared-secret';

function send(t: TestApp, raw: string) {
  const ts = String(Math.floor(t.clock.now() / 1000));
  return t.api('POST', '/v1/triggers/hook/events', raw, {
    'content-type': 'application/json',
    'x-svc-timestamp': ts,
    'x-svc-signature': sign(SECRET, ts, raw),
  });
}

function count(t: TestApp, sql: string): number {
  return (t.kernel.services.store.db.prepare(sql).get() as { n: number }).n;
}

describe('a fired trigger across a crash', () => {
  it('between the task’s creation and its ledger row: the event delivered again makes one task, not two', async () => {
    const root = tempDir();
    const config = 'triggers:\n  enabled: true\n';
    const first = await buildTestApp({ root, config, keepOpen: true });
    const { project } = await addProject(first, WORKFLOWS);
    writeFileSync(
      join(first.paths.triggersDir, 'hook.yaml'),
      `id: hook\nenabled: true\non_fire: create\nproject_id: ${project.id}\nsource:\n  type: http\n  signature:\n    secret: ${JSON.stringify(SECRET)}\naction:\n${CREATE_OK}`,
      { mode: 0o600 },
    );
    first.kernel.services.triggers.reload('file');
    await first.kernel.services.triggers.idle();
    first.kernel.services.store.db.exec(
      `CREATE TEMP TRIGGER die_before_ledger BEFORE INSERT ON trigger_deliveries
       BEGIN SELECT RAISE(ABORT, 'the daemon died here'); END`,
    );
    const raw = '{"id":"evt-42","title":"hello"}';
    const cut = await send(first, raw);
    expect(cut.statusCode).toBeGreaterThanOrEqual(500);
    expect(count(first, 'SELECT COUNT(*) AS n FROM tasks')).toBe(1);
    expect(count(first, 'SELECT COUNT(*) AS n FROM trigger_deliveries')).toBe(0);
    const made = first.kernel.services.store.db.prepare('SELECT id FROM tasks').pluck().get();
    await first.close();

    const second = await buildTestApp({ root, config });
    await second.kernel.services.triggers.idle();
    const again = await send(second, raw);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toMatchObject({ event_id: 'evt-42', outcome: 'fired', task_id: made });
    expect(count(second, 'SELECT COUNT(*) AS n FROM tasks')).toBe(1);
    expect(count(second, "SELECT COUNT(*) AS n FROM events WHERE kind = 'task.created'")).toBe(1);
    // And from now on the ledger holds the key: a third delivery is deduped.
    expect((await send(second, raw)).json()).toMatchObject({ outcome: 'deduped' });
    expect(count(second, 'SELECT COUNT(*) AS n FROM tasks')).toBe(1);
  });
});
