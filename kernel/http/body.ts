/**
 * Request body rules (SPEC §4.8, §8): one JSON document, bounded size, JSON content types only.
 * Bodies are read as text by one parser for every content type so the rules are applied in one
 * place: a missing Content-Type is JSON, `*\/json` and `*\/*+json` (any parameters) are JSON, and
 * `text/plain` is tolerated because that is what `fetch(url, {body: string})` sends by default
 * (decision 005). Anything else with a non-empty body is 415. A route that must see the exact
 * bytes (the trigger ingress checks an HMAC over them) sets `config: { rawBody: true }` and reads
 * them with `rawBodyOf`; every other route gets only the parsed value.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SvcError } from '../errors.js';
import { clipInput, jsonNestsDeeper, MAX_JSON_DEPTH } from '../input/index.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Keep the body's exact bytes on the request (read with rawBodyOf). */
    rawBody?: boolean;
  }
}

const RAW = Symbol('svc.rawBody');

/** The body's exact bytes on a route with `config: { rawBody: true }`; empty otherwise. */
export function rawBodyOf(req: FastifyRequest): Buffer {
  return (req as unknown as { [RAW]?: Buffer })[RAW] ?? Buffer.alloc(0);
}

export const ORDINARY_BODY_LIMIT = 64 * 1024;
export const LARGE_BODY_LIMIT = 4 * 1024 * 1024;

export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined || header.trim() === '') return true;
  const type = header.split(';')[0]?.trim().toLowerCase() ?? '';
  if (type === 'text/plain') return true;
  const m = /^([a-z0-9!#$&^_.+-]+)\/([a-z0-9!#$&^_.+-]+)$/.exec(type);
  if (!m) return false;
  const sub = m[2] as string;
  return sub === 'json' || sub.endsWith('+json');
}

export function describeLimit(bytes: number): string {
  return bytes >= 1024 * 1024
    ? `${bytes / (1024 * 1024)} MiB (${bytes} bytes)`
    : `${bytes / 1024} KiB (${bytes} bytes)`;
}

/** Parses exactly one JSON value followed only by whitespace. JSON.parse already refuses trailing data. */
export function parseOneJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    const detail = (err as Error).message.includes('non-whitespace')
      ? 'the body holds more than one JSON document'
      : 'the body is not valid JSON';
    throw new SvcError('invalid_json', detail);
  }
}

export function installBodyParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    '*',
    { parseAs: 'buffer' },
    (req: FastifyRequest, body: string | Buffer, done) => {
      const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
      if (req.routeOptions.config?.rawBody) (req as unknown as { [RAW]?: Buffer })[RAW] = bytes;
      const text = bytes.toString('utf8');
      if (text.length === 0) {
        done(null, undefined);
        return;
      }
      if (!isJsonContentType(req.headers['content-type'])) {
        done(
          new SvcError(
            'unsupported_media_type',
            `request bodies are JSON; Content-Type ${clipInput(req.headers['content-type'] ?? '')} is not accepted`,
          ),
          undefined,
        );
        return;
      }
      if (text.trim() === '') {
        done(null, undefined);
        return;
      }
      if (jsonNestsDeeper(text)) {
        done(
          new SvcError(
            'validation_failed',
            `the body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`,
            { field: 'body', limit: MAX_JSON_DEPTH },
          ),
          undefined,
        );
        return;
      }
      try {
        done(null, parseOneJson(text));
      } catch (err) {
        done(err as Error, undefined);
      }
    },
  );
}
