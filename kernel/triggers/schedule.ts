/**
 * Schedule sources (SPEC §4.6): an anchored croner schedule on the injected clock. Arming seeds
 * the anchor at the current time, so nothing that was due before arming fires; occurrences missed
 * while the daemon was down fire once, as the latest of them. Each occurrence moves the cursor
 * before it is delivered.
 */
import { formatMs } from '../clock/index.js';
import type { TriggerStateTable } from '../store/index.js';
import { type Active, type RuntimeParts, sourceDigest, type TriggerServiceDeps } from './armed.js';
import type { TriggerFiring } from './firing.js';

/** Bounds the catch-up walk of a schedule whose daemon was down for a long time. */
const MAX_CATCH_UP_STEPS = 100_000;

export class ScheduleClock {
  private readonly d: TriggerServiceDeps;
  private readonly state: TriggerStateTable;

  constructor(
    private readonly p: RuntimeParts,
    private readonly firing: TriggerFiring,
  ) {
    this.d = p.d;
    this.state = p.state;
  }

  armSchedule(a: Active): void {
    const sched = a.source.schedule?.(a.def.source);
    if (!sched) return;
    const now = this.d.clock.now();
    const s = this.state.get(a.id);
    const digest = sourceDigest(a.def);
    let anchor: Date;
    if (s?.seeded !== 1 || s.source_digest !== digest || !s.cursor) {
      // Seeding: the clock is anchored now, so nothing that was due before arming fires.
      anchor = new Date(now);
      this.state.upsert(a.id, {
        cursor: anchor.toISOString(),
        seeded: 1,
        source_digest: digest,
        last_poll_at: formatMs(now),
        ok: 1,
        error: null,
      });
    } else {
      anchor = new Date(s.cursor);
      // Occurrences missed while the daemon was down fire once, as the latest of them.
      let last: Date | null = null;
      let t = anchor;
      for (let i = 0; i < MAX_CATCH_UP_STEPS; i++) {
        const n = sched.next(t);
        if (!n || n.getTime() > now) break;
        last = n;
        t = n;
      }
      if (last) {
        const at = last;
        void this.fireOccurrence(a, at);
        anchor = at;
      }
    }
    this.armNext(a, anchor);
  }

  private armNext(a: Active, anchor: Date): void {
    if (!this.p.isCurrent(a)) return;
    const sched = a.source.schedule?.(a.def.source);
    const next = sched?.next(anchor);
    if (!next) return;
    a.timer = this.d.clock.setTimer(next.getTime() - this.d.clock.now(), () => {
      a.timer = null;
      void this.fireOccurrence(a, next);
      this.armNext(a, next);
    });
  }

  private fireOccurrence(a: Active, at: Date): Promise<unknown> {
    const sched = a.source.schedule?.(a.def.source);
    if (!sched) return Promise.resolve();
    try {
      this.state.upsert(a.id, {
        cursor: at.toISOString(),
        last_poll_at: formatMs(this.d.clock.now()),
        ok: 1,
        error: null,
      });
    } catch (err) {
      // Called from a timer: a refused write (a full disk) is logged, never an uncaught
      // exception; the occurrence is not delivered without its cursor (issue 17, decision 181).
      this.d.logger.error(
        { trigger: a.id, err: (err as Error).message },
        'trigger occurrence not recorded',
      );
      return Promise.resolve();
    }
    return this.p.chains.serial(a.id, () => this.firing.deliverNow(a.def, sched.event(at), false));
  }
}
