/**
 * The release check (SPEC §2.9 update check, §2.10 `update.*`, decision 065). `GET /v1/update`
 * serves what the last poll learned and never polls itself. The poller looks about once a minute on
 * the injected clock and reads `update.check` / `update.poll_interval` afresh each time: with the
 * check off or the interval 0 it makes no request at all. A poll reads a GitHub-style releases
 * feed (a JSON array of `{tag_name, prerelease, draft, published_at, html_url}`), ignores drafts,
 * prereleases and tags that are not versions, and keeps the highest version. A failed poll keeps the
 * last good answer, adds `error`, and is retried after min(interval, 1 h). A dev build is never
 * behind. The last answer is kept in {data_dir}/update-check.json so a restart neither forgets it
 * nor polls early.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import semver from 'semver';
import { z } from 'zod';
import { type Clock, formatMs, type Timer } from '../clock/index.js';
import { type Config, parseDuration } from '../config/index.js';
import { readState, writeState } from './state-file.js';

/** The project's releases feed. Overridden by SVC_RELEASES_URL (tests point it at a local server). */
export const RELEASES_FEED_URL = 'https://api.github.com/repos/svc-dev/svc/releases';
export const RELEASES_URL_ENV = 'SVC_RELEASES_URL';
export const UPDATE_TICK_MS = 60 * 1000;
export const UPDATE_RETRY_MS = 60 * 60 * 1000;
export const UPDATE_REQUEST_TIMEOUT_MS = 30 * 1000;

export function releasesFeedUrl(env: NodeJS.ProcessEnv = process.env): string {
  return env[RELEASES_URL_ENV] || RELEASES_FEED_URL;
}

const UpdateStateSchema = z.object({
  latest_version: z.string().default(''),
  published_at: z.string().nullable().default(null),
  release_url: z.string().default(''),
  checked_at: z.string().nullable().default(null),
  error: z.string().nullable().default(null),
  last_attempt_at: z.string().nullable().default(null),
});
type UpdateState = z.infer<typeof UpdateStateSchema>;

export interface UpdateView {
  enabled: boolean;
  current_version: string;
  /** Empty until a poll succeeds. */
  latest_version: string;
  update_available: boolean;
  published_at: string | null;
  release_url: string;
  /** Null until a poll succeeds. */
  checked_at: string | null;
  /** Present only when the last poll failed. */
  error?: string;
}

/** A build without a plain release version (`0.2.0-dev.3`, a checkout without package.json) is a dev build. */
export function isDevBuild(version: string): boolean {
  const v = semver.valid(version);
  if (!v) return true;
  return (semver.prerelease(v) ?? []).some((p) => String(p).includes('dev'));
}

interface FeedRelease {
  tag_name?: unknown;
  prerelease?: unknown;
  draft?: unknown;
  published_at?: unknown;
  html_url?: unknown;
}

/** The newest stable release in a feed; null when it holds none. Throws on a feed that is not a list. */
export function newestRelease(
  feed: unknown,
): { version: string; published_at: string | null; url: string } | null {
  if (!Array.isArray(feed)) throw new Error('the releases feed is not a JSON array');
  let best: { version: string; published_at: string | null; url: string } | null = null;
  for (const r of feed as FeedRelease[]) {
    if (!r || typeof r !== 'object' || r.draft === true || r.prerelease === true) continue;
    if (typeof r.tag_name !== 'string') continue;
    const v = semver.valid(semver.clean(r.tag_name) ?? '');
    if (!v || semver.prerelease(v)) continue;
    if (best && !semver.gt(v, best.version)) continue;
    best = {
      version: v,
      published_at: typeof r.published_at === 'string' ? r.published_at : null,
      url: typeof r.html_url === 'string' ? r.html_url : '',
    };
  }
  return best;
}

export interface UpdateDeps {
  clock: Clock;
  config: () => Config;
  logger: Logger;
  dataDir: string;
  version: string;
  feedUrl: string;
}

export class UpdateService {
  private timer: Timer | null = null;
  private polling: Promise<void> | null = null;
  /** Aborts the request in flight when the daemon stops, so shutdown never waits on the network. */
  private inFlight: AbortController | null = null;
  private stopped = false;
  private state: UpdateState;
  private readonly file: string;

  constructor(private readonly d: UpdateDeps) {
    this.file = join(d.dataDir, 'update-check.json');
    this.state = readState(this.file, UpdateStateSchema) ?? UpdateStateSchema.parse({});
  }

  private settings(): { on: boolean; intervalMs: number } {
    const u = this.d.config().update;
    const intervalMs = parseDuration(u.poll_interval);
    return { on: u.check && intervalMs > 0, intervalMs };
  }

  view(): UpdateView {
    const s = this.state;
    const latest = s.latest_version;
    const out: UpdateView = {
      enabled: this.settings().on,
      current_version: this.d.version,
      latest_version: latest,
      update_available:
        latest !== '' &&
        !isDevBuild(this.d.version) &&
        semver.valid(latest) !== null &&
        semver.gt(latest, this.d.version),
      published_at: s.published_at,
      release_url: s.release_url,
      checked_at: s.checked_at,
    };
    if (s.error !== null) out.error = s.error;
    return out;
  }

  /** Starts looking; the first look is one tick after start, so short-lived daemons make no request. */
  start(): void {
    this.stopped = false;
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = null;
    this.inFlight?.abort(new Error('the daemon is stopping'));
  }

  async whenIdle(): Promise<void> {
    while (this.polling) await this.polling;
  }

  private arm(): void {
    if (this.stopped) return;
    this.timer = this.d.clock.setTimer(UPDATE_TICK_MS, () => {
      this.tick();
      this.arm();
    });
  }

  /** Whether a poll is due now under the settings in force. */
  due(): boolean {
    const { on, intervalMs } = this.settings();
    if (!on) return false;
    const last = this.state.last_attempt_at ? Date.parse(this.state.last_attempt_at) : Number.NaN;
    if (Number.isNaN(last)) return true;
    const wait = this.state.error !== null ? Math.min(intervalMs, UPDATE_RETRY_MS) : intervalMs;
    return this.d.clock.now() >= last + wait;
  }

  private tick(): void {
    if (this.polling || !this.due()) return;
    this.polling = this.poll().finally(() => {
      this.polling = null;
    });
  }

  /** One request to the feed. Never throws: a failure is recorded as `error`. */
  async poll(): Promise<void> {
    const next: UpdateState = { ...this.state, last_attempt_at: formatMs(this.d.clock.now()) };
    const abort = new AbortController();
    this.inFlight = abort;
    const timeout = this.d.clock.setTimer(UPDATE_REQUEST_TIMEOUT_MS, () =>
      abort.abort(new Error('the releases feed did not answer in 30s')),
    );
    try {
      const res = await fetch(this.d.feedUrl, {
        headers: {
          accept: 'application/vnd.github+json, application/json',
          'user-agent': `svc/${this.d.version}`,
        },
        signal: abort.signal,
        redirect: 'follow',
      });
      if (!res.ok) throw new Error(`the releases feed answered HTTP ${res.status}`);
      const newest = newestRelease(await res.json());
      next.latest_version = newest?.version ?? '';
      next.published_at = newest?.published_at ?? null;
      next.release_url = newest?.url ?? '';
      next.checked_at = formatMs(this.d.clock.now());
      next.error = null;
    } catch (err) {
      const e = err as Error & { cause?: { message?: string } };
      next.error = e.cause?.message ? `${e.message}: ${e.cause.message}` : e.message;
      this.d.logger.warn({ err: next.error, url: this.d.feedUrl }, 'release check failed');
    } finally {
      timeout.cancel();
      this.inFlight = null;
    }
    this.state = next;
    try {
      writeState(this.file, next);
    } catch (err) {
      this.d.logger.warn({ err: (err as Error).message }, 'release check state not saved');
    }
  }
}
