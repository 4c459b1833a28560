/**
 * The board's only way to the daemon: the HTTP API on this page's own origin, with the session
 * credential as a bearer header (decision 240). Event streams are read with `fetch` streaming,
 * resuming with `Last-Event-ID` after a dropped connection.
 */
import { type Frame, SseParser } from './lib/sse.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

const SESSION_KEY = 'svc.session';

export function storedSession(): string | null {
  try {
    return sessionStorage.getItem(SESSION_KEY);
  } catch {
    return null;
  }
}

export function storeSession(session: string | null): void {
  if (session === null) sessionStorage.removeItem(SESSION_KEY);
  else sessionStorage.setItem(SESSION_KEY, session);
}

/** Trades the sign-in code for a session credential; the error says why a code was refused. */
export async function exchangeCode(code: string): Promise<string> {
  const res = await fetch('/v1/ui/session', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code }),
  });
  const body = (await res.json().catch(() => ({}))) as {
    session?: string;
    error?: { code: string; message: string; details?: Record<string, unknown> };
  };
  if (!res.ok || !body.session)
    throw new ApiError(
      res.status,
      body.error?.code ?? 'unknown',
      body.error?.message ?? `sign-in answered ${res.status}`,
      body.error?.details,
    );
  return body.session;
}

export type Query = Record<string, string | number | boolean | undefined>;

export class Api {
  /** Called once when the daemon stops honouring the session (expired, or a new token). */
  onSignedOut: () => void = () => {};

  constructor(private readonly session: string) {}

  url(path: string, query: Query = {}): string {
    const u = new URL(path, location.origin);
    for (const [k, v] of Object.entries(query))
      if (v !== undefined) u.searchParams.set(k, String(v));
    return u.pathname + u.search;
  }

  async raw(
    method: string,
    path: string,
    opts: {
      query?: Query;
      body?: unknown;
      headers?: Record<string, string>;
      signal?: AbortSignal;
    } = {},
  ): Promise<Response> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.session}`,
      ...opts.headers,
    };
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(this.url(path, opts.query), {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      signal: opts.signal,
      cache: 'no-store',
    });
    if (res.status === 401) this.onSignedOut();
    return res;
  }

  async call<T>(method: string, path: string, body?: unknown, query?: Query): Promise<T> {
    const res = await this.raw(method, path, { body, query });
    const text = await res.text();
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = text;
    }
    if (!res.ok) {
      const e = (
        json as { error?: { code: string; message: string; details?: Record<string, unknown> } }
      )?.error;
      throw new ApiError(
        res.status,
        e?.code ?? 'unknown',
        e?.message ?? `${method} ${path} answered ${res.status}`,
        e?.details,
      );
    }
    return json as T;
  }

  get<T>(path: string, query?: Query): Promise<T> {
    return this.call<T>('GET', path, undefined, query);
  }

  post<T>(path: string, body: unknown = {}, query?: Query): Promise<T> {
    return this.call<T>('POST', path, body, query);
  }

  async text(path: string, query?: Query): Promise<{ text: string; headers: Headers }> {
    const res = await this.raw('GET', path, { query });
    const text = await res.text();
    if (!res.ok) {
      let e: { code?: string; message?: string; details?: Record<string, unknown> } = {};
      try {
        e = (JSON.parse(text) as { error: typeof e }).error;
      } catch {}
      throw new ApiError(
        res.status,
        e.code ?? 'unknown',
        e.message ?? `GET ${path} answered ${res.status}`,
        e.details,
      );
    }
    return { text, headers: res.headers };
  }

  /**
   * Follows an event stream until `close()`: reconnects with a growing delay, and sends the last
   * stored event id it saw as `Last-Event-ID`, so the daemon replays what a dropped connection
   * missed. `onOpen(resumed)` runs on each connection: `resumed` says the replay covers the gap.
   */
  follow(
    path: string,
    o: {
      onFrame(f: Frame): void;
      onOpen?(resumed: boolean): void;
      onStatus?(s: 'connecting' | 'live' | 'lost'): void;
    },
  ): { close(): void } {
    const ac = new AbortController();
    let lastId: string | null = null;
    let delay = 250;
    const run = async () => {
      while (!ac.signal.aborted) {
        o.onStatus?.('connecting');
        try {
          const headers: Record<string, string> = { accept: 'text/event-stream' };
          const resumed = lastId !== null;
          if (lastId !== null) headers['last-event-id'] = lastId;
          const res = await this.raw('GET', path, { headers, signal: ac.signal });
          if (res.ok && res.body) {
            delay = 250;
            o.onStatus?.('live');
            o.onOpen?.(resumed);
            const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
            const parser = new SseParser();
            for (;;) {
              const { value, done } = await reader.read();
              if (done) break;
              for (const f of parser.push(value)) {
                if (f.id !== undefined) lastId = f.id;
                o.onFrame(f);
              }
            }
          } else if (res.status === 401) return;
        } catch {
          // A refused or dropped connection, or the close: a retry or the end.
        }
        if (ac.signal.aborted) return;
        o.onStatus?.('lost');
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(delay * 2, 5000);
      }
    };
    void run();
    return { close: () => ac.abort() };
  }
}
