/**
 * http: the fastify server (SPEC §4, §5, §7, §8): auth and Host guard, body rules, the error
 * envelope, SSE framing, and routes/ with one file per resource. Only `svc daemon run` listens;
 * tests use `inject` on the app from `buildApp`. Uses: every service through the container.
 */

export { parseId, parseWith } from '../input/index.js';
export { buildApp, routesOf, SERVER_TIMEOUTS } from './app.js';
export { isJsonContentType, LARGE_BODY_LIMIT, ORDINARY_BODY_LIMIT, rawBodyOf } from './body.js';
export { isLoopbackHost, type ScopedAuth, tokenMatches } from './guard.js';
export { reviewDeps } from './review-deps.js';
export { StreamSet } from './sse.js';
export { readTranscript, TranscriptQuerySchema } from './transcript.js';
