/** A minimal SSE client for tests: reads frames from a real socket as they arrive. */
export interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

export interface SseClient {
  frames: SseFrame[];
  /** Resolves when `predicate` holds for the frames seen so far. */
  until(predicate: (frames: SseFrame[]) => boolean, timeoutMs?: number): Promise<SseFrame[]>;
  close(): void;
  status: number;
}

export async function openSse(url: string, headers: Record<string, string>): Promise<SseClient> {
  const ac = new AbortController();
  const res = await fetch(url, { headers, signal: ac.signal });
  const frames: SseFrame[] = [];
  const waiters: Array<() => void> = [];
  const client: SseClient = {
    frames,
    status: res.status,
    close: () => ac.abort(),
    until: (predicate, timeoutMs = 5000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (predicate(frames)) {
            resolve(frames);
            return true;
          }
          return false;
        };
        if (check()) return;
        const timer = setTimeout(
          () => reject(new Error(`SSE wait timed out; got ${JSON.stringify(frames)}`)),
          timeoutMs,
        );
        const w = () => {
          if (check()) clearTimeout(timer);
          else waiters.push(w);
        };
        waiters.push(w);
      }),
  };
  if (!res.body) return client;
  void (async () => {
    const decoder = new TextDecoder();
    let buf = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buf += decoder.decode(chunk, { stream: true });
        for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const f: SseFrame = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) f.comment = line.slice(1).trim();
            else {
              const at = line.indexOf(':');
              const k = line.slice(0, at);
              const v = line.slice(at + 1).replace(/^ /, '');
              if (k === 'id' || k === 'event' || k === 'data') f[k] = v;
            }
          }
          frames.push(f);
          for (const w of waiters.splice(0)) w();
        }
      }
    } catch {
      // aborted
    }
  })();
  return client;
}
