/**
 * Server-sent events framing (docs/events.md). A durable event is `id: <n>`, `event: <kind>`,
 * `data: <json>`; live output has no `id:` so a reconnecting client's `Last-Event-ID` only ever
 * names stored events. Replay and live delivery never leave a gap: the stream subscribes first,
 * buffers live events while it pages through the stored ones, then drains the buffer past the
 * last replayed id. A slow client is cut off (it resumes with Last-Event-ID) rather than growing
 * the daemon's memory without bound.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SvcError } from '../errors.js';
import type { EventLog, EventQuery, LiveChunk, StoredEvent } from '../events/index.js';

export interface StreamFilter {
  taskId?: number;
  chatId?: number;
  projectId?: number;
  kinds?: string[];
  /** Extra predicate on stored events (e.g. a task's subtree). */
  accept?: (e: StoredEvent) => boolean;
  /** Which live chunks this stream forwards; none when absent. */
  acceptLive?: (c: LiveChunk) => boolean;
}

export interface SseOptions {
  heartbeatMs: number;
  /** Buffered bytes past which a client is considered stuck and disconnected. */
  maxBufferedBytes?: number;
  replayPage?: number;
}

export function parseLastEventId(req: FastifyRequest): number {
  const raw =
    req.headers['last-event-id'] ??
    (req.query as Record<string, string | undefined>)?.last_event_id;
  if (raw === undefined || raw === '') return -1;
  const text = Array.isArray(raw) ? raw[0] : raw;
  if (!text || !/^\d{1,15}$/.test(text)) {
    throw new SvcError(
      'validation_failed',
      'Last-Event-ID must be a non-negative integer event id',
      {
        field: 'Last-Event-ID',
      },
    );
  }
  return Number(text);
}

export function frameEvent(e: StoredEvent): string {
  return `id: ${e.id}\nevent: ${e.kind}\ndata: ${JSON.stringify(e)}\n\n`;
}

export function frameLive(c: LiveChunk): string {
  return `event: ${c.kind}\ndata: ${JSON.stringify({ ...c.data, task_id: c.task_id, chat_id: c.chat_id })}\n\n`;
}

/** Frames already made, by chunk: every stream is handed the same chunk object (EventLog.live). */
const liveFrames = new WeakMap<LiveChunk, Buffer>();

/**
 * A live chunk's frame as bytes, made once however many streams forward it (decision 246): a
 * chunk of command output is up to ~100 KiB of text, and each follower stringified and encoded
 * it again. Streams only write it, never change it.
 */
export function sharedLiveFrame(c: LiveChunk): Buffer {
  let frame = liveFrames.get(c);
  if (!frame) {
    frame = Buffer.from(frameLive(c));
    liveFrames.set(c, frame);
  }
  return frame;
}

export interface OpenStreams {
  closeAll(): void;
}

/** Tracks open streams so a stopping daemon can end them. */
export class StreamSet implements OpenStreams {
  private readonly closers = new Set<() => void>();
  add(close: () => void): () => void {
    this.closers.add(close);
    return () => this.closers.delete(close);
  }
  closeAll(): void {
    for (const c of [...this.closers]) c();
  }
  get size(): number {
    return this.closers.size;
  }
}

function matches(e: StoredEvent, f: StreamFilter): boolean {
  if (f.taskId !== undefined && e.task_id !== f.taskId) return false;
  if (f.chatId !== undefined && e.chat_id !== f.chatId) return false;
  if (f.projectId !== undefined && e.project_id !== f.projectId) return false;
  if (f.kinds && f.kinds.length > 0 && !f.kinds.includes(e.kind)) return false;
  if (f.accept && !f.accept(e)) return false;
  return true;
}

/** The daemon's log, open-stream set and heartbeat: what every event route streams from. */
export interface StreamSources {
  events: EventLog;
  streams: StreamSet;
  heartbeatMs: number;
}

/**
 * The one way a route opens a stream, so the task, chat and global streams cannot drift apart
 * in how they honour `Last-Event-ID` or which heartbeat they keep. A bad header is refused before
 * the reply is hijacked, while it can still be an ordinary error response.
 */
export function streamForRequest(
  req: FastifyRequest,
  reply: FastifyReply,
  src: StreamSources,
  filter: StreamFilter,
): void {
  const last = parseLastEventId(req);
  streamEvents(req, reply, src.events, src.streams, filter, last, { heartbeatMs: src.heartbeatMs });
}

/**
 * Streams events to the client until it disconnects or the daemon stops. `lastEventId` of -1
 * (no header) means live only; n ≥ 0 replays every stored event with id > n first.
 */
export function streamEvents(
  req: FastifyRequest,
  reply: FastifyReply,
  log: EventLog,
  streams: StreamSet,
  filter: StreamFilter,
  lastEventId: number,
  opts: SseOptions,
): void {
  const res = reply.raw;
  reply.hijack();
  req.raw.socket.setTimeout(0);
  req.raw.socket.setNoDelay(true);
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.write(': connected\n\n');

  const maxBuffered = opts.maxBufferedBytes ?? 8 * 1024 * 1024;
  let closed = false;
  let replaying = lastEventId >= 0;
  let cursor = Math.max(0, lastEventId);
  const buffered: StoredEvent[] = [];

  const write = (chunk: string | Buffer) => {
    if (closed) return;
    res.write(chunk);
    if (res.writableLength > maxBuffered) close();
  };

  const unsubscribe = log.subscribe((e) => {
    if (!matches(e, filter)) return;
    if (replaying) buffered.push(e);
    else if (e.id > cursor) {
      cursor = e.id;
      write(frameEvent(e));
    }
  });
  const unsubscribeLive = filter.acceptLive
    ? log.subscribeLive((c) => {
        if (!replaying && filter.acceptLive?.(c)) write(sharedLiveFrame(c));
      })
    : () => {};
  const heartbeat = setInterval(() => write(': heartbeat\n\n'), opts.heartbeatMs);
  heartbeat.unref();

  function close() {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    unsubscribe();
    unsubscribeLive();
    untrack();
    res.end();
  }
  const untrack = streams.add(close);
  req.raw.on('close', close);
  res.on('error', close);

  if (!replaying) return;
  // Page through stored events asynchronously so a 100k-event replay does not block the daemon.
  const page = opts.replayPage ?? 1000;
  const q: EventQuery = {
    afterId: cursor,
    limit: page,
    taskId: filter.taskId,
    chatId: filter.chatId,
    projectId: filter.projectId,
    kinds: filter.kinds,
  };
  const pump = () => {
    if (closed) return;
    const rows = log.query({ ...q, afterId: cursor });
    // One write per page, not per frame: a 100,000-event replay was 100,000 socket writes.
    let chunk = '';
    for (const e of rows) {
      cursor = e.id;
      if (!filter.accept || filter.accept(e)) chunk += frameEvent(e);
    }
    if (chunk) res.write(chunk);
    if (rows.length === page) {
      if (res.writableLength > maxBuffered / 2) res.once('drain', () => setImmediate(pump));
      else setImmediate(pump);
      return;
    }
    replaying = false;
    for (const e of buffered) {
      if (e.id > cursor) {
        cursor = e.id;
        write(frameEvent(e));
      }
    }
    buffered.length = 0;
  };
  pump();
}
