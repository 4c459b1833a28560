/**
 * The durable event log. `append` writes the row inside the caller's transaction and announces it
 * to live subscribers only after that transaction commits, so a client never sees an event for a
 * change that rolled back, and every stored event is announced exactly once.
 */
import { type Clock, formatNs } from '../clock/index.js';
import type { Store } from '../store/index.js';
import type { EventKind } from './kinds.js';

export interface EventSubjects {
  project_id?: number | null;
  task_id?: number | null;
  chat_id?: number | null;
  trigger_id?: string | null;
}

export interface StoredEvent {
  id: number;
  ts: string;
  kind: EventKind;
  project_id: number | null;
  task_id: number | null;
  chat_id: number | null;
  trigger_id: string | null;
  payload: Record<string, unknown>;
}

/** Live output that is never stored: agent text, command output lines. Delivered to stream subscribers only. */
export interface LiveChunk {
  kind: string;
  task_id?: number;
  chat_id?: number;
  data: Record<string, unknown>;
}

export type EventListener = (event: StoredEvent) => void;
export type LiveListener = (chunk: LiveChunk) => void;

interface Row {
  id: number;
  ts: string;
  kind: string;
  project_id: number | null;
  task_id: number | null;
  chat_id: number | null;
  trigger_id: string | null;
  payload: string;
}

function fromRow(r: Row): StoredEvent {
  return {
    ...r,
    kind: r.kind as EventKind,
    payload: JSON.parse(r.payload) as Record<string, unknown>,
  };
}

export interface EventQuery {
  afterId: number;
  limit: number;
  taskId?: number;
  chatId?: number;
  projectId?: number;
  kinds?: readonly string[];
}

export class EventLog {
  private readonly listeners = new Set<EventListener>();
  private readonly liveListeners = new Set<LiveListener>();
  private readonly insert;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {
    this.insert = store.db.prepare(
      `INSERT INTO events (ts, kind, project_id, task_id, chat_id, trigger_id, payload)
       VALUES (@ts, @kind, @project_id, @task_id, @chat_id, @trigger_id, @payload)`,
    );
  }

  /** Appends an event in the current transaction (or its own, when called outside one). */
  append(
    kind: EventKind,
    subjects: EventSubjects,
    payload: Record<string, unknown> = {},
  ): StoredEvent {
    return this.store.join(() => {
      const event: Omit<StoredEvent, 'id'> = {
        ts: formatNs(this.clock.nowNs()),
        kind,
        project_id: subjects.project_id ?? null,
        task_id: subjects.task_id ?? null,
        chat_id: subjects.chat_id ?? null,
        trigger_id: subjects.trigger_id ?? null,
        payload,
      };
      const info = this.insert.run({ ...event, payload: JSON.stringify(payload) });
      const stored: StoredEvent = { id: Number(info.lastInsertRowid), ...event };
      this.store.afterCommit(() => this.publish(stored));
      return stored;
    });
  }

  private publish(event: StoredEvent): void {
    for (const l of this.listeners) {
      try {
        l(event);
      } catch {
        // A misbehaving subscriber must not stop the others or the writer.
      }
    }
  }

  /**
   * Whether any stream takes live output now. Command output's text is made only for one
   * (decision 251): framing a transcript needs only its bytes.
   */
  get listening(): boolean {
    return this.liveListeners.size > 0;
  }

  /** Publishes live output to stream subscribers; nothing is stored. */
  live(chunk: LiveChunk): void {
    for (const l of this.liveListeners) {
      try {
        l(chunk);
      } catch {}
    }
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  subscribeLive(listener: LiveListener): () => void {
    this.liveListeners.add(listener);
    return () => this.liveListeners.delete(listener);
  }

  /** Stored events after `afterId`, oldest first, filtered, at most `limit`. */
  query(q: EventQuery): StoredEvent[] {
    const where = ['id > @afterId'];
    const params: Record<string, unknown> = { afterId: q.afterId, limit: q.limit };
    if (q.taskId !== undefined) {
      where.push('task_id = @taskId');
      params.taskId = q.taskId;
    }
    if (q.chatId !== undefined) {
      where.push('chat_id = @chatId');
      params.chatId = q.chatId;
    }
    if (q.projectId !== undefined) {
      where.push('project_id = @projectId');
      params.projectId = q.projectId;
    }
    if (q.kinds && q.kinds.length > 0) {
      where.push(`kind IN (${q.kinds.map((_, i) => `@k${i}`).join(', ')})`);
      q.kinds.forEach((k, i) => {
        params[`k${i}`] = k;
      });
    }
    const rows = this.store.db
      .prepare(`SELECT * FROM events WHERE ${where.join(' AND ')} ORDER BY id LIMIT @limit`)
      .all(params) as Row[];
    return rows.map(fromRow);
  }

  lastId(): number {
    const row = this.store.db.prepare('SELECT MAX(id) AS id FROM events').get() as {
      id: number | null;
    };
    return row.id ?? 0;
  }
}
