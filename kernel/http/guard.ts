/**
 * The front door (SPEC §5): only loopback Host names (a page on a DNS-rebinding domain reaches
 * 127.0.0.1 with its own name in Host and gets nothing, decision 004), and a bearer token on every
 * route but `GET /v1/health`, compared in constant time. No CORS headers are ever sent.
 * A scoped scheme may guard a path prefix with its own credential instead of the daemon token
 * (the per-step MCP endpoints, decision 122); it never widens any other path.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { SvcError } from '../errors.js';

const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/**
 * The name of a Host header without its port, lower-cased (`[::1]` keeps its brackets). After a
 * bracketed address only a port may follow: `[::1].evil.com` names no host we know (decision 189).
 */
function hostName(host: string): string {
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    if (end < 0 || !/^(:\d+)?$/.test(host.slice(end + 1))) return '';
    return host.slice(0, end + 1).toLowerCase();
  }
  return host.replace(/:\d+$/, '').toLowerCase();
}

export function isLoopbackHost(host: string | undefined): boolean {
  return host !== undefined && host !== '' && LOOPBACK_NAMES.has(hostName(host));
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

/**
 * The `WWW-Authenticate` challenge of a 401 (RFC 6750 §3): the scheme the daemon wants, and
 * `invalid_token` when a token was sent and refused. An MCP client reads it to tell "needs a
 * credential" from "cannot connect" (issue 20); no route ever names the token it expected.
 */
export function bearerChallenge(req: FastifyRequest): string {
  return req.headers.authorization === undefined
    ? 'Bearer realm="svc"'
    : 'Bearer realm="svc", error="invalid_token"';
}

export function isPublicRoute(req: FastifyRequest): boolean {
  const path = req.url.split('?')[0];
  return req.method === 'GET' && (path === '/v1/health' || path === '/v1/health/');
}

/** A credential other than the daemon token, for the paths it matches only. */
export interface ScopedAuth {
  /** True for a path (no query) this scheme guards instead of the daemon token. */
  matches(path: string): boolean;
  /** Host names accepted on those paths besides loopback (a container runtime's host alias). */
  hosts: readonly string[];
  /** Throws an SvcError (unauthorized) unless the request carries this scheme's credential. */
  check(req: FastifyRequest): void;
}

/**
 * The web board's session credential (decision 240): a second bearer credential beside the token,
 * and the few paths the page needs before it has one (its assets, the code exchange).
 */
export interface SessionAuth {
  isPublic(method: string, path: string): boolean;
  /** True when `authorization` carries a live session credential that opens `path`. */
  opens(path: string, authorization: string | undefined): boolean;
}

export function checkRequest(
  req: FastifyRequest,
  token: string,
  scoped: readonly ScopedAuth[] = [],
  session?: SessionAuth,
): void {
  const path = req.url.split('?')[0] ?? '';
  const scheme = scoped.find((a) => a.matches(path));
  const host = req.headers.host;
  // Node answers a Host-less HTTP/1.1 request itself unless told not to; here it gets the envelope.
  if (host === undefined || host === '')
    throw new SvcError('malformed_request', 'the request has no Host header');
  const aliased =
    scheme !== undefined && host !== undefined && scheme.hosts.includes(hostName(host));
  if (!isLoopbackHost(host) && !aliased) {
    throw new SvcError('host_not_allowed', 'the Host header must name a loopback address');
  }
  if (scheme) {
    scheme.check(req);
    return;
  }
  if (isPublicRoute(req) || session?.isPublic(req.method, path)) return;
  if (tokenMatches(token, req.headers.authorization)) return;
  if (session?.opens(path, req.headers.authorization)) return;
  throw new SvcError('unauthorized', 'missing or invalid bearer token');
}
