/**
 * A long-lived SSE subscription that reconnects: the board must survive a daemon restart. Each
 * (re)connection calls `onOpen` once the daemon has subscribed us, so the caller re-reads state
 * then and misses nothing in between (events arriving meanwhile are frames, not gaps).
 */
import type { Client } from '../client.js';
import { type Frame, followStream } from '../sse.js';

export type StreamStatus = 'connecting' | 'live' | 'lost';

export interface Subscription {
  close(): void;
}

export interface SubscribeOptions {
  onFrame(f: Frame): void;
  onOpen?(): void;
  onStatus?(s: StreamStatus): void;
  /** First reconnect delay; doubles up to `maxDelayMs`. */
  delayMs?: number;
  maxDelayMs?: number;
}

export function subscribe(client: Client, path: string, o: SubscribeOptions): Subscription {
  const ac = new AbortController();
  let delay = o.delayMs ?? 250;
  const run = async () => {
    while (!ac.signal.aborted) {
      o.onStatus?.('connecting');
      try {
        await followStream(
          client,
          path,
          (f) => {
            o.onFrame(f);
            return false;
          },
          {
            signal: ac.signal,
            onOpen: () => {
              delay = o.delayMs ?? 250;
              o.onStatus?.('live');
              o.onOpen?.();
            },
          },
        );
      } catch {
        // Unreachable daemon, a refused stream or an abort: all end in a retry or the close.
      }
      if (ac.signal.aborted) return;
      o.onStatus?.('lost');
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, o.maxDelayMs ?? 5000);
    }
  };
  void run();
  return { close: () => ac.abort() };
}
