/**
 * The front door (SPEC §5): only loopback Host names (a page on a DNS-rebinding domain reaches
 * 127.0.0.1 with its own name in Host and gets nothing, decision 004), and a bearer token on every
 * route but `GET /v1/health`, compared in constant time. No CORS headers are ever sent.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { SvcError } from '../errors.js';

const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

export function isLoopbackHost(host: string | undefined): boolean {
  if (!host) return false;
  const name = host.startsWith('[')
    ? host.slice(0, host.indexOf(']') + 1)
    : host.replace(/:\d+$/, '');
  return LOOPBACK_NAMES.has(name.toLowerCase());
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

export function tokenMatches(expected: string, header: string | undefined): boolean {
  const m = /^Bearer ([^\s]+)\s*$/.exec(header ?? '');
  // Compare digests so the comparison takes the same time whatever the lengths.
  const given = digest(m?.[1] ?? '');
  return timingSafeEqual(given, digest(expected)) && m !== null;
}

export function isPublicRoute(req: FastifyRequest): boolean {
  const path = req.url.split('?')[0];
  return req.method === 'GET' && (path === '/v1/health' || path === '/v1/health/');
}

export function checkRequest(req: FastifyRequest, token: string): void {
  if (!isLoopbackHost(req.headers.host)) {
    throw new SvcError('host_not_allowed', 'the Host header must name a loopback address');
  }
  if (isPublicRoute(req)) return;
  if (!tokenMatches(token, req.headers.authorization)) {
    throw new SvcError('unauthorized', 'missing or invalid bearer token');
  }
}
