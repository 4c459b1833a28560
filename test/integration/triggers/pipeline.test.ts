// Issue 8 point 3: the judgement — match, allowed_actors, if, dedupe keys, the rate limit (fired
// rows only), every overrun mode with concurrency_key — and the dry runs writing nothing.
import { describe, expect, it } from 'vitest';
import { act, getTask } from '../../support/tasks.js';
import {
  CREATE_OK,
  commandTrigger,
  type TriggerWorld,
  tick,
  triggerWorld,
} from '../../support/triggers.js';

async function armed(w: TriggerWorld, id: string, top: string, action = CREATE_OK) {
  w.setEvents([]);
  await w.put(id, commandTrigger(w, id, action, top));
}

async function poll(w: TriggerWorld, events: Array<Record<string, unknown>>) {
  w.setEvents(events);
  await tick(w, '1m');
}

const outcomes = async (w: TriggerWorld, id: string) =>
  (await w.deliveries(id)).reverse().map((r) => `${r.event_id}:${r.outcome}`);

describe('filters', () => {
  it('match (first failing key), allowed_actors and if', async () => {
    const w = await triggerWorld();
    await armed(
      w,
      'f',
      'match:\n  kind: [opened, reopened]\n  labels: bug\nallowed_actors: [Alice]\nif: \'{{ne .Event.title "skip me"}}\'\n',
    );
    const test = (event: Record<string, unknown>) =>
      w.t.json<Record<string, unknown>>('POST', '/v1/triggers/f/test', { event });
    expect(await test({ id: '1', kind: 'closed', labels: ['bug'], actor: 'alice' })).toMatchObject({
      event_id: '1',
      matched: false,
      match_miss: 'kind',
      outcome: 'filtered',
    });
    expect(await test({ id: '2', kind: 'opened', labels: ['docs'], actor: 'alice' })).toMatchObject(
      {
        match_miss: 'labels',
      },
    );
    expect(
      await test({ id: '3', kind: 'opened', labels: ['bug'], actor: 'mallory' }),
    ).toMatchObject({
      matched: false,
      match_miss: 'allowed_actors',
      outcome: 'filtered',
    });
    expect(
      await test({
        id: '4',
        kind: 'reopened',
        labels: ['x', 'bug'],
        actor: 'ALICE',
        title: 'skip me',
      }),
    ).toMatchObject({
      matched: true,
      if: false,
      if_rendered: 'false',
      outcome: 'filtered',
    });
    const ok = await test({ id: '5', kind: 'opened', labels: ['bug'], actor: 'alice', title: 't' });
    expect(ok).toMatchObject({
      matched: true,
      if: true,
      dedupe_key: '5',
      would_dedupe: false,
      outcome: 'fired',
    });
    expect(ok).not.toHaveProperty('overrun');

    await poll(w, [
      { id: '1', kind: 'closed', labels: ['bug'], actor: 'alice' },
      { id: '5', kind: 'opened', labels: ['bug'], actor: 'alice', title: 't' },
    ]);
    expect(await outcomes(w, 'f')).toEqual(['1:filtered', '5:fired']);
  });

  it('an if that renders neither true nor false is an error delivery', async () => {
    const w = await triggerWorld();
    await armed(w, 'i', "if: '{{.Event.kind}}'\n");
    await poll(w, [{ id: 'x', kind: 'maybe' }]);
    const [row] = await w.deliveries('i');
    expect(row).toMatchObject({ outcome: 'error' });
    expect(JSON.stringify(row?.detail)).toContain('expected true or false');
  });
});

describe('dedupe keys', () => {
  it('a fired or seeded row holds the rendered key', async () => {
    const w = await triggerWorld();
    w.setEvents([{ id: 'a1', issue: 7 }]);
    await w.put('k', commandTrigger(w, 'k', CREATE_OK, "dedupe_key: 'issue-{{.Event.issue}}'\n"));
    await poll(w, [
      { id: 'a2', issue: 7 },
      { id: 'b1', issue: 8 },
      { id: 'b2', issue: 8 },
    ]);
    expect(await outcomes(w, 'k')).toEqual(['a1:seeded', 'a2:deduped', 'b1:fired', 'b2:deduped']);
    const rows = await w.deliveries('k');
    expect(rows[0]?.dedupe_key).toBe('issue-8');
    const dry = await w.t.json('POST', '/v1/triggers/k/test', { event: { id: 'zz', issue: 8 } });
    expect(dry).toMatchObject({ dedupe_key: 'issue-8', would_dedupe: true, outcome: 'deduped' });
  });
});

describe('limits.max_per_hour', () => {
  it('counts fired rows only and drops the excess without queueing it', async () => {
    const w = await triggerWorld();
    await armed(w, 'r', 'limits:\n  max_per_hour: 2\nmatch:\n  ok: true\n');
    await poll(w, [
      { id: '1', ok: true },
      { id: 'n', ok: false },
      { id: '2', ok: true },
      { id: '3', ok: true },
    ]);
    expect(await outcomes(w, 'r')).toEqual(['1:fired', 'n:filtered', '2:fired', '3:rate_limited']);
    expect(
      await w.t.json('POST', '/v1/triggers/r/test', { event: { id: '4', ok: true } }),
    ).toMatchObject({
      outcome: 'rate_limited',
    });
    // An hour later the window has room again; the dropped event was not kept.
    await poll(w, [{ id: '4', ok: true }]);
    w.setEvents([]);
    await tick(w, '59m');
    await poll(w, [{ id: '5', ok: true }]);
    expect((await outcomes(w, 'r')).slice(4)).toEqual(['4:rate_limited', '5:fired']);
  });
});

describe('overrun', () => {
  const group = "concurrency_key: '{{.Event.group}}'\n";

  it('parallel (the default) fires while a task of the key is in flight', async () => {
    const w = await triggerWorld();
    await armed(w, 'par', group);
    await poll(w, [
      { id: '1', group: 'g' },
      { id: '2', group: 'g' },
    ]);
    const rows = await w.deliveries('par');
    expect(rows.map((r) => r.outcome)).toEqual(['fired', 'fired']);
    expect(rows[0]?.concurrency_key).toBe('g');
    const dry = await w.t.json('POST', '/v1/triggers/par/test', { event: { id: '3', group: 'g' } });
    expect(dry).toMatchObject({
      concurrency_key: 'g',
      in_flight: [rows[1]?.task_id, rows[0]?.task_id],
      outcome: 'fired',
    });
    expect(dry).not.toHaveProperty('overrun');
  });

  it('skip drops an event while its key is in flight, other keys still fire', async () => {
    const w = await triggerWorld();
    await armed(w, 'sk', `${group}overrun: skip\n`);
    await poll(w, [
      { id: '1', group: 'g' },
      { id: '2', group: 'g' },
      { id: '3', group: 'h' },
    ]);
    expect(await outcomes(w, 'sk')).toEqual(['1:fired', '2:skipped', '3:fired']);
    const first = (await w.deliveries('sk')).find((r) => r.event_id === '1');
    expect(
      await w.t.json('POST', '/v1/triggers/sk/test', { event: { id: '4', group: 'g' } }),
    ).toMatchObject({
      overrun: 'skip',
      in_flight: [first?.task_id],
      would_skip: true,
      outcome: 'skipped',
    });
    // Once the task settles the key is free again.
    await act(w.t, first?.task_id as number, 'cancel');
    await poll(w, [{ id: '5', group: 'g' }]);
    expect((await outcomes(w, 'sk')).at(-1)).toBe('5:fired');
  });

  it('queue holds the event until the in-flight task settles, then fires it', async () => {
    const w = await triggerWorld();
    await armed(w, 'q', `${group}overrun: queue\n`);
    await poll(w, [
      { id: '1', group: 'g' },
      { id: '2', group: 'g' },
      { id: '2', group: 'g' },
    ]);
    expect(await outcomes(w, 'q')).toEqual(['1:fired', '2:queued', '2:deduped']);
    expect(
      await w.t.json('POST', '/v1/triggers/q/test', { event: { id: '3', group: 'g' } }),
    ).toMatchObject({
      would_queue: true,
      outcome: 'queued',
    });
    const first = (await w.deliveries('q')).find((r) => r.outcome === 'fired');
    await act(w.t, first?.task_id as number, 'cancel');
    await w.idle();
    const rows = await w.deliveries('q');
    expect(rows[0]).toMatchObject({ event_id: '2', outcome: 'fired', concurrency_key: 'g' });
    expect(rows[0]?.task_id).not.toBe(first?.task_id);
    expect((await getTask(w.t, rows[0]?.task_id as number)).state).toBe('paused');
  });

  it('cancel_previous cancels the in-flight task and names it superseded', async () => {
    const w = await triggerWorld();
    await armed(
      w,
      'cp',
      `${group}overrun: cancel_previous\non_fire: create\n`,
      '  type: create_task\n  title: "Event {{.Event.id}}"\n  workflow: slow\n',
    );
    await poll(w, [{ id: '1', group: 'g' }]);
    const [first] = await w.deliveries('cp');
    expect(
      await w.t.json('POST', '/v1/triggers/cp/test', { event: { id: '2', group: 'g' } }),
    ).toMatchObject({
      overrun: 'cancel_previous',
      in_flight: [first?.task_id],
      would_cancel: true,
      outcome: 'fired',
    });
    await poll(w, [{ id: '2', group: 'g' }]);
    const [second] = await w.deliveries('cp');
    expect(second).toMatchObject({ outcome: 'fired', superseded_task_id: first?.task_id });
    expect((await getTask(w.t, first?.task_id as number)).state).toBe('aborted');
    await act(w.t, second?.task_id as number, 'cancel');
  });
});

describe('dry runs', () => {
  it('test and poll judge through the real pipeline and write nothing, armed or not', async () => {
    const w = await triggerWorld({ enabled: false });
    w.setEvents([{ id: 'a', group: 'g' }, 'noise']);
    await w.put(
      'dry',
      commandTrigger(
        w,
        'dry',
        CREATE_OK,
        "concurrency_key: '{{.Event.group}}'\noverrun: queue\n",
      ).replace('enabled: true', 'enabled: false'),
    );
    const db = w.t.kernel.services.store.db;
    const snapshot = () =>
      ['trigger_deliveries', 'trigger_state', 'trigger_queue', 'tasks', 'events'].map(
        (table) => (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n,
      );
    const before = snapshot();
    const judged = await w.t.json<Record<string, unknown>>('POST', '/v1/triggers/dry/test', {
      event: { id: 'a', group: 'g', title: 'T' },
    });
    expect(judged).toMatchObject({
      event_id: 'a',
      matched: true,
      dedupe_key: 'a',
      would_dedupe: false,
      overrun: 'queue',
      concurrency_key: 'g',
      in_flight: [],
      outcome: 'fired',
      action: {
        type: 'create_task',
        method: 'POST',
        path: '/v1/tasks',
        body: {
          project_id: w.project.id,
          title: 'Event a',
          workflow: 'ok',
          paused: true,
          restricted: true,
        },
      },
    });
    const polled = await w.t.json<{
      seed: boolean;
      events: Array<{ outcome: string }>;
      refused: number;
    }>('POST', '/v1/triggers/dry/poll');
    expect(polled).toMatchObject({ seed: true, refused: 1, truncated: 0 });
    expect(polled.events.map((e) => e.outcome)).toEqual(['seeded']);
    expect(snapshot()).toEqual(before);

    const bad = await w.t.api('POST', '/v1/triggers/dry/test', { event: [1] });
    expect(bad.statusCode).toBe(400);
    await w.put('inv', 'id: inv\nenabled: true\n');
    const inv = await w.t.api('POST', '/v1/triggers/inv/test', { event: { id: 'x' } });
    expect(inv.statusCode).toBe(400);
    expect(JSON.parse(inv.json().error.details.errors).length).toBeGreaterThan(0);
    expect((await w.t.api('POST', '/v1/triggers/inv/poll')).statusCode).toBe(400);
    expect(
      (await w.t.api('POST', '/v1/triggers/none/test', { event: { id: 'x' } })).statusCode,
    ).toBe(404);
  });

  it('poll is 400 for push and schedule sources', async () => {
    const w = await triggerWorld();
    await w.put(
      'cron',
      `id: cron\nenabled: true\nproject_id: ${w.project.id}\nsource:\n  type: schedule\n  cron: "0 9 * * *"\naction:\n${CREATE_OK}`,
    );
    await w.put(
      'push',
      `id: push\nenabled: true\nproject_id: ${w.project.id}\nsource:\n  type: http\n  signature:\n    secret: "0123456789abcdef0123"\naction:\n${CREATE_OK}`,
    );
    expect((await w.t.api('POST', '/v1/triggers/cron/poll')).statusCode).toBe(400);
    expect((await w.t.api('POST', '/v1/triggers/push/poll')).statusCode).toBe(400);
  });
});
