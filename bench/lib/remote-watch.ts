/**
 * Waits on a daemon in its own process the way a client does: one `GET /v1/events` stream of
 * `task.state_changed`, a waiter per task resolved by the event that settles it (done, blocked,
 * aborted, archived) or by the first event at or after a state the caller names.
 */
import { type IncomingMessage, request } from 'node:http';
import type { Api } from './env.js';

const SETTLED = new Set(['done', 'blocked', 'aborted', 'archived']);

export interface StateEvent {
  task_id: number;
  to: string;
  /** performance.now() when the frame arrived. */
  at: number;
}

/** A `task.state_changed` frame's task and state; null for any other block (a heartbeat). */
export function stateEventOf(block: string): Omit<StateEvent, 'at'> | null {
  const data = block.split('\n').find((l) => l.startsWith('data: '));
  if (!data) return null;
  try {
    const e = JSON.parse(data.slice(6)) as { task_id?: number; payload?: { to?: string } };
    return typeof e.task_id === 'number' && typeof e.payload?.to === 'string'
      ? { task_id: e.task_id, to: e.payload.to }
      : null;
  } catch {
    // Thrown here it would escape the socket's event handler: a frame that is not JSON is skipped.
    return null;
  }
}

export class RemoteWatcher {
  private readonly waiters = new Map<
    number,
    Array<{ to: Set<string>; done: (e: StateEvent) => void }>
  >();
  private readonly seen = new Map<number, StateEvent[]>();
  private readonly ac = new AbortController();
  private reading: Promise<void> = Promise.resolve();

  private constructor(private readonly api: Api) {}

  /** Connected: every change after this call is seen. */
  static async open(api: Api): Promise<RemoteWatcher> {
    const w = new RemoteWatcher(api);
    await w.connect();
    return w;
  }

  private async connect(): Promise<void> {
    // `node:http`, not `fetch`: a frame is handed over as the socket reads it, without a web
    // stream between (the bench times the daemon's work, not its client's; env.ts `apiFor`).
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request(`${this.api.url}/v1/events?types=task.state_changed`, {
        headers: { authorization: `Bearer ${this.api.token}` },
        signal: this.ac.signal,
      });
      req.on('response', resolve);
      req.on('error', reject);
      req.end();
    });
    if (res.statusCode !== 200) {
      res.resume();
      throw new Error(`GET /v1/events → ${res.statusCode}`);
    }
    res.setEncoding('utf8');
    this.reading = new Promise<void>((settle) => {
      let buf = '';
      res.on('data', (chunk: string) => {
        buf += chunk;
        for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const e = stateEventOf(block);
          if (e) this.deliver({ ...e, at: performance.now() });
        }
      });
      // Ended by the daemon, or aborted by close().
      res.on('close', () => settle());
      res.on('error', () => settle());
    });
  }

  private deliver(e: StateEvent): void {
    const list = this.waiters.get(e.task_id);
    const i = list?.findIndex((w) => w.to.has(e.to)) ?? -1;
    if (list && i >= 0) {
      const [w] = list.splice(i, 1);
      if (list.length === 0) this.waiters.delete(e.task_id);
      w?.done(e);
      return;
    }
    const seen = this.seen.get(e.task_id) ?? [];
    seen.push(e);
    this.seen.set(e.task_id, seen);
  }

  /** The event that moves task `id` into one of `states` (settled states by default). */
  until(id: number, states: Iterable<string> = SETTLED): Promise<StateEvent> {
    const to = new Set(states);
    const seen = this.seen.get(id);
    const i = seen?.findIndex((e) => to.has(e.to)) ?? -1;
    if (seen && i >= 0) {
      const [e] = seen.splice(i, 1);
      return Promise.resolve(e as StateEvent);
    }
    return new Promise((done) => {
      const list = this.waiters.get(id) ?? [];
      list.push({ to, done });
      this.waiters.set(id, list);
    });
  }

  async close(): Promise<void> {
    this.ac.abort();
    await this.reading;
  }
}
