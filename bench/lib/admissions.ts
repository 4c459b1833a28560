/**
 * Admission latencies read from the event log: a task is eligible once it is queued and a slot is
 * free for it (slots taken in the order they freed); from then to `running` is the scheduler's
 * latency, and to `step.started` (written just before the spawn) the whole path to the spawn.
 */
import type { EventLog } from '../../kernel/events/index.js';
import { now } from './stats.js';

export interface Admissions {
  /** Eligible → running. */
  admitMs: number[];
  /** Eligible → the step's process started. */
  spawnMs: number[];
  maxRunning: number;
  stop(): void;
}

/**
 * `fills: 'count'` measures every admission, the first `cap` from their creation (slots were
 * free from the start); `'skip'` leaves those out, so only admissions a freed slot caused count.
 */
export function trackAdmissions(
  events: EventLog,
  cap: number,
  fills: 'count' | 'skip',
): Admissions {
  const freeSlots: number[] = fills === 'count' ? Array.from({ length: cap }, () => 0) : [];
  let skip = fills === 'skip' ? cap : 0;
  const queuedAt = new Map<number, number>();
  const eligibleAt = new Map<number, number>();
  const out: Admissions = { admitMs: [], spawnMs: [], maxRunning: 0, stop: () => {} };
  let running = 0;
  out.stop = events.subscribe((e) => {
    const t = now();
    if (e.task_id === null) return;
    if (e.kind === 'task.created') queuedAt.set(e.task_id, t);
    else if (e.kind === 'task.state_changed') {
      if (e.payload.to === 'running') {
        running++;
        out.maxRunning = Math.max(out.maxRunning, running);
        if (skip > 0) {
          skip--;
          return;
        }
        const slot = freeSlots.shift() ?? t;
        const from = Math.max(slot, queuedAt.get(e.task_id) ?? t);
        out.admitMs.push(t - from);
        eligibleAt.set(e.task_id, from);
      } else if (e.payload.from === 'running') {
        running--;
        freeSlots.push(t);
      }
    } else if (e.kind === 'step.started') {
      const from = eligibleAt.get(e.task_id);
      if (from !== undefined) {
        out.spawnMs.push(t - from);
        eligibleAt.delete(e.task_id);
      }
    }
  });
  return out;
}
