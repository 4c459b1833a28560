/**
 * Headers on every answer the daemon gives (issue 23 point 1, decision 241). The web board is
 * served from this listener, so its pages get a strict Content-Security-Policy — scripts, styles
 * and connections from this origin only, no inline script, never framed — and the API's answers
 * get the same, harmlessly: a JSON body opened as a page runs nothing. `nosniff` keeps a browser
 * from reading JSON or text as script, `no-referrer` keeps URLs out of other sites' logs, and
 * `Cross-Origin-Resource-Policy` keeps other origins from embedding any answer. Answers that do not
 * say how to cache are `no-store`: task data does not belong in a browser's disk cache. Hijacked
 * replies (the event streams) write their own headers.
 */
import type { FastifyInstance } from 'fastify';

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function installSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onSend', async (_req, reply, payload) => {
    void reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
    void reply.header('x-content-type-options', 'nosniff');
    void reply.header('referrer-policy', 'no-referrer');
    void reply.header('cross-origin-resource-policy', 'same-origin');
    if (!reply.hasHeader('cache-control')) void reply.header('cache-control', 'no-store');
    return payload;
  });
}
