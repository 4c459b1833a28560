/**
 * The command line's only way to the daemon: discover it through {data_dir}/daemon.json and the
 * token file (SPEC §5.3), then speak HTTP. Nothing here reads the database or config directly.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { DaemonJson, Paths } from '../kernel/daemon/index.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export class DaemonUnreachableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DaemonUnreachableError';
  }
}

export function readDaemonJson(paths: Paths): DaemonJson | null {
  try {
    if (!existsSync(paths.daemonJson)) return null;
    return JSON.parse(readFileSync(paths.daemonJson, 'utf8')) as DaemonJson;
  } catch {
    return null;
  }
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface Connection {
  baseUrl: string;
  token: string;
}

function findDaemon(paths: Paths): Connection {
  const info = readDaemonJson(paths);
  if (!info) throw new DaemonUnreachableError(`svc daemon is not running (no ${paths.daemonJson})`);
  let token = '';
  try {
    token = readFileSync(paths.tokenFile, 'utf8').trim();
  } catch {
    throw new DaemonUnreachableError(`cannot read the API token at ${paths.tokenFile}`);
  }
  return { baseUrl: info.url ?? `http://127.0.0.1:${info.port}`, token };
}

export class Client {
  private conn: Connection | null = null;
  private readonly find: () => Connection;

  /** A known daemon, or how to find it on the first request. */
  constructor(conn: Connection | (() => Connection)) {
    this.find = typeof conn === 'function' ? conn : () => conn;
  }

  private connection(): Connection {
    this.conn ??= this.find();
    return this.conn;
  }

  get baseUrl(): string {
    return this.connection().baseUrl;
  }

  get token(): string {
    return this.connection().token;
  }

  /**
   * The daemon's client. It looks for the daemon on its first request, so a command judges its
   * own arguments before it learns whether the daemon runs (a usage mistake is exit 2 either way).
   */
  static discover(paths: Paths): Client {
    return new Client(() => findDaemon(paths));
  }

  url(path: string, query?: RequestOptions['query']): string {
    const u = new URL(path, this.baseUrl);
    for (const [k, v] of Object.entries(query ?? {}))
      if (v !== undefined) u.searchParams.set(k, String(v));
    return u.toString();
  }

  async raw(method: string, path: string, opts: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.token}`,
      ...opts.headers,
    };
    let body: string | undefined;
    if (opts.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(opts.body);
    }
    try {
      return await fetch(this.url(path, opts.query), {
        method,
        headers,
        body,
        signal: opts.signal,
      });
    } catch (err) {
      if ((err as Error).name === 'AbortError') throw err;
      throw new DaemonUnreachableError(
        `svc daemon at ${this.baseUrl} does not answer (${(err as Error).message})`,
      );
    }
  }

  async request<T = unknown>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    return (await this.exchange<T>(method, path, opts)).data;
  }

  /** A request whose answer headers matter too (X-Next-Cursor of a task list page). */
  async exchange<T = unknown>(
    method: string,
    path: string,
    opts: RequestOptions = {},
  ): Promise<{ data: T; headers: Headers }> {
    const res = await this.raw(method, path, opts);
    const text = await res.text();
    const data = text ? (JSON.parse(text) as unknown) : undefined;
    if (!res.ok) {
      const err = (
        data as { error?: { code?: string; message?: string; details?: Record<string, unknown> } }
      )?.error;
      throw new ApiError(
        res.status,
        err?.code ?? 'unknown',
        err?.message ?? `HTTP ${res.status}`,
        err?.details,
      );
    }
    return { data: data as T, headers: res.headers };
  }

  /**
   * Every task the query names, following X-Next-Cursor page by page (GET /v1/tasks answers 100
   * rows unless asked for more), stopping at `max` rows.
   */
  async allTasks<T>(
    query: Record<string, string | number | undefined>,
    max = Number.POSITIVE_INFINITY,
  ): Promise<T[]> {
    const out: T[] = [];
    let cursor: string | undefined;
    do {
      const limit = Math.min(1000, max - out.length);
      const page = await this.exchange<T[]>('GET', '/v1/tasks', {
        query: { ...query, limit, cursor },
      });
      out.push(...page.data);
      cursor = page.headers.get('x-next-cursor') ?? undefined;
    } while (cursor && out.length < max);
    return out;
  }

  get<T = unknown>(path: string, query?: RequestOptions['query']): Promise<T> {
    return this.request<T>('GET', path, { query });
  }

  post<T = unknown>(path: string, body?: unknown, query?: RequestOptions['query']): Promise<T> {
    return this.request<T>('POST', path, { body, query });
  }

  patch<T = unknown>(path: string, body: unknown): Promise<T> {
    return this.request<T>('PATCH', path, { body });
  }

  delete<T = unknown>(path: string, query?: RequestOptions['query']): Promise<T> {
    return this.request<T>('DELETE', path, { query });
  }
}
