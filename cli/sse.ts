/** Reads a server-sent-event stream from the daemon, frame by frame (docs/events.md). */
import type { Client } from './client.js';

export interface Frame {
  id?: string;
  event?: string;
  data?: string;
}

/** Calls `onFrame` for each frame until it returns true, the stream ends, or `signal` aborts. */
export async function followStream(
  client: Client,
  path: string,
  onFrame: (f: Frame) => boolean | undefined,
  opts: { lastEventId?: string; signal?: AbortSignal; onOpen?: () => void } = {},
): Promise<void> {
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  if (opts.lastEventId) headers['last-event-id'] = opts.lastEventId;
  const res = await client.raw('GET', path, { headers, signal: opts.signal });
  if (!res.ok || !res.body) throw new Error(`stream ${path} answered ${res.status}`);
  // Subscribed: whatever happens from here on arrives as a frame, so a caller can now read state.
  opts.onOpen?.();
  const decoder = new TextDecoder();
  let buf = '';
  const reader = res.body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += decoder.decode(value, { stream: true });
      for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        const f: Frame = {};
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) continue;
          const at = line.indexOf(':');
          const k = line.slice(0, at);
          const v = line.slice(at + 1).replace(/^ /, '');
          if (k === 'id' || k === 'event' || k === 'data') f[k] = v;
        }
        if ((f.event || f.data) && onFrame(f)) return;
      }
    }
  } finally {
    try {
      await reader.cancel();
    } catch {}
  }
}

/** A stream a command reads while it makes requests of its own (`svc chat send`, `task logs -f`). */
export interface OpenStream {
  /**
   * Resolves once the daemon has subscribed this stream (true), or the stream failed before that
   * (false: refused, daemon unreachable): never left pending, so awaiting it cannot hang.
   */
  opened: Promise<boolean>;
  /** Resolves when the stream ends for any reason: `onFrame` said stop, the daemon closed it, close(). */
  done: Promise<void>;
  /** Ends the stream and waits for it: every path out of a command calls this, refusals included. */
  close(): Promise<void>;
}

/**
 * Opens `path` as followStream does and hands back its handles instead of a bare promise, so a
 * command can subscribe first, then make the request the stream is about, and close the stream
 * whatever that request answers. An open stream keeps the process alive: a command that forgets
 * it on a refusal prints the refusal and then hangs (issue 20).
 */
export function openStream(
  client: Client,
  path: string,
  onFrame: (f: Frame) => boolean | undefined,
  opts: { lastEventId?: string } = {},
): OpenStream {
  const ac = new AbortController();
  let markOpen: (open: boolean) => void = () => {};
  const opened = new Promise<boolean>((resolve) => {
    markOpen = resolve;
  });
  const done = followStream(client, path, onFrame, {
    ...opts,
    signal: ac.signal,
    onOpen: () => markOpen(true),
  })
    .catch(() => {})
    .finally(() => markOpen(false));
  return {
    opened,
    done,
    close: async () => {
      ac.abort();
      await done;
    },
  };
}
