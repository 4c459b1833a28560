/**
 * `buildTestApp()`: the real kernel (real SQLite file, real config file, real plugins) in temp
 * directories with a fake clock, driven through fastify's `inject`. Each test owns its app.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { onTestFinished } from 'vitest';
import { type Clock, FakeClock } from '../../kernel/clock/index.js';
import { type Paths, pathsFor } from '../../kernel/daemon/index.js';
import type { RouteModule } from '../../kernel/http/route-module.js';
import { createKernel, type Kernel, type KernelOptions } from '../../kernel/kernel.js';
import { useSpawner } from '../../kernel/launch/index.js';
import { createFileLogger } from '../../kernel/log/index.js';
import type { HostPlatform } from '../../kernel/workflows/index.js';
import { tempDir } from './tmp.js';

export interface TestAppOptions {
  /** config.yaml text written before start; omitted means the first-start template. */
  config?: string;
  clock?: Clock;
  heartbeatMs?: number;
  /** Keep the app open after the test (the caller closes it). */
  keepOpen?: boolean;
  root?: string;
  extraRoutes?: RouteModule[];
  /** Any other kernel option (ports, releasesUrl, startOps, …). */
  kernel?: Partial<Omit<KernelOptions, 'paths' | 'logger' | 'clock'>>;
  /** The host as workflow `platforms` see it. */
  hostPlatform?: HostPlatform;
}

/**
 * Test daemons never reach the real releases feed: unless a test names a feed, the release check
 * points at a closed local port (SPEC §2.10 `update.check` defaults to on).
 */
export const NO_RELEASES_FEED = 'http://127.0.0.1:9/releases';

export interface TestApp {
  kernel: Kernel;
  paths: Paths;
  token: string;
  clock: Clock;
  stopRequested: () => number;
  /** Authenticated inject with JSON body handling. */
  api(
    method: InjectOptions['method'],
    url: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<LightMyRequestResponse>;
  json<T = unknown>(method: InjectOptions['method'], url: string, body?: unknown): Promise<T>;
  close(): Promise<void>;
}

/**
 * The spawner of the test file's apps, held from the first app to the file's end, as a daemon holds
 * its own for its whole life (decision 247): a test's app let its spawner go when it closed, so
 * every test that ran a program started a Node process of its own first (~80 ms a test). Tests of
 * the spawner's own life call `releaseKeptSpawner()` before they start.
 */
let keptSpawner: (() => void) | null = null;
let keepSpawner = true;

/** Lets the file's kept spawner go; from now on each test app holds and releases its own. */
export function releaseKeptSpawner(): void {
  keepSpawner = false;
  keptSpawner?.();
  keptSpawner = null;
}

export async function buildTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  if (keepSpawner) keptSpawner ??= useSpawner();
  const root = opts.root ?? tempDir();
  const paths = pathsFor(join(root, 'config'), join(root, 'data'));
  if (opts.config !== undefined) {
    mkdirSync(paths.configDir, { recursive: true, mode: 0o700 });
    writeFileSync(paths.configFile, opts.config, { mode: 0o600 });
  }
  mkdirSync(paths.dataDir, { recursive: true, mode: 0o700 });
  const clock = opts.clock ?? new FakeClock(Date.now());
  const log = createFileLogger(paths.logFile, 'debug');
  let stops = 0;
  const kernel = await createKernel({
    releasesUrl: NO_RELEASES_FEED,
    ...opts.kernel,
    paths,
    logger: log.logger,
    clock,
    heartbeatMs: opts.heartbeatMs ?? 15_000,
    extraRoutes: opts.extraRoutes,
    hostPlatform: opts.hostPlatform,
    onStopRequested: () => {
      stops++;
    },
  });
  const token = kernel.services.daemon.token;
  const app: TestApp = {
    kernel,
    paths,
    token,
    clock,
    stopRequested: () => stops,
    api: (method, url, body, headers = {}) =>
      kernel.app.inject({
        method,
        url,
        headers: { host: '127.0.0.1', authorization: `Bearer ${token}`, ...headers },
        ...(body === undefined
          ? {}
          : typeof body === 'string'
            ? { payload: body }
            : { payload: JSON.stringify(body) }),
      }),
    json: async <T>(method: InjectOptions['method'], url: string, body?: unknown) => {
      const res = await app.api(
        method,
        url,
        body,
        body === undefined ? {} : { 'content-type': 'application/json' },
      );
      if (res.statusCode >= 400)
        throw new Error(`${method} ${url} → ${res.statusCode} ${res.body}`);
      return (res.body ? JSON.parse(res.body) : undefined) as T;
    },
    close: async () => {
      await kernel.close();
      log.close();
    },
  };
  if (!opts.keepOpen) {
    try {
      onTestFinished(() => app.close());
    } catch {}
  }
  return app;
}

/** Polls `fn` until it returns a truthy value or `timeoutMs` passes (real time: for real files and processes). */
type Truthy<T> = Exclude<Awaited<T>, null | undefined | false | '' | 0>;

export async function waitFor<T>(fn: () => T, timeoutMs = 15_000, stepMs = 20): Promise<Truthy<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as Truthy<T>;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(`waitFor timed out${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}
