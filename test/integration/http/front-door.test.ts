// SPEC §4.8, §5, §7: auth, Host guard, body rules and the error envelope on the real app.
import { type AddressInfo, connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { SvcError } from '../../../kernel/errors.js';
import { buildTestApp } from '../../support/app.js';

const ENVELOPE_KEYS = ['code', 'message'];

function envelope(body: string) {
  const parsed = JSON.parse(body) as {
    error: { code: string; message: string; details?: Record<string, unknown> };
  };
  expect(Object.keys(parsed)).toEqual(['error']);
  for (const k of ENVELOPE_KEYS) expect(parsed.error).toHaveProperty(k);
  return parsed.error;
}

describe('authentication', () => {
  it('health answers without a token', async () => {
    const t = await buildTestApp();
    const res = await t.kernel.app.inject({
      method: 'GET',
      url: '/v1/health',
      headers: { host: '127.0.0.1' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok', version: t.kernel.services.daemon.version });
  });

  it.each([
    ['no header', {}],
    ['wrong token', { authorization: 'Bearer nope' }],
    ['not bearer', { authorization: 'Basic abc' }],
  ])('refuses %s with 401 unauthorized', async (_what, headers) => {
    const t = await buildTestApp();
    for (const url of ['/v1/info', '/v1/config', '/v1/no-such-route']) {
      const res = await t.kernel.app.inject({
        method: 'GET',
        url,
        headers: { host: '127.0.0.1', ...headers },
      });
      expect(res.statusCode).toBe(401);
      expect(envelope(res.body).code).toBe('unauthorized');
    }
  });

  it('accepts the right token', async () => {
    const t = await buildTestApp();
    expect((await t.api('GET', '/v1/info')).statusCode).toBe(200);
    expect(t.token).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('Host guard', () => {
  it.each(['127.0.0.1:4000', 'localhost', 'LOCALHOST:1', '[::1]:80'])(
    'accepts %s',
    async (host) => {
      const t = await buildTestApp();
      const res = await t.api('GET', '/v1/info', undefined, { host });
      expect(res.statusCode).toBe(200);
    },
  );

  it.each([
    'evil.example:4000',
    'attacker.localhost',
    '127.0.0.1.nip.io',
    '10.0.0.1',
    // Issue 17 point 10: only a port may follow a bracketed address.
    '[::1].evil.com',
    '[::1]evil',
    '[::1]:80.evil.com',
    '[::1',
  ])('refuses %s, even on health', async (host) => {
    const t = await buildTestApp();
    for (const url of ['/v1/health', '/v1/info']) {
      const res = await t.api('GET', url, undefined, { host });
      expect(res.statusCode).toBe(403);
      expect(envelope(res.body).code).toBe('host_not_allowed');
    }
  });
});

describe('no CORS', () => {
  it('never sends CORS headers, not even to a preflight', async () => {
    const t = await buildTestApp();
    const responses = [
      await t.api('OPTIONS', '/v1/config', undefined, {
        origin: 'https://evil.example',
        'access-control-request-method': 'PATCH',
      }),
      await t.api('GET', '/v1/config', undefined, { origin: 'https://evil.example' }),
      await t.kernel.app.inject({
        method: 'GET',
        url: '/v1/health',
        headers: { host: 'localhost', origin: 'https://x' },
      }),
    ];
    for (const res of responses) {
      for (const h of Object.keys(res.headers)) expect(h.startsWith('access-control-')).toBe(false);
    }
  });
});

describe('body rules (SPEC §4.8)', () => {
  it('two concatenated documents are invalid_json and nothing is acted on', async () => {
    const t = await buildTestApp();
    const before = await t.json('GET', '/v1/config');
    const res = await t.api(
      'PATCH',
      '/v1/config',
      '{"max_parallel_tasks":5}{"max_parallel_tasks":6}',
      {
        'content-type': 'application/json',
      },
    );
    expect(res.statusCode).toBe(400);
    expect(envelope(res.body).code).toBe('invalid_json');
    expect(await t.json('GET', '/v1/config')).toEqual(before);
  });

  it('malformed JSON is invalid_json', async () => {
    const t = await buildTestApp();
    const res = await t.api('PATCH', '/v1/config', '{"max_parallel_tasks":', {
      'content-type': 'application/json',
    });
    expect(res.statusCode).toBe(400);
    expect(envelope(res.body).code).toBe('invalid_json');
  });

  it('trailing whitespace after one document is fine', async () => {
    const t = await buildTestApp();
    const res = await t.api('PATCH', '/v1/config', '{"max_parallel_tasks":5}  \n\t', {
      'content-type': 'application/json',
    });
    expect(res.statusCode).toBe(200);
  });

  it('a body over 64 KiB is 413 naming the limit without echoing the body', async () => {
    const t = await buildTestApp();
    const marker = 'ECHO-MARKER-';
    const body = JSON.stringify({ branch_template: marker + 'x'.repeat(70 * 1024) });
    const res = await t.api('PATCH', '/v1/config', body, { 'content-type': 'application/json' });
    expect(res.statusCode).toBe(413);
    const e = envelope(res.body);
    expect(e.code).toBe('payload_too_large');
    expect(e.message).toContain('64 KiB');
    expect(res.body).not.toContain(marker);
  });

  it.each([
    'text/html',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/xml',
  ])('a non-empty body labelled %s is 415', async (type) => {
    const t = await buildTestApp();
    const res = await t.api('PATCH', '/v1/config', '{"max_parallel_tasks":5}', {
      'content-type': type,
    });
    expect(res.statusCode).toBe(415);
    expect(envelope(res.body).code).toBe('unsupported_media_type');
  });

  it.each([
    ['no Content-Type', undefined],
    ['application/json; charset=utf-8', 'application/json; charset=utf-8'],
    ['application/merge-patch+json', 'application/merge-patch+json'],
    ['text/json', 'text/json'],
    ['text/plain (what fetch sends for a string body)', 'text/plain;charset=UTF-8'],
  ])('accepts %s', async (_what, type) => {
    const t = await buildTestApp();
    const headers: Record<string, string> = type ? { 'content-type': type } : {};
    const res = await t.api('PATCH', '/v1/config', '{"max_parallel_tasks":4}', headers);
    expect(res.statusCode).toBe(200);
    expect(res.json().max_parallel_tasks).toBe(4);
  });
});

describe('error envelope for 404, 405 and 500', () => {
  it('an unknown route is 404 not_found', async () => {
    const t = await buildTestApp();
    const res = await t.api('GET', '/v1/nothing-here');
    expect(res.statusCode).toBe(404);
    expect(envelope(res.body).code).toBe('not_found');
  });

  it('a known route with the wrong method is 405 with Allow', async () => {
    const t = await buildTestApp();
    const res = await t.api('DELETE', '/v1/config');
    expect(res.statusCode).toBe(405);
    expect(envelope(res.body).code).toBe('method_not_allowed');
    expect(res.headers.allow).toBe('GET, PATCH');
  });

  it('an unexpected fault is 500 internal without internals', async () => {
    const t = await buildTestApp({
      extraRoutes: [
        (app) => {
          app.get('/v1/test/boom', async () => {
            throw new Error('SECRET-INTERNAL-DETAIL at /home/x');
          });
          app.get('/v1/test/svc-error', async () => {
            throw new SvcError('invalid_state', 'cannot approve a task that is done', {
              state: 'done',
            });
          });
        },
      ],
    });
    const res = await t.api('GET', '/v1/test/boom');
    expect(res.statusCode).toBe(500);
    const e = envelope(res.body);
    expect(e.code).toBe('internal');
    expect(res.body).not.toContain('SECRET-INTERNAL-DETAIL');
    const res2 = await t.api('GET', '/v1/test/svc-error');
    expect(res2.statusCode).toBe(409);
    expect(envelope(res2.body)).toEqual({
      code: 'invalid_state',
      message: 'cannot approve a task that is done',
      details: { state: 'done' },
    });
  });
});

// Found by the route fuzz test (issue 11, decision 153): Node's parser refuses some requests before
// fastify routes them, and those answers used to be fastify's own shape, not the envelope.
describe('requests refused before routing', () => {
  async function raw(t: Awaited<ReturnType<typeof buildTestApp>>, request: string) {
    await t.kernel.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.kernel.app.server.address() as AddressInfo;
    return new Promise<string>((resolve, reject) => {
      let got = '';
      const socket = connect(port, '127.0.0.1', () => socket.write(request));
      socket.on('data', (d) => {
        got += d.toString('utf8');
      });
      socket.on('close', () => resolve(got));
      socket.on('error', reject);
    });
  }

  it.each([
    [
      'headers over the parser limit',
      `GET /v1/tasks?limit=${'9'.repeat(20_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
      431,
      'headers_too_large',
    ],
    [
      'a broken request line',
      'GET /v1/info HTTP/9.x\r\nHost: 127.0.0.1\r\n\r\n',
      400,
      'malformed_request',
    ],
    ['a bad header', 'GET /v1/info HTTP/1.1\r\nHost 127.0.0.1\r\n\r\n', 400, 'malformed_request'],
    // Issue 17 point 10: Node answered this one itself, with a bare 400.
    [
      'no Host header',
      'GET /v1/health HTTP/1.1\r\nConnection: close\r\n\r\n',
      400,
      'malformed_request',
    ],
  ])('%s answers the envelope and closes', async (_what, request, status, code) => {
    const t = await buildTestApp();
    const answer = await raw(t, request);
    expect(answer.startsWith(`HTTP/1.1 ${status} `)).toBe(true);
    expect(envelope(answer.slice(answer.indexOf('\r\n\r\n') + 4)).code).toBe(code);
  });
});

describe('URLs the router refuses', () => {
  it.each([
    ['bad percent-encoding', '/v1/tasks/%E0%A4%A', 400, 'malformed_request'],
    [
      'a path segment over the router limit',
      `/v1/projects/${'x'.repeat(300)}`,
      400,
      'validation_failed',
    ],
  ])('%s answers the envelope', async (_what, url, status, code) => {
    const t = await buildTestApp();
    const res = await t.api('GET', url);
    expect(res.statusCode).toBe(status);
    expect(envelope(res.body).code).toBe(code);
    expect(res.body).not.toContain('xxxxxxxxxx');
  });
});
