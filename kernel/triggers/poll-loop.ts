/**
 * The poll loop (SPEC §4.6): a poll source is asked for new events on the injected clock, at the
 * interval it names. The first poll after arming (or after the source block changed) seeds: its
 * events are recorded `seeded`, never acted on, and the cursor exists only while the trigger is
 * armed (decision 084). A poll hands at most MAX_EVENTS_PER_POLL events on (decision 196).
 */
import { formatMs, formatNs } from '../clock/index.js';
import type { TriggerEvent, TriggerPollContext, TriggerSource } from '../plugin/index.js';
import { capture, resolveEnvironment } from '../proc/index.js';
import type { Project } from '../projects/index.js';
import type { TriggerDeliveriesTable, TriggerStateTable } from '../store/index.js';
import { type Active, type RuntimeParts, sourceDigest, type TriggerServiceDeps } from './armed.js';
import type { TriggerDefinition } from './definition.js';
import { eventIdOf, type TriggerFiring } from './firing.js';

/** SPEC §8: a poll hands at most this many events to the pipeline. */
export const MAX_EVENTS_PER_POLL = 20;

export class PollLoop {
  private readonly d: TriggerServiceDeps;
  private readonly state: TriggerStateTable;
  private readonly deliveries: TriggerDeliveriesTable;

  constructor(
    private readonly p: RuntimeParts,
    private readonly firing: TriggerFiring,
  ) {
    this.d = p.d;
    this.state = p.state;
    this.deliveries = p.deliveries;
  }

  pollContext(def: TriggerDefinition, project: Project, signal: AbortSignal): TriggerPollContext {
    return {
      triggerId: def.id,
      project: {
        id: project.id,
        name: project.name,
        path: project.path,
        default_branch: project.default_branch,
      },
      maxEvents: MAX_EVENTS_PER_POLL,
      signal,
      run: (argv, opts) =>
        capture({
          argv,
          cwd: project.path,
          env: { ...resolveEnvironment(this.d.config.current().environment), ...opts.env },
          clock: this.d.clock,
          timeoutMs: opts.timeoutMs,
          signal,
          maxOutputBytes: opts.maxOutputBytes,
        }),
      forge: () => this.d.forge.resolve(project, signal),
    };
  }

  /** Whether the next real poll seeds: never polled since arming, or the source block changed. */
  seedsNext(def: TriggerDefinition): boolean {
    const s = this.state.get(def.id);
    return !this.p.isArmed(def.id) || !s || s.seeded !== 1 || s.source_digest !== sourceDigest(def);
  }

  async pollLoop(a: Active): Promise<void> {
    if (!this.p.isCurrent(a)) return;
    // A poll whose writes were refused (a full disk) is logged and polled again at the next
    // interval, rather than ending the loop (issue 17).
    await this.p.chains
      .serial(a.id, () => this.pollOnce(a))
      .catch((err: unknown) => {
        this.d.logger.error({ trigger: a.id, err: (err as Error).message }, 'trigger poll failed');
      });
    if (!this.p.isCurrent(a)) return;
    const ms = a.source.interval?.(a.def.source) ?? 5 * 60_000;
    a.timer = this.d.clock.setTimer(ms, () => {
      a.timer = null;
      this.p.chains.track(this.pollLoop(a));
    });
  }

  async pollOnce(a: Active): Promise<void> {
    const { def } = a;
    const project = this.d.projects.get(def.project_id);
    if (!project || !a.source.poll) return;
    const seeding = this.seedsNext(def);
    const prev = this.state.get(def.id);
    // null tells the source this poll seeds; '' is a seeded source that printed no watermark.
    const cursor = seeding ? null : (prev?.cursor ?? '');
    let result: Awaited<ReturnType<NonNullable<TriggerSource['poll']>>>;
    try {
      result = await a.source.poll(
        this.pollContext(def, project, a.abort.signal),
        def.source,
        cursor,
      );
    } catch (err) {
      result = { ok: false, error: `the source failed: ${(err as Error).message}` };
    }
    if (!this.p.isCurrent(a)) return;
    const now = formatMs(this.d.clock.now());
    if (!result.ok) {
      this.state.upsert(def.id, { last_poll_at: now, ok: 0, error: result.error });
      this.d.logger.warn({ trigger: def.id, error: result.error }, 'trigger poll failed');
      return;
    }
    for (const event of result.events) await this.firing.deliverNow(def, event, seeding);
    // Past the cap (decision 196): what the cursor leaves for the next poll comes again; what it
    // moved past is recorded, `seeded` when this poll seeds (it predates arming), else `truncated`.
    const dropped = result.dropped ?? [];
    if (seeding) for (const event of dropped) await this.firing.deliverNow(def, event, true);
    else if (dropped.length > 0) this.recordTruncated(def, dropped);
    if (result.truncated > 0)
      this.d.logger.warn(
        {
          trigger: def.id,
          held_back: result.truncated,
          truncated: seeding ? 0 : dropped.length,
          cap: MAX_EVENTS_PER_POLL,
        },
        'trigger poll held events back past the per-poll cap',
      );
    this.state.upsert(def.id, {
      cursor: result.cursor ?? cursor,
      seeded: 1,
      source_digest: sourceDigest(def),
      last_poll_at: now,
      ok: 1,
      error: null,
      held_back: result.truncated,
      truncated: seeding ? 0 : dropped.length,
    });
  }

  /** Ledger rows for events past the cap that no later poll will show (outcome `truncated`). */
  private recordTruncated(def: TriggerDefinition, events: TriggerEvent[]): void {
    const detail = JSON.stringify({
      message: `past the ${MAX_EVENTS_PER_POLL}-event cap of one poll, and the source's cursor moved past it: not judged and never acted on`,
    });
    this.d.store.tx(() => {
      for (const event of events)
        this.deliveries.insert({
          trigger_id: def.id,
          event_id: eventIdOf(event),
          dedupe_key: null,
          concurrency_key: null,
          outcome: 'truncated',
          task_id: null,
          superseded_task_id: null,
          detail,
          created_at: formatNs(this.d.clock.nowNs()),
        });
    });
  }
}
