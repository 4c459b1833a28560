/**
 * An SSE reader for the soak: follows `GET /v1/events` on a real socket, records the id of every
 * stored event it is shown, and can drop its connection and resume with `Last-Event-ID` the way a
 * client is documented to (docs/events.md).
 */

export interface SseEvent {
  id: number;
  kind: string;
  project_id: number | null;
  task_id: number | null;
  payload: Record<string, unknown>;
}

export class SseFollower {
  readonly events: SseEvent[] = [];
  reconnects = 0;
  /** Why the stream failed on its own (not a blip or a stop); null while healthy. */
  failure: string | null = null;
  private ac: AbortController | null = null;
  private done: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly url: string,
    private readonly token: string,
  ) {}

  get lastId(): number {
    return this.events.at(-1)?.id ?? 0;
  }

  /** Connects, replaying everything after `lastId` (0: from the first event). */
  start(): void {
    const ac = new AbortController();
    this.ac = ac;
    this.done = this.read(ac);
  }

  /** Drops the connection, as a network blip would, and resumes from the last id seen. */
  async blip(): Promise<void> {
    this.ac?.abort();
    await this.done;
    this.reconnects++;
    this.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.ac?.abort();
    await this.done;
  }

  private async read(ac: AbortController): Promise<void> {
    try {
      const res = await fetch(`${this.url}/v1/events`, {
        headers: { authorization: `Bearer ${this.token}`, 'last-event-id': String(this.lastId) },
        signal: ac.signal,
      });
      if (!res.ok || !res.body) throw new Error(`GET /v1/events → ${res.status}`);
      const decoder = new TextDecoder();
      let buf = '';
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buf += decoder.decode(chunk, { stream: true });
        for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          let id: string | null = null;
          let data: string | null = null;
          for (const line of block.split('\n')) {
            if (line.startsWith('id: ')) id = line.slice(4);
            else if (line.startsWith('data: ')) data = line.slice(6);
          }
          if (id !== null && data !== null) this.events.push(JSON.parse(data) as SseEvent);
        }
      }
      if (!this.stopped && !ac.signal.aborted) throw new Error('the event stream ended');
    } catch (err) {
      if (!ac.signal.aborted) this.failure = (err as Error).message;
    }
  }
}
