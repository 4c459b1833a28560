/**
 * What the board keeps current: every task (lanes included), the projects, the agents, and the
 * stream's state, fed by `GET /v1/events`. On the first connection it reads the list; after a
 * dropped connection it resumes with `Last-Event-ID` and reads only the tasks the replayed events
 * name. A task entering a state that needs a person raises a desktop notification when the user
 * turned them on.
 */
import type { AgentRecord, Project, StoredEvent, TaskRow } from '../shared/wire-types.js';
import { type Api, ApiError } from './api.js';
import { NEEDS_YOU } from './lib/board.js';
import type { Frame } from './lib/sse.js';

export type StreamStatus = 'connecting' | 'live' | 'lost';

type Listener = () => void;

const NOTIFY_KEY = 'svc.notify';

export class Live {
  tasks = new Map<number, TaskRow>();
  projects: Project[] = [];
  agents: AgentRecord[] = [];
  status: StreamStatus = 'connecting';
  loaded = false;
  error: string | null = null;
  /** Bumped on every change, so views can key effects on it. */
  version = 0;
  private readonly listeners = new Set<Listener>();
  private readonly eventListeners = new Set<(e: StoredEvent) => void>();
  private dirty = new Set<number>();
  private flushTimer: ReturnType<typeof setTimeout> | null = null;
  private stream: { close(): void } | null = null;

  constructor(readonly api: Api) {}

  start(): void {
    this.stream = this.api.follow('/v1/events', {
      onOpen: (resumed) => {
        if (!resumed) void this.reloadAll();
        else void this.loadAgents();
      },
      onFrame: (f) => this.onFrame(f),
      onStatus: (s) => {
        this.status = s;
        this.changed();
      },
    });
  }

  stop(): void {
    this.stream?.close();
  }

  subscribe(l: Listener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  /** Durable events as they arrive (a task page reloads its detail on its own task's). */
  onEvent(l: (e: StoredEvent) => void): () => void {
    this.eventListeners.add(l);
    return () => this.eventListeners.delete(l);
  }

  private changed(): void {
    this.version++;
    for (const l of this.listeners) l();
  }

  async reloadAll(): Promise<void> {
    await Promise.all([this.loadTasks(), this.loadProjects(), this.loadAgents()]);
  }

  async loadTasks(): Promise<void> {
    try {
      const rows = await this.api.get<TaskRow[]>('/v1/tasks', {
        include_children: true,
        limit: 1000,
      });
      this.tasks = new Map(rows.map((t) => [t.id, t]));
      this.loaded = true;
      this.error = null;
    } catch (err) {
      this.error = (err as Error).message;
    }
    this.changed();
  }

  async loadProjects(): Promise<void> {
    try {
      this.projects = await this.api.get<Project[]>('/v1/projects');
      this.changed();
    } catch {}
  }

  async loadAgents(): Promise<void> {
    try {
      this.agents = (await this.api.get<{ agents: AgentRecord[] }>('/v1/agents')).agents;
      this.changed();
    } catch {}
  }

  /** A task as the page last read it, refreshed by the caller's own read (after an action). */
  put(t: TaskRow): void {
    const before = this.tasks.get(t.id);
    this.tasks.set(t.id, { ...before, ...t });
    this.changed();
  }

  private onFrame(f: Frame): void {
    if (f.id === undefined || !f.data) return;
    let e: StoredEvent;
    try {
      e = JSON.parse(f.data) as StoredEvent;
    } catch {
      return;
    }
    for (const l of this.eventListeners) l(e);
    if (/^(task|step)\./.test(e.kind) && e.task_id !== null) {
      if (e.kind === 'task.state_changed') this.maybeNotify(e);
      this.dirty.add(e.task_id);
      this.flushTimer ??= setTimeout(() => void this.flush(), 120);
    } else if (e.kind === 'agent.quota_changed') void this.loadAgents();
    else if (e.kind.startsWith('project.')) void this.loadProjects();
  }

  private async flush(): Promise<void> {
    this.flushTimer = null;
    const ids = [...this.dirty];
    this.dirty.clear();
    if (ids.length > 25) return this.loadTasks();
    await Promise.all(
      ids.map(async (id) => {
        try {
          const t = await this.api.get<TaskRow>(`/v1/tasks/${id}`);
          this.tasks.set(id, t);
        } catch (err) {
          if (err instanceof ApiError && err.status === 404) this.tasks.delete(id);
        }
      }),
    );
    this.changed();
  }

  // --- desktop notifications (opt-in) ---

  get notifying(): boolean {
    return (
      typeof Notification !== 'undefined' &&
      Notification.permission === 'granted' &&
      localStorage.getItem(NOTIFY_KEY) === 'on'
    );
  }

  async setNotifying(on: boolean): Promise<void> {
    if (on && typeof Notification !== 'undefined' && Notification.permission !== 'granted')
      await Notification.requestPermission();
    localStorage.setItem(NOTIFY_KEY, on ? 'on' : 'off');
    this.changed();
  }

  private maybeNotify(e: StoredEvent): void {
    const to = String(e.payload.to ?? '');
    if (!NEEDS_YOU.has(to) || !this.notifying || e.task_id === null) return;
    const id = e.task_id;
    const why =
      to === 'awaiting_gate'
        ? 'waits for your approval'
        : to === 'awaiting_input'
          ? 'has a question for you'
          : 'is blocked';
    // The event names the task (SPEC's notify envelope): a task created a moment ago can reach
    // its gate before the board has read its row.
    const title =
      typeof e.payload.title === 'string'
        ? e.payload.title
        : (this.tasks.get(id)?.title ?? `task ${id}`);
    const n = new Notification(`#${id} ${why}`, { body: title, tag: `svc-task-${id}` });
    n.onclick = () => {
      window.focus();
      location.hash = `#/tasks/${id}`;
      n.close();
    };
  }
}
