/**
 * The usage-quota block of SPEC §2.4 per adapter (decision 042). Two kinds of knowledge:
 *
 * - an observation: what a `usage_limit` stop told us (stored in `agent_quota_observations`, so it
 *   survives a restart; deleted only by the next successful agent step on that adapter; a reset
 *   one is kept, `spent: false` meaning "recovered"; nothing sweeps it on a timer);
 * - a reading: a measurement from the adapter's own surface (codex's app-server pull, claude's
 *   status-line push, windows seen in claude's stream), held in memory only.
 *
 * A reading wins where both exist; null (never a zeroed block) means neither. `spent` is derived
 * per request. Every change of a block (other than `spent` moving with the clock) is announced as
 * a durable `agent.quota_changed` event.
 */

import type {
  QuotaWindow as QuotaWindowView,
  QuotaBlock as WireQuotaBlock,
} from '../../shared/wire-types.js';
import { type Clock, formatMs } from '../clock/index.js';
import type { EventLog } from '../events/index.js';
import type { QuotaWindow } from '../plugin/index.js';
import type { Store } from '../store/index.js';

/** SPEC §2.4 "the zero time, not to be rendered": a reported window that named no reset. */
export const ZERO_TIME = '0001-01-01T00:00:00Z';
/** SPEC §2.4 / §8: readings are refreshed at most this often on ordinary requests. */
export const READING_REFRESH_MS = 5 * 60 * 1000;

/**
 * An agent's quota as the API answers it (SPEC §2.4): the shape the clients read
 * (shared/wire-types.ts), with `windows` always present in what this daemon sends.
 */
export interface QuotaBlock extends WireQuotaBlock {
  windows: QuotaWindowView[];
}

interface Reading {
  source: string;
  windows: QuotaWindow[];
  observed_at: number;
}

interface ObservationRow {
  agent: string;
  observed_at: string;
  resets_at: string;
  resets_at_reported: number;
  message: string;
}

function rfc3339(iso: string): string {
  return formatMs(Date.parse(iso));
}

function windowView(w: QuotaWindow): QuotaWindowView {
  return {
    name: w.name,
    used_percent: w.used_percent,
    window: w.window,
    resets_at: w.resets_at ? rfc3339(w.resets_at) : ZERO_TIME,
    resets_at_reported: w.resets_at !== undefined,
  };
}

/** Highest percentage; ties broken by the earliest named reset (an unnamed reset sorts last). */
export function tightest(windows: readonly QuotaWindow[]): QuotaWindow | undefined {
  const resetOf = (w: QuotaWindow) => (w.resets_at ? Date.parse(w.resets_at) : Infinity);
  return [...windows].sort((a, b) => b.used_percent - a.used_percent || resetOf(a) - resetOf(b))[0];
}

export class QuotaBook {
  private readonly readings = new Map<string, Reading>();
  private readonly pulledAt = new Map<string, number>();
  /** The last block announced per adapter, without `spent` (it moves with the clock). */
  private readonly announced = new Map<string, string>();

  constructor(
    private readonly store: Store,
    private readonly events: EventLog,
    private readonly clock: Clock,
  ) {}

  private observation(agent: string): ObservationRow | undefined {
    return this.store.db
      .prepare('SELECT * FROM agent_quota_observations WHERE agent = ?')
      .get(agent) as ObservationRow | undefined;
  }

  block(agent: string): QuotaBlock | null {
    const now = this.clock.now();
    const reading = this.readings.get(agent);
    if (reading && reading.windows.length > 0) {
      const top = tightest(reading.windows) as QuotaWindow;
      const view = windowView(top);
      return {
        spent: top.used_percent >= 100,
        used_percent: top.used_percent,
        window: top.window,
        observed_at: formatMs(reading.observed_at),
        resets_at: view.resets_at,
        resets_at_reported: view.resets_at_reported,
        source: reading.source,
        windows: reading.windows.map(windowView),
      };
    }
    const obs = this.observation(agent);
    if (!obs) return null;
    return {
      spent: now < Date.parse(obs.resets_at),
      used_percent: null,
      window: null,
      observed_at: obs.observed_at,
      resets_at: obs.resets_at,
      resets_at_reported: obs.resets_at_reported === 1,
      source: 'observed',
      windows: [],
    };
  }

  /** Announces the block when it differs from the last one announced (startup seeds silently). */
  private changed(agent: string): void {
    const block = this.block(agent);
    const { spent: _spent, ...stable } = block ?? { spent: false };
    const text = block ? JSON.stringify(stable) : 'null';
    if (this.announced.get(agent) === text) return;
    this.announced.set(agent, text);
    this.events.append('agent.quota_changed', {}, { agent, quota: block });
  }

  /** Remembers what the block is now without announcing it (at start, before any change). */
  seed(agent: string): void {
    const block = this.block(agent);
    const { spent: _spent, ...stable } = block ?? { spent: false };
    this.announced.set(agent, block ? JSON.stringify(stable) : 'null');
  }

  /**
   * A usage-limit stop. `resetsAt` is the reset the CLI named; without one the observation resets
   * after `recheckMs` (the same wait the engine uses) and says so (`resets_at_reported: false`).
   */
  observe(agent: string, resetsAt: string | null, recheckMs: number, message: string): void {
    const now = this.clock.now();
    const at = resetsAt ? rfc3339(resetsAt) : formatMs(now + recheckMs);
    this.store.db
      .prepare(
        `INSERT INTO agent_quota_observations (agent, observed_at, resets_at, resets_at_reported, message)
         VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(agent) DO UPDATE SET observed_at = excluded.observed_at,
           resets_at = excluded.resets_at, resets_at_reported = excluded.resets_at_reported,
           message = excluded.message`,
      )
      .run(agent, formatMs(now), at, resetsAt ? 1 : 0, message.slice(0, 2000));
    this.changed(agent);
  }

  /** The next successful agent step on the adapter deletes its observation (SPEC §2.4). */
  clearObservation(agent: string): void {
    const r = this.store.db
      .prepare('DELETE FROM agent_quota_observations WHERE agent = ?')
      .run(agent);
    if (r.changes > 0) this.changed(agent);
  }

  /** A reading (pull, push or stream). An empty list means the source has nothing to read. */
  setReading(agent: string, source: string, windows: QuotaWindow[]): void {
    if (windows.length === 0) this.readings.delete(agent);
    else this.readings.set(agent, { source, windows, observed_at: this.clock.now() });
    this.changed(agent);
  }

  /** Whether a pull is due on an ordinary request (at most every 5 minutes). */
  pullDue(agent: string): boolean {
    const last = this.pulledAt.get(agent);
    return last === undefined || this.clock.now() - last >= READING_REFRESH_MS;
  }

  markPulled(agent: string): void {
    this.pulledAt.set(agent, this.clock.now());
  }
}
