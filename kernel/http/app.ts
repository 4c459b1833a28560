/**
 * Builds the fastify app without listening (STYLE: building the app is separate from listening,
 * so tests use `inject`). Every failure leaves through one error handler that writes the envelope
 * `{error:{code,message,details?}}`; 404 is `not_found`, a known path with the wrong method is 405
 * `method_not_allowed` with `Allow`, and anything unexpected is 500 `internal` with no internals in
 * the message (decision 003).
 */
import { STATUS_CODES } from 'node:http';
import { createRequire } from 'node:module';
import type { Duplex } from 'node:stream';
import fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  LogController,
} from 'fastify';
import type { Logger } from 'pino';
import { diskFullCode } from '../disk/index.js';
import { type ErrorCode, envelopeOf, errorCodes, isSvcError, SvcError } from '../errors.js';
import { describeLimit, installBodyParser, ORDINARY_BODY_LIMIT } from './body.js';
import { bearerChallenge, checkRequest, type ScopedAuth, type SessionAuth } from './guard.js';
import { installSecurityHeaders } from './security-headers.js';

export interface AppOptions {
  token: string;
  logger: Logger;
  /** Called with the app before routes are frozen; registers every route module. */
  routes: (app: FastifyInstance) => void;
  /** Paths guarded by their own credential instead of the daemon token (decision 122). */
  scopedAuth?: readonly ScopedAuth[];
  /** Told of every request a full disk refused (decision 180: the daemon enters disk-full mode). */
  onDiskFull?: (err: unknown) => void;
  /** The web board's session credential and public paths (decision 240). */
  sessionAuth?: SessionAuth;
}

const registered = new WeakMap<FastifyInstance, Array<{ method: string; url: string }>>();

/** Every route the app registered, `HEAD` aside (parity tests: each route is a tool or excluded). */
export function routesOf(app: FastifyInstance): Array<{ method: string; url: string }> {
  return [...(registered.get(app) ?? [])];
}

/** Timeouts for requests arriving (SPEC §8 "The server also bounds…"); SSE responses have none. */
export const SERVER_TIMEOUTS = {
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
  connectionTimeoutMs: 120_000,
};

/**
 * svc validates with zod (kernel/input/parse.ts) and declares no JSON schema on any route, yet
 * fastify requires ajv and fast-json-stringify when the app is built unless a compiler factory is
 * given — about a fifth of a cold start (issue 11, docs/performance.md). These factories load the
 * stock compilers only if some route ever asks for one.
 */
const lazyRequire = createRequire(import.meta.url);
type Factories = NonNullable<
  NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']
>;
function lazyCompiler<F extends (...args: never[]) => unknown>(pkg: string): F {
  let real: F | null = null;
  const factory = (...args: Parameters<F>) => {
    real ??= (lazyRequire(pkg) as () => F)();
    return real(...args);
  };
  return factory as F;
}

function sendError(reply: FastifyReply, err: SvcError): void {
  if (err.code === 'unauthorized') reply.header('www-authenticate', bearerChallenge(reply.request));
  void reply
    .code(errorCodes[err.code].status)
    .type('application/json; charset=utf-8')
    .send(envelopeOf(err));
}

function translate(err: FastifyError | Error, req: FastifyRequest): SvcError {
  if (isSvcError(err)) return err;
  const fe = err as FastifyError;
  switch (fe.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE': {
      const limit = req.routeOptions.bodyLimit ?? ORDINARY_BODY_LIMIT;
      return new SvcError(
        'payload_too_large',
        `request body is over the ${describeLimit(limit)} limit of this route`,
        {
          limit,
        },
      );
    }
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new SvcError('unsupported_media_type', 'request bodies are JSON');
    case 'FST_ERR_BAD_URL':
      return new SvcError('malformed_request', 'the URL is not valid (bad percent-encoding)');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new SvcError('validation_failed', 'a path segment is over 100 characters', {
        field: 'path',
      });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new SvcError('invalid_json', 'the body is not valid JSON');
    default:
      break;
  }
  // A write the disk refused is the user's to fix, not an internal fault (decision 180).
  const full = diskFullCode(err);
  if (full)
    return new SvcError(
      'disk_full',
      'the disk is full: nothing was written; free space and retry',
      {
        code: full,
      },
    );
  if (fe.statusCode === 413) {
    return new SvcError(
      'payload_too_large',
      `request body is over the ${describeLimit(ORDINARY_BODY_LIMIT)} limit`,
    );
  }
  if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new SvcError('validation_failed', 'the request is malformed');
  }
  return new SvcError('internal', 'internal error');
}

/**
 * Requests Node's HTTP parser refuses before any route runs (a query string over its header limit,
 * a broken request line, a request that never finished arriving) still get the svc envelope, not
 * fastify's own shape, and the socket is closed (decision 153).
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const code: ErrorCode =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? 'request_timeout'
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? 'headers_too_large'
        : 'malformed_request';
  const status = errorCodes[code].status;
  const message =
    code === 'request_timeout'
      ? 'the request did not arrive in time'
      : code === 'headers_too_large'
        ? 'the request line and headers are over the size limit'
        : 'the HTTP request could not be parsed';
  const body = JSON.stringify({ error: { code, message } });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

export function buildApp(opts: AppOptions): FastifyInstance {
  const app: FastifyInstance = fastify({
    loggerInstance: opts.logger as unknown as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: ORDINARY_BODY_LIMIT,
    requestTimeout: SERVER_TIMEOUTS.requestTimeoutMs,
    keepAliveTimeout: SERVER_TIMEOUTS.keepAliveTimeoutMs,
    connectionTimeout: SERVER_TIMEOUTS.connectionTimeoutMs,
    return503OnClosing: true,
    clientErrorHandler: answerClientError,
    // A request without Host reaches the guard, which answers the envelope (Node's own is bare).
    http: { requireHostHeader: false },
    // A URL the router cannot decode or a path segment past its limit: the envelope, not
    // fastify's own body (which echoed the path). Found by the route fuzz test (decision 153).
    frameworkErrors: (err, req, reply) => sendError(reply, translate(err, req)),
    routerOptions: { ignoreTrailingSlash: true },
    schemaController: {
      compilersFactory: {
        buildValidator:
          lazyCompiler<NonNullable<Factories['buildValidator']>>('@fastify/ajv-compiler'),
        buildSerializer: lazyCompiler<NonNullable<Factories['buildSerializer']>>(
          '@fastify/fast-json-stringify-compiler',
        ),
      },
    },
  });
  app.server.headersTimeout = SERVER_TIMEOUTS.headersTimeoutMs;
  installBodyParser(app);

  app.addHook('onRequest', async (req) => {
    checkRequest(req, opts.token, opts.scopedAuth, opts.sessionAuth);
  });
  installSecurityHeaders(app);
  // Requests are logged by method, route pattern and status only: URLs and headers can carry secrets.
  app.addHook('onResponse', async (req, reply) => {
    req.log.info(
      {
        method: req.method,
        route: req.routeOptions.url ?? 'unmatched',
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
      },
      'request',
    );
  });

  app.setErrorHandler((err: FastifyError | Error, req, reply) => {
    const svcErr = translate(err, req);
    if (svcErr.code === 'disk_full') opts.onDiskFull?.(err);
    if (svcErr.code === 'internal')
      req.log.error({ err, route: req.routeOptions.url }, 'request failed');
    sendError(reply, svcErr);
  });

  const methodsByPath = new Map<string, Set<string>>();
  const list: Array<{ method: string; url: string }> = [];
  registered.set(app, list);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const set = methodsByPath.get(route.url) ?? new Set<string>();
    for (const m of methods) {
      if (m === 'HEAD') continue;
      set.add(m);
      list.push({ method: m, url: route.url });
    }
    methodsByPath.set(route.url, set);
  });

  app.setNotFoundHandler(async (req, reply) => {
    const path = req.url.split('?')[0] ?? '';
    for (const [pattern, methods] of methodsByPath) {
      if (patternMatches(pattern, path)) {
        const allow = [...methods].sort().join(', ');
        void reply.header('allow', allow);
        sendError(
          reply,
          new SvcError(
            'method_not_allowed',
            `${req.method} is not allowed here; allowed: ${allow}`,
          ),
        );
        return reply;
      }
    }
    sendError(reply, new SvcError('not_found', 'no such endpoint'));
    return reply;
  });

  opts.routes(app);
  return app;
}

function patternMatches(pattern: string, path: string): boolean {
  const a = pattern.replace(/\/+$/, '').split('/');
  const b = path.replace(/\/+$/, '').split('/');
  if (a.length !== b.length) return false;
  return a.every((seg, i) => seg.startsWith(':') || seg === b[i]);
}
