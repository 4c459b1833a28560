// Issue 20 point 3: a 401 from /mcp (and every other route) carries `WWW-Authenticate: Bearer`
// (RFC 6750), `error="invalid_token"` when a token was sent and refused, so an MCP client can say
// "needs authentication" instead of "failed to connect". Never a hint of the token expected.
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../../support/app.js';

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 't', version: '1' },
  },
};

describe('401 challenges', () => {
  it.each([
    ['no token', {}, 'Bearer realm="svc"'],
    [
      'a wrong token',
      { authorization: 'Bearer nope' },
      'Bearer realm="svc", error="invalid_token"',
    ],
    ['another scheme', { authorization: 'Basic abc' }, 'Bearer realm="svc", error="invalid_token"'],
  ])(
    'with %s, /mcp, a step endpoint and /v1 routes name the Bearer scheme',
    async (_what, auth, challenge) => {
      const t = await buildTestApp();
      for (const url of ['/mcp', '/mcp/steps/42', '/v1/tasks']) {
        const res = await t.kernel.app.inject({
          method: 'POST',
          url,
          headers: {
            host: '127.0.0.1',
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...auth,
          },
          payload: JSON.stringify(INIT),
        });
        expect(res.statusCode, url).toBe(401);
        expect(res.headers['www-authenticate'], url).toBe(challenge);
        expect(res.json().error.code).toBe('unauthorized');
        expect(JSON.stringify(res.headers)).not.toContain(t.token);
      }
    },
  );

  it('a request that is let in carries no challenge', async () => {
    const t = await buildTestApp();
    const res = await t.api('GET', '/v1/info');
    expect(res.statusCode).toBe(200);
    expect(res.headers['www-authenticate']).toBeUndefined();
  });
});
