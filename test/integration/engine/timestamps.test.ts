// Issue 22 point 5 (decision 230): tasks, step runs and the times inside events carry RFC 3339
// with milliseconds, so a fast step's duration and an admission gap read from the API; events keep
// their nanosecond `ts`. Rows written before (whole seconds, as a restored older backup holds
// them) are still read: served as stored, and their clocks honoured.
import { describe, expect, it } from 'vitest';
import { FakeClock, formatMs } from '../../../kernel/clock/index.js';
import { buildTestApp } from '../../support/app.js';
import {
  addProject,
  commandWorkflow,
  createTask,
  getTask,
  waitState,
} from '../../support/tasks.js';

const MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const NS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/;

describe('timestamps', () => {
  it('formats an ordinary time with exactly three fraction digits', () => {
    expect(formatMs(Date.UTC(2026, 10, 27, 19, 12, 44, 142))).toBe('2026-11-27T19:12:44.142Z');
    expect(formatMs(Date.UTC(2026, 10, 27, 19, 12, 44))).toBe('2026-11-27T19:12:44.000Z');
  });

  it('tasks, step runs and event payloads carry milliseconds; events keep nanoseconds', async () => {
    const clock = new FakeClock(Date.UTC(2026, 10, 27, 19, 12, 44, 142));
    const t = await buildTestApp({ clock });
    const { project } = await addProject(t, { one: commandWorkflow('one', 'true') });
    const created = await createTask(t, { project_id: project.id, title: 't', workflow: 'one' });
    expect(created.created_at).toBe('2026-11-27T19:12:44.142Z');
    await waitState(t, created.id, 'done');
    const task = await getTask(t, created.id);
    for (const key of ['created_at', 'updated_at', 'started_at', 'finished_at'])
      expect(task[key], key).toMatch(MS);
    const steps = await t.json<Array<Record<string, unknown>>>(
      'GET',
      `/v1/tasks/${created.id}/steps`,
    );
    expect(steps).toHaveLength(1);
    expect(steps[0]?.started_at).toMatch(MS);
    expect(steps[0]?.finished_at).toMatch(MS);
    const [row] = await t.json<Array<Record<string, unknown>>>('GET', '/v1/tasks?archived=all');
    expect(row?.finished_at).toBe(task.finished_at);

    const events = t.kernel.services.events.query({ afterId: 0, limit: 100, taskId: created.id });
    expect(events.length).toBeGreaterThan(2);
    for (const e of events) expect(e.ts).toMatch(NS);
  });

  it('an older database with whole-second times is served as stored and its clocks honoured', async () => {
    const clock = new FakeClock(Date.UTC(2026, 10, 27, 19, 0, 0, 500));
    const t = await buildTestApp({ clock });
    const { project } = await addProject(t, { one: commandWorkflow('one', 'true') });
    const a = await createTask(t, {
      project_id: project.id,
      title: 'a',
      workflow: 'one',
      paused: true,
    });
    const b = await createTask(t, {
      project_id: project.id,
      title: 'b',
      workflow: 'one',
      paused: true,
    });
    // As a backup taken by an earlier version restores them: seconds, no fraction.
    const db = t.kernel.services.store.db;
    db.prepare(
      "UPDATE tasks SET state = 'queued', created_at = ?, updated_at = ?, queued_reason = 'retry_backoff', admit_not_before = ? WHERE id = ?",
    ).run('2026-11-27T18:59:00Z', '2026-11-27T18:59:00Z', '2026-11-27T19:00:01Z', a.id);
    db.prepare(
      "UPDATE tasks SET state = 'queued', created_at = ?, updated_at = ?, queued_reason = 'retry_backoff', admit_not_before = ? WHERE id = ?",
    ).run('2026-11-27T18:59:00Z', '2026-11-27T18:59:00Z', '2026-11-27T19:00:00Z', b.id);
    t.kernel.services.engine.poke();

    // b's clock (19:00:00, whole seconds) has passed at 19:00:00.500; a's (19:00:01) has not.
    await waitState(t, b.id, 'done');
    const waiting = await getTask(t, a.id);
    expect(waiting.state).toBe('queued');
    expect(waiting.admit_not_before).toBe('2026-11-27T19:00:01Z');
    expect(waiting.created_at).toBe('2026-11-27T18:59:00Z');
    await (clock as FakeClock).advance(600);
    await waitState(t, a.id, 'done');
  });
});
