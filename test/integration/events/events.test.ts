// SPEC §6: durable events appended in the change's transaction; GET /v1/events framing, replay, heartbeat.
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../../support/app.js';
import { openSse } from '../../support/sse.js';

async function listening(heartbeatMs = 15_000) {
  const t = await buildTestApp({ heartbeatMs });
  await t.kernel.app.listen({ host: '127.0.0.1', port: 0 });
  const addr = t.kernel.app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return { t, base: `http://127.0.0.1:${port}`, headers: { authorization: `Bearer ${t.token}` } };
}

describe('event log', () => {
  it('stores nanosecond timestamps and subjects, and announces only committed events', () => {
    return buildTestApp().then((t) => {
      const { events, store } = t.kernel.services;
      const seen: number[] = [];
      events.subscribe((e) => seen.push(e.id));
      const e1 = events.append('project.created', { project_id: 3 }, { name: 'x' });
      expect(e1.ts).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/);
      expect(() =>
        store.tx(() => {
          events.append('project.updated', { project_id: 3 }, {});
          throw new Error('rollback');
        }),
      ).toThrow('rollback');
      const e2 = events.append('project.deleted', { project_id: 3 }, {});
      expect(seen).toEqual([e1.id, e2.id]);
      expect(events.query({ afterId: 0, limit: 100, projectId: 3 }).map((e) => e.kind)).toEqual([
        'project.created',
        'project.deleted',
      ]);
    });
  });
});

describe('GET /v1/events (SSE)', () => {
  it('frames events with id, event and data; replays after Last-Event-ID, then goes live', async () => {
    const { t, base, headers } = await listening();
    const { events } = t.kernel.services;
    const a = events.append('project.created', { project_id: 1 }, { name: 'a' });
    const b = events.append('project.updated', { project_id: 1 }, { name: 'b' });
    const c = events.append('project.created', { project_id: 2 }, { name: 'c' });

    const sse = await openSse(`${base}/v1/events`, { ...headers, 'last-event-id': String(a.id) });
    expect(sse.status).toBe(200);
    await sse.until((f) => f.filter((x) => x.id).length >= 2);
    const live = events.append('project.deleted', { project_id: 2 }, {});
    const frames = await sse.until((f) => f.some((x) => x.id === String(live.id)));
    const durable = frames.filter((f) => f.id);
    expect(durable.map((f) => Number(f.id))).toEqual([b.id, c.id, live.id]);
    expect(durable[0]?.event).toBe('project.updated');
    expect(JSON.parse(durable[0]?.data ?? '{}')).toMatchObject({
      id: b.id,
      kind: 'project.updated',
      project_id: 1,
      payload: { name: 'b' },
    });
    sse.close();
    await t.kernel.app.close();
  });

  it('without Last-Event-ID streams live events only; filters by project and types', async () => {
    const { t, base, headers } = await listening();
    const { events } = t.kernel.services;
    events.append('project.created', { project_id: 1 }, {});
    const sse = await openSse(
      `${base}/v1/events?project_id=2&types=project.updated,project.deleted`,
      headers,
    );
    await sse.until((f) => f.some((x) => x.comment === 'connected'));
    events.append('project.updated', { project_id: 1 }, {});
    events.append('project.created', { project_id: 2 }, {});
    const want = events.append('project.updated', { project_id: 2 }, {});
    const frames = await sse.until((f) => f.some((x) => x.id === String(want.id)));
    expect(frames.filter((f) => f.id).map((f) => f.id)).toEqual([String(want.id)]);
    sse.close();
    await t.kernel.app.close();
  });

  it('keeps idle connections open with heartbeat comments', async () => {
    const { t, base, headers } = await listening(50);
    const sse = await openSse(`${base}/v1/events`, headers);
    await sse.until((f) => f.filter((x) => x.comment === 'heartbeat').length >= 2, 3000);
    sse.close();
    await t.kernel.app.close();
  });

  it('replays a long history without gaps while new events arrive', async () => {
    const { t, base, headers } = await listening();
    const { events, store } = t.kernel.services;
    store.tx(() => {
      for (let i = 0; i < 2500; i++) events.append('project.updated', { project_id: 1 }, { i });
    });
    const sse = await openSse(`${base}/v1/events`, { ...headers, 'last-event-id': '0' });
    for (let i = 0; i < 20; i++) events.append('project.updated', { project_id: 1 }, { late: i });
    const last = events.lastId();
    const frames = await sse.until((f) => f.some((x) => x.id === String(last)), 10_000);
    const ids = frames.filter((f) => f.id).map((f) => Number(f.id));
    expect(ids).toEqual(Array.from({ length: last }, (_, i) => i + 1));
    sse.close();
    await t.kernel.app.close();
  });

  it('refuses a bad Last-Event-ID or an unknown type with 400', async () => {
    const t = await buildTestApp();
    const r1 = await t.api('GET', '/v1/events', undefined, { 'last-event-id': 'abc' });
    expect(r1.statusCode).toBe(400);
    expect(r1.json().error.code).toBe('validation_failed');
    const r2 = await t.api('GET', '/v1/events?types=task.exploded');
    expect(r2.statusCode).toBe(400);
    expect(r2.json().error.message).toContain('task.exploded');
  });
});
