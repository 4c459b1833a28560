// Issue 8 point 2: the signed ingress POST /v1/triggers/{id}/events — accepted with the right
// HMAC over the raw body and a fresh timestamp; refused for a wrong key, a stale timestamp, an
// altered body or missing headers; 409 with details.reason when not armed (decision 083). The
// event id taken from X-Svc-Event-Id is signed with the body (decision 188, issue 17 hold 4).
import { describe, expect, it } from 'vitest';
import { sign } from '../../../plugins/triggers/http/signature.js';
import { CREATE_OK, type TriggerWorld, triggerWorld } from '../../support/triggers.js';

const SECRET = 'a-long-enough-shared-secret';

function hook(
  w: TriggerWorld,
  id: string,
  signature = `    secret: ${JSON.stringify(SECRET)}\n`,
  enabled = true,
) {
  return `id: ${id}\nenabled: ${enabled}\nproject_id: ${w.project.id}\nsource:\n  type: http\n  signature:\n${signature}action:\n${CREATE_OK}`;
}

function send(
  w: TriggerWorld,
  id: string,
  raw: string,
  opts: {
    secret?: string;
    ts?: number;
    body?: string;
    headers?: Record<string, string>;
    /** Signs with this event id and sends it as X-Svc-Event-Id. */
    eventId?: string;
  } = {},
) {
  const ts = String(opts.ts ?? Math.floor(w.clock.now() / 1000));
  return w.t.api('POST', `/v1/triggers/${id}/events`, opts.body ?? raw, {
    'content-type': 'application/json',
    'x-svc-timestamp': ts,
    'x-svc-signature': sign(opts.secret ?? SECRET, ts, raw, opts.eventId),
    ...(opts.eventId === undefined ? {} : { 'x-svc-event-id': opts.eventId }),
    ...opts.headers,
  });
}

describe('http ingress', () => {
  it('accepts a signed event and answers its delivery; a replay is deduped', async () => {
    const w = await triggerWorld();
    await w.put('hook', hook(w, 'hook'));
    // Bytes a re-serialization would change: spacing, key order, an escaped slash.
    const raw = '{ "id" : "evt-1",\n  "url": "https:\\/\\/x" }';
    const res = await send(w, 'hook', raw);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ trigger_id: 'hook', event_id: 'evt-1', outcome: 'fired' });
    expect(res.json().task_id).toEqual(expect.any(Number));
    const again = await send(w, 'hook', raw);
    expect(again.json()).toMatchObject({ event_id: 'evt-1', outcome: 'deduped' });
  });

  it('takes the event id from a signed X-Svc-Event-Id, else a digest of the body', async () => {
    const w = await triggerWorld();
    await w.put('hook', hook(w, 'hook'));
    const withHeader = await send(w, 'hook', '{"action":"opened"}', { eventId: 'delivery-9' });
    expect(withHeader.json().event_id).toBe('delivery-9');
    const digest = await send(w, 'hook', '{"action":"closed"}');
    expect(digest.json().event_id).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('refuses a replay with a new X-Svc-Event-Id: the id is signed with the body', async () => {
    const w = await triggerWorld();
    await w.put('hook', hook(w, 'hook'));
    const raw = '{"action":"opened"}';
    const ts = String(Math.floor(w.clock.now() / 1000));
    const first = await send(w, 'hook', raw, { eventId: 'delivery-1', ts: Number(ts) });
    expect(first.json()).toMatchObject({ event_id: 'delivery-1', outcome: 'fired' });
    const signature = sign(SECRET, ts, raw, 'delivery-1');
    const resend = (headers: Record<string, string>) =>
      w.t.api('POST', '/v1/triggers/hook/events', raw, {
        'content-type': 'application/json',
        'x-svc-timestamp': ts,
        'x-svc-signature': signature,
        ...headers,
      });
    for (let n = 2; n <= 5; n++) {
      const res = await resend({ 'x-svc-event-id': `delivery-${n}` });
      expect(res.statusCode).toBe(401);
      expect(res.json().error.details.reason).toBe('signature_mismatch');
    }
    expect((await resend({})).statusCode).toBe(401);
    expect((await resend({ 'x-svc-event-id': 'delivery-1' })).json().outcome).toBe('deduped');
    // A request signed without an id cannot be given one either.
    const bare = await send(w, 'hook', '{"action":"closed"}');
    expect(bare.statusCode).toBe(200);
    const renamed = await send(w, 'hook', '{"action":"closed"}', {
      headers: { 'x-svc-event-id': 'fresh-id' },
    });
    expect(renamed.statusCode).toBe(401);
    const fired = (await w.deliveries('hook')).filter(
      (d) => (d as { outcome: string }).outcome === 'fired',
    );
    expect(fired).toHaveLength(2);
  });

  it('refuses an event id outside its grammar with 400 naming the header', async () => {
    const w = await triggerWorld();
    await w.put('hook', hook(w, 'hook'));
    for (const id of ['a b', '{x}', 'x'.repeat(201), 'a\tb']) {
      const res = await send(w, 'hook', '{"action":"x"}', { headers: { 'x-svc-event-id': id } });
      expect(res.statusCode, id).toBe(400);
      expect(res.json().error.details.field).toBe('X-Svc-Event-Id');
    }
    expect(await w.deliveries('hook')).toEqual([]);
  });

  it.each([
    ['a wrong key', { secret: 'another-secret-of-length' }, 'signature_mismatch'],
    ['a stale timestamp', { ts: 1 }, 'timestamp_stale'],
    ['an altered body', { body: '{"id":"evt-2","evil":true}' }, 'signature_mismatch'],
    ['a timestamp from the future', { tsOffset: 301 }, 'timestamp_stale'],
  ])('refuses %s with 401 and records nothing', async (_what, opts, reason) => {
    const w = await triggerWorld();
    await w.put('hook', hook(w, 'hook'));
    const o = opts as { secret?: string; ts?: number; body?: string; tsOffset?: number };
    const ts = o.tsOffset !== undefined ? Math.floor(w.clock.now() / 1000) + o.tsOffset : o.ts;
    const res = await send(w, 'hook', '{"id":"evt-2"}', { ...o, ts });
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toMatchObject({ code: 'unauthorized', details: { reason } });
    expect(await w.deliveries('hook')).toEqual([]);
  });

  it('accepts a timestamp inside the window and a rotated secret list', async () => {
    const w = await triggerWorld();
    await w.put('hook', hook(w, 'hook'));
    const raw = '{"id":"r"}';
    const ts = String(Math.floor(w.clock.now() / 1000) - 299);
    const res = await w.t.api('POST', '/v1/triggers/hook/events', raw, {
      'content-type': 'application/json',
      'x-svc-timestamp': ts,
      'x-svc-signature': `${sign('old-secret-old-secret', ts, raw)}, ${sign(SECRET, ts, raw)}`,
    });
    expect(res.statusCode).toBe(200);
  });

  it('refuses missing headers, a non-object body, and reads secret_env from the environment', async () => {
    const w = await triggerWorld({
      config: 'environment:\n  set:\n    HOOK_SECRET: from-the-environment-1\n',
    });
    await w.put('env', hook(w, 'env', '    secret_env: HOOK_SECRET\n'));
    const bare = await w.t.api('POST', '/v1/triggers/env/events', '{"id":"x"}', {
      'content-type': 'application/json',
    });
    expect(bare.json().error.details.reason).toBe('signature_missing');
    const arr = await send(w, 'env', '[1]', { secret: 'from-the-environment-1' });
    expect(arr.statusCode).toBe(400);
    expect(
      (await send(w, 'env', '{"id":"x"}', { secret: 'from-the-environment-1' })).statusCode,
    ).toBe(200);
  });

  it('is 409 with details.reason when not armed, 404 without a file', async () => {
    const w = await triggerWorld({ enabled: false });
    await w.put('hook', hook(w, 'hook'));
    await w.put('off', hook(w, 'off', undefined, false));
    await w.put('bad', 'id: bad\n');
    await w.put(
      'cmd',
      `id: cmd\nenabled: true\nproject_id: ${w.project.id}\nsource:\n  type: command\n  command: ["true"]\naction:\n${CREATE_OK}`,
    );
    const reason = async (id: string) => {
      const res = await send(w, id, '{"id":"x"}');
      return [res.statusCode, res.json().error?.details?.reason];
    };
    expect(await reason('hook')).toEqual([409, 'triggers_disabled']);
    expect(await reason('off')).toEqual([409, 'disabled']);
    expect(await reason('bad')).toEqual([409, 'invalid']);
    expect(await reason('cmd')).toEqual([409, 'not_push_source']);
    expect((await send(w, 'nope', '{}')).statusCode).toBe(404);
  });

  it('takes bodies up to 4 MiB', async () => {
    const w = await triggerWorld();
    await w.put('hook', hook(w, 'hook'));
    const big = JSON.stringify({ id: 'big', pad: 'x'.repeat(3 * 1024 * 1024) });
    expect((await send(w, 'hook', big)).statusCode).toBe(200);
    const huge = JSON.stringify({ id: 'huge', pad: 'x'.repeat(4 * 1024 * 1024) });
    expect((await send(w, 'hook', huge)).statusCode).toBe(413);
  });
});
