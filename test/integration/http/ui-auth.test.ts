// Issue 23 points 2 and 9 (decision 240): the web board signs in with a single-use code that
// lasts 60 s and gets a session credential; a wrong or missing credential is 401, a session opens
// the API but cannot issue itself codes or reach MCP, and no cookie is ever set.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../kernel/clock/index.js';
import { buildTestApp, type TestApp } from '../../support/app.js';

async function code(t: TestApp): Promise<string> {
  const res = await t.api('POST', '/v1/ui/codes');
  expect(res.statusCode, res.body).toBe(201);
  const body = res.json() as { code: string; expires_at: string };
  expect(Date.parse(body.expires_at) - t.clock.now()).toBe(60_000);
  return body.code;
}

/** The exchange as the page makes it: no Authorization header at all. */
function exchange(t: TestApp, c: unknown) {
  return t.kernel.app.inject({
    method: 'POST',
    url: '/v1/ui/session',
    headers: { host: '127.0.0.1', 'content-type': 'application/json' },
    payload: JSON.stringify({ code: c }),
  });
}

function as(t: TestApp, credential: string | null, method: 'GET' | 'POST', url: string) {
  return t.kernel.app.inject({
    method,
    url,
    headers: {
      host: '127.0.0.1',
      ...(credential === null ? {} : { authorization: `Bearer ${credential}` }),
    },
  });
}

describe('web board sign-in', () => {
  it('trades a code once for a session that opens the API', async () => {
    const t = await buildTestApp();
    const c = await code(t);
    const res = await exchange(t, c);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(res.headers['cache-control']).toBe('no-store');
    const { session, expires_at } = res.json() as { session: string; expires_at: string };
    expect(session).not.toContain(t.token);
    expect(Date.parse(expires_at) - t.clock.now()).toBe(24 * 3600_000);

    const tasks = await as(t, session, 'GET', '/v1/tasks');
    expect(tasks.statusCode, tasks.body).toBe(200);
    expect((await as(t, session, 'GET', '/v1/info')).statusCode).toBe(200);

    const again = await exchange(t, c);
    expect(again.statusCode).toBe(401);
    expect(again.json()).toMatchObject({
      error: { code: 'unauthorized', details: { reason: 'code_used' } },
    });
  });

  it('refuses a code after 60 seconds, and one it never issued', async () => {
    const clock = new FakeClock();
    const t = await buildTestApp({ clock });
    const early = await code(t);
    const late = await code(t);
    await clock.advance(59_000);
    expect((await exchange(t, early)).statusCode).toBe(200);
    await clock.advance(2_000);
    const res = await exchange(t, late);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ error: { details: { reason: 'code_expired' } } });

    const unknown = await exchange(t, 'A'.repeat(43));
    expect(unknown.json()).toMatchObject({ error: { details: { reason: 'code_unknown' } } });
    // Not a code at all: the field is named, and nothing about a session is said.
    const bad = await exchange(t, 'nope');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({
      error: { code: 'validation_failed', details: { field: 'code' } },
    });
  });

  it('answers 401 for a missing, wrong, tampered or expired credential', async () => {
    const clock = new FakeClock();
    const t = await buildTestApp({ clock });
    const { session } = (await exchange(t, await code(t))).json() as { session: string };
    expect((await as(t, null, 'GET', '/v1/tasks')).statusCode).toBe(401);
    expect((await as(t, 'not-a-credential', 'GET', '/v1/tasks')).statusCode).toBe(401);
    const parts = session.split('.');
    // A later expiry with the old signature: the signature covers the expiry.
    const stretched = [parts[0], String(Number(parts[1]) + 3600_000), parts[2], parts[3]].join('.');
    expect((await as(t, stretched, 'GET', '/v1/tasks')).statusCode).toBe(401);
    const flipped = `${session.slice(0, -1)}${session.endsWith('A') ? 'B' : 'A'}`;
    expect((await as(t, flipped, 'GET', '/v1/tasks')).statusCode).toBe(401);

    // Another daemon (another token) does not honour it.
    const other = await buildTestApp({ clock });
    expect((await as(other, session, 'GET', '/v1/tasks')).statusCode).toBe(401);

    expect((await as(t, session, 'GET', '/v1/tasks')).statusCode).toBe(200);
    await clock.advance(24 * 3600_000 + 1000);
    const expired = await as(t, session, 'GET', '/v1/tasks');
    expect(expired.statusCode).toBe(401);
    expect(expired.json()).toMatchObject({ error: { code: 'unauthorized' } });
  });

  it('a session cannot issue codes (however the path is spelled) nor reach MCP', async () => {
    const t = await buildTestApp();
    const { session } = (await exchange(t, await code(t))).json() as { session: string };
    for (const url of ['/v1/ui/codes', '/v1/%75i/codes', '/v1/ui/codes/'])
      expect((await as(t, session, 'POST', url)).statusCode, url).toBe(401);
    expect((await as(t, session, 'POST', '/mcp')).statusCode).toBe(401);
    // The exchange itself needs no credential, and a code is never a credential.
    const c = await code(t);
    expect((await as(t, c, 'GET', '/v1/tasks')).statusCode).toBe(401);
  });

  it('never writes the token, a code or a session into the log', async () => {
    const t = await buildTestApp();
    const c = await code(t);
    const { session } = (await exchange(t, c)).json() as { session: string };
    await as(t, session, 'GET', '/v1/tasks');
    await exchange(t, c);
    const log = readFileSync(t.paths.logFile, 'utf8');
    expect(log).toContain('/v1/ui/session');
    for (const secret of [t.token, c, session]) expect(log.includes(secret)).toBe(false);
  });
});
