// SPEC §2.9 update check, §2.10 `update.check`, `update.poll_interval`; issue 10 point 5: the
// poller against a local releases feed on 127.0.0.1, on the fake clock.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { describe, expect, it, onTestFinished } from 'vitest';
import { FakeClock } from '../../../kernel/clock/index.js';
import { type Config, defaultConfig } from '../../../kernel/config/index.js';
import {
  isDevBuild,
  newestRelease,
  UpdateService,
  type UpdateView,
} from '../../../kernel/ops/index.js';
import { buildTestApp } from '../../support/app.js';
import { tempDir } from '../../support/tmp.js';

interface Feed {
  url: string;
  requests: number;
  body: unknown;
  status: number;
}

async function feedServer(body: unknown): Promise<Feed> {
  const feed: Feed = { url: '', requests: 0, body, status: 200 };
  const server: Server = createServer((req, res) => {
    feed.requests++;
    expect(req.headers['user-agent']).toMatch(/^svc\//);
    res.writeHead(feed.status, { 'content-type': 'application/json' });
    res.end(typeof feed.body === 'string' ? feed.body : JSON.stringify(feed.body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  onTestFinished(() => new Promise<void>((r) => server.close(() => r())));
  feed.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/releases`;
  return feed;
}

const release = (tag: string, extra: Record<string, unknown> = {}) => ({
  tag_name: tag,
  prerelease: false,
  draft: false,
  published_at: '2026-11-01T00:00:00Z',
  html_url: `https://example.invalid/releases/${tag}`,
  ...extra,
});

const FEED = [
  release('v0.9.0'),
  release('v1.2.0', { published_at: '2026-11-20T08:00:00Z' }),
  release('v2.0.0-rc.1', { prerelease: true }),
  release('v3.0.0', { draft: true }),
  release('v9.0.0-beta'),
  release('nightly'),
  release('v1.1.5'),
];

describe('GET /v1/update and the release poller', () => {
  it('serves an empty check until a poll succeeds, and never polls on request', async () => {
    const feed = await feedServer(FEED);
    const t = await buildTestApp({ kernel: { releasesUrl: feed.url } });
    const u = await t.json<UpdateView>('GET', '/v1/update');
    expect(u).toEqual({
      enabled: true,
      current_version: t.kernel.services.daemon.version,
      latest_version: '',
      update_available: false,
      published_at: null,
      release_url: '',
      checked_at: null,
    });
    await t.json('GET', '/v1/update');
    expect(feed.requests).toBe(0);
    expect((await t.api('GET', '/v1/update?refresh=true')).statusCode).toBe(400);
  });

  it('polls about a minute after start and per interval, ignoring drafts, prereleases and non-versions', async () => {
    const feed = await feedServer(FEED);
    const clock = new FakeClock(Date.UTC(2026, 10, 21, 10, 0, 0));
    const t = await buildTestApp({
      clock,
      config: 'update:\n  poll_interval: 6h\n',
      kernel: { releasesUrl: feed.url },
    });
    const updates = t.kernel.services.updates;
    await clock.advance('1m');
    await updates.whenIdle();
    expect(feed.requests).toBe(1);
    const u = await t.json<UpdateView>('GET', '/v1/update');
    expect(u).toMatchObject({
      latest_version: '1.2.0',
      published_at: '2026-11-20T08:00:00Z',
      release_url: 'https://example.invalid/releases/v1.2.0',
      checked_at: '2026-11-21T10:01:00.000Z',
      update_available: true,
    });
    expect(u).not.toHaveProperty('error');
    await clock.advance('5h58m');
    await updates.whenIdle();
    expect(feed.requests).toBe(1);
    await clock.advance('2m');
    await updates.whenIdle();
    expect(feed.requests).toBe(2);
  });

  it('makes no request at all with update.check false or poll_interval 0, reading the settings per tick', async () => {
    const feed = await feedServer(FEED);
    const clock = new FakeClock();
    const t = await buildTestApp({
      clock,
      config: 'update:\n  check: false\n',
      kernel: { releasesUrl: feed.url },
    });
    await clock.advance('72h');
    expect(feed.requests).toBe(0);
    expect((await t.json<UpdateView>('GET', '/v1/update')).enabled).toBe(false);
    await t.json('PATCH', '/v1/config', { update: { check: true, poll_interval: '0' } });
    await clock.advance('72h');
    expect(feed.requests).toBe(0);
    await t.json('PATCH', '/v1/config', { update: { poll_interval: '24h' } });
    await clock.advance('1m');
    await t.kernel.services.updates.whenIdle();
    expect(feed.requests).toBe(1);
  });

  it('reports error when the last poll failed, keeps the last good answer, and retries within the hour', async () => {
    const feed = await feedServer(FEED);
    const clock = new FakeClock(Date.UTC(2026, 10, 21, 10, 0, 0));
    const t = await buildTestApp({ clock, kernel: { releasesUrl: feed.url } });
    const updates = t.kernel.services.updates;
    await clock.advance('1m');
    await updates.whenIdle();
    feed.status = 502;
    await clock.advance('24h');
    await updates.whenIdle();
    const failed = await t.json<UpdateView>('GET', '/v1/update');
    expect(failed.error).toMatch(/HTTP 502/);
    expect(failed).toMatchObject({
      latest_version: '1.2.0',
      checked_at: '2026-11-21T10:01:00.000Z',
    });
    feed.status = 200;
    feed.body = [...FEED, release('v1.3.0')];
    await clock.advance('1h');
    await updates.whenIdle();
    const healed = await t.json<UpdateView>('GET', '/v1/update');
    expect(healed).not.toHaveProperty('error');
    expect(healed.latest_version).toBe('1.3.0');
    feed.body = 'not json';
    await clock.advance('24h');
    await updates.whenIdle();
    expect((await t.json<UpdateView>('GET', '/v1/update')).error).toBeTruthy();
  });

  it('remembers the last check across a restart instead of polling early', async () => {
    const feed = await feedServer(FEED);
    const root = tempDir();
    const clock = new FakeClock(Date.UTC(2026, 10, 21, 10, 0, 0));
    const first = await buildTestApp({
      root,
      clock,
      keepOpen: true,
      kernel: { releasesUrl: feed.url },
    });
    await clock.advance('1m');
    await first.kernel.services.updates.whenIdle();
    await first.close();
    const second = await buildTestApp({ root, clock, kernel: { releasesUrl: feed.url } });
    expect((await second.json<UpdateView>('GET', '/v1/update')).latest_version).toBe('1.2.0');
    await clock.advance('1h');
    await second.kernel.services.updates.whenIdle();
    expect(feed.requests).toBe(1);
  });

  it('stopping the daemon abandons a request the feed never answers', async () => {
    const hung = createServer(() => {});
    await new Promise<void>((r) => hung.listen(0, '127.0.0.1', r));
    onTestFinished(() => {
      hung.closeAllConnections();
      return new Promise<void>((r) => hung.close(() => r()));
    });
    const url = `http://127.0.0.1:${(hung.address() as AddressInfo).port}/releases`;
    const clock = new FakeClock();
    const t = await buildTestApp({ clock, keepOpen: true, kernel: { releasesUrl: url } });
    await clock.advance('1m');
    await new Promise((r) => setTimeout(r, 50));
    await t.close();
  });

  it('a dev build is never behind', async () => {
    const feed = await feedServer([release('v99.0.0')]);
    const clock = new FakeClock();
    const config: Config = defaultConfig();
    const svc = new UpdateService({
      clock,
      config: () => config,
      logger: pino({ level: 'silent' }),
      dataDir: tempDir(),
      version: '0.2.0-dev.4',
      feedUrl: feed.url,
    });
    await svc.poll();
    expect(svc.view()).toMatchObject({ latest_version: '99.0.0', update_available: false });
    const release_ = new UpdateService({
      clock,
      config: () => config,
      logger: pino({ level: 'silent' }),
      dataDir: tempDir(),
      version: '0.2.0',
      feedUrl: feed.url,
    });
    await release_.poll();
    expect(release_.view().update_available).toBe(true);
  });
});

describe('release feed reading', () => {
  it('takes the highest stable version', () => {
    expect(newestRelease(FEED)).toEqual({
      version: '1.2.0',
      published_at: '2026-11-20T08:00:00Z',
      url: 'https://example.invalid/releases/v1.2.0',
    });
    expect(newestRelease([])).toBeNull();
    expect(() => newestRelease({ message: 'rate limited' })).toThrow(/not a JSON array/);
  });

  it('knows a dev build', () => {
    expect(isDevBuild('0.0.0-dev')).toBe(true);
    expect(isDevBuild('1.4.0-dev.2')).toBe(true);
    expect(isDevBuild('not a version')).toBe(true);
    expect(isDevBuild('1.4.0')).toBe(false);
  });
});
