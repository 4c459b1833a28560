// Issue 8 point 3: the command source — seeding, firing, dedupe, the 20-event cap, refused lines,
// the cursor watermark, event values only in environment variables and task fields.
import { describe, expect, it } from 'vitest';
import { getTask } from '../../support/tasks.js';
import { CREATE_OK, commandTrigger, tick, triggerWorld } from '../../support/triggers.js';

describe('command source', () => {
  it('seeds on the first poll after arming, then fires new events as paused, restricted tasks', async () => {
    const w = await triggerWorld();
    w.setEvents([{ id: 'a' }, { id: 'b' }]);
    await w.put('cmd', commandTrigger(w, 'cmd', CREATE_OK));
    let rows = await w.deliveries('cmd');
    expect(rows.map((r) => [r.event_id, r.outcome])).toEqual([
      ['b', 'seeded'],
      ['a', 'seeded'],
    ]);
    expect(await w.t.json('GET', '/v1/tasks?archived=all')).toEqual([]);
    expect((await w.row('cmd')).poll).toMatchObject({ seeded: true, ok: true, error: null });

    w.setEvents([{ id: 'a' }, { id: 'b' }, { id: 'c', title: 'x"; rm -rf ~' }]);
    await tick(w, '1m');
    rows = await w.deliveries('cmd');
    expect(rows.slice(0, 3).map((r) => [r.event_id, r.outcome])).toEqual([
      ['c', 'fired'],
      ['b', 'deduped'],
      ['a', 'deduped'],
    ]);
    const task = await getTask(w.t, rows[0]?.task_id as number);
    expect(task).toMatchObject({ state: 'paused', title: 'Event c', restricted: true });
    expect(task.triggered_by).toBe('cmd');
    expect((await w.row('cmd')).poll.last_fire_at).not.toBeNull();
  });

  it('counts non-event lines as refused and caps a poll at 20 events', async () => {
    const w = await triggerWorld();
    await w.put('cap', commandTrigger(w, 'cap', CREATE_OK));
    const events = Array.from({ length: 23 }, (_, i) => ({ id: `e${i}` }));
    w.setEvents(['not json', '[1,2]', '{"no_id": true}', '{"id": ""}', ...events]);
    const dry = await w.t.json<{
      seed: boolean;
      events: unknown[];
      truncated: number;
      refused: number;
    }>('POST', '/v1/triggers/cap/poll');
    expect(dry).toMatchObject({ seed: false, truncated: 3, refused: 4 });
    expect(dry.events).toHaveLength(20);
    await tick(w, '1m');
    const rows = await w.deliveries('cap');
    expect(rows.filter((r) => r.outcome === 'fired')).toHaveLength(20);
    // Past the cap nothing fires, and the ledger says so (decision 196).
    expect(
      rows
        .filter((r) => r.outcome === 'truncated')
        .map((r) => r.event_id)
        .sort(),
    ).toEqual(['e20', 'e21', 'e22']);
  });

  it('hands the printed watermark back in SVC_TRIGGER_CURSOR and passes event values only as task fields', async () => {
    const w = await triggerWorld();
    // The command prints events after the cursor it is given; the cursor is the last id printed.
    const script = [
      // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text, not a JS template
      'n=${SVC_TRIGGER_CURSOR:-0}',
      'echo "{\\"id\\": \\"ev$((n+1))\\", \\"who\\": \\"$SVC_TRIGGER_ID\\", \\"seeding\\": \\"$SVC_TRIGGER_SEEDING\\"}"',
      'echo "{\\"cursor\\": \\"$((n+1))\\"}"',
    ].join('\n');
    await w.put(
      'cur',
      `id: cur\nenabled: true\nproject_id: ${w.project.id}\nsource:\n  type: command\n  command: [sh, -c, ${JSON.stringify(script)}]\n  poll_interval: 1m\naction:\n  type: create_task\n  title: "{{.Event.id}} by {{.Event.who}}"\n  workflow: ok\n  fields:\n    seeding: "{{.Event.seeding}}"\n`,
    );
    expect((await w.deliveries('cur')).map((r) => [r.event_id, r.outcome])).toEqual([
      ['ev1', 'seeded'],
    ]);
    await tick(w, '1m');
    await tick(w, '1m');
    const rows = await w.deliveries('cur');
    expect(rows.map((r) => [r.event_id, r.outcome])).toEqual([
      ['ev3', 'fired'],
      ['ev2', 'fired'],
      ['ev1', 'seeded'],
    ]);
    const task = await getTask(w.t, rows[0]?.task_id as number);
    expect(task.title).toBe('ev3 by cur');
    expect(task.fields).toEqual({ seeding: '0' });
  });

  it('records a failing command as an unhealthy poll and judges nothing', async () => {
    const w = await triggerWorld();
    await w.put(
      'bad',
      `id: bad\nenabled: true\nproject_id: ${w.project.id}\nsource:\n  type: command\n  command: [sh, -c, "echo '{\\"id\\": 1}'; echo boom >&2; exit 4"]\naction:\n${CREATE_OK}`,
    );
    const row = await w.row('bad');
    expect(row.poll).toMatchObject({ ok: false, seeded: false });
    expect(String(row.poll.error)).toContain('exited 4: boom');
    expect(await w.deliveries('bad')).toEqual([]);
    const dry = await w.t.json('POST', '/v1/triggers/bad/poll');
    expect(dry).toMatchObject({ seed: true, events: [], truncated: 0, refused: 0 });
    expect(String((dry as { error: string }).error)).toContain('exited 4');
  });
});
