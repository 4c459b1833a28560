/**
 * Judging and acting, and the ledger rows they write (SPEC §4.6): each event is judged (judge.ts,
 * shared with the dry runs) and its verdict becomes exactly one delivery row. Acting replays the
 * HTTP route the action names through the app itself, so a trigger can do nothing a client could
 * not, and a 4xx becomes outcome `refused` with the route's envelope (decision 082). Callers hold
 * the trigger's serial chain (chains.ts).
 */
import { createHash } from 'node:crypto';
import { formatMs, formatNs } from '../clock/index.js';
import { canonicalJson } from '../engine/index.js';
import type { TriggerEvent } from '../plugin/index.js';
import type { Project } from '../projects/index.js';
import type {
  TriggerDeliveriesTable,
  TriggerDeliveryRow,
  TriggerQueueTable,
  TriggerStateTable,
} from '../store/index.js';
import { type RuntimeParts, SETTLED, type TriggerServiceDeps } from './armed.js';
import { onFireOf, type TriggerDefinition } from './definition.js';
import { type JudgeContext, type Judgement, judge } from './judge.js';

export interface ReplayRequest {
  method: 'POST';
  path: string;
  body: unknown;
  headers?: Record<string, string>;
}
export interface ReplayResponse {
  status: number;
  body: unknown;
}
/** Sends a request through the HTTP app, as a client would (kernel.ts wires `inject`). */
export type Replay = (req: ReplayRequest) => Promise<ReplayResponse>;

/** The event id of an event object: its `id` (string or number), else a digest of its content. */
export function eventIdOf(event: Record<string, unknown>): string {
  const id = event.id;
  if (typeof id === 'string' && id !== '') return id;
  if (typeof id === 'number' && Number.isFinite(id)) return String(id);
  return `sha256:${createHash('sha256').update(canonicalJson(event)).digest('hex')}`;
}

export class TriggerFiring {
  /** Set by TriggerService.start; the app is built after the service. */
  replayFn: Replay | null = null;

  private readonly d: TriggerServiceDeps;
  private readonly state: TriggerStateTable;
  private readonly deliveries: TriggerDeliveriesTable;
  private readonly queue: TriggerQueueTable;

  constructor(p: RuntimeParts) {
    this.d = p.d;
    this.state = p.state;
    this.deliveries = p.deliveries;
    this.queue = p.queue;
  }

  judgeContext(def: TriggerDefinition, project: Project, seeding: boolean): JudgeContext {
    const tasks = this.d.engine.tasks;
    const ref = (t: { id: number; branch_name: string | null; state: string } | undefined) =>
      t ? { id: t.id, branch_name: t.branch_name, state: t.state } : undefined;
    return {
      triggerId: def.id,
      project: {
        id: project.id,
        name: project.name,
        path: project.path,
        default_branch: project.default_branch,
      },
      now: this.d.clock.now(),
      seeding,
      holdsKey: (key) => this.deliveries.holdsKey(def.id, key) || this.queue.holdsKey(def.id, key),
      firedLastHour: () =>
        this.deliveries.firedSince(
          def.id,
          formatNs(BigInt(this.d.clock.now() - 3_600_000) * 1_000_000n),
        ),
      inFlight: (key) => this.inFlight(def.id, key),
      task: (tid) => ref(tasks.get(tid)),
      taskOnBranch: (branch) => ref(tasks.claimOf(project.id, branch)),
    };
  }

  inFlight(triggerId: string, key: string): number[] {
    return this.deliveries.firedTasks(triggerId, key).filter((id) => {
      const t = this.d.engine.tasks.get(id);
      return t !== undefined && !SETTLED.has(t.state);
    });
  }

  private insert(
    def: TriggerDefinition,
    j: Judgement,
    extra: Partial<TriggerDeliveryRow> = {},
  ): TriggerDeliveryRow {
    return this.deliveries.insert({
      trigger_id: def.id,
      event_id: j.event_id,
      dedupe_key: j.dedupe_key ?? null,
      concurrency_key: j.concurrency_key ?? null,
      outcome: j.outcome,
      task_id: null,
      superseded_task_id: null,
      detail: null,
      created_at: formatNs(this.d.clock.nowNs()),
      ...extra,
    });
  }

  /** Judges one event and acts on the verdict. Callers hold the trigger's serial chain. */
  async deliverNow(
    def: TriggerDefinition,
    event: TriggerEvent,
    seeding: boolean,
  ): Promise<TriggerDeliveryRow> {
    const project = this.d.projects.get(def.project_id);
    const normalized = { ...event, id: eventIdOf(event) };
    if (!project) {
      return this.insert(
        def,
        { event_id: normalized.id, matched: false, outcome: 'error' },
        { detail: JSON.stringify({ message: `project ${def.project_id} not found` }) },
      );
    }
    const j = judge(def, normalized, this.judgeContext(def, project, seeding));
    return this.act(def, project, j, normalized);
  }

  private async act(
    def: TriggerDefinition,
    project: Project,
    j: Judgement,
    event: TriggerEvent,
  ): Promise<TriggerDeliveryRow> {
    switch (j.outcome) {
      case 'fired':
        return this.fire(def, project, j);
      case 'queued':
        return this.d.store.tx(() => {
          const row = this.insert(def, j);
          this.queue.insert({
            trigger_id: def.id,
            delivery_id: row.id,
            dedupe_key: j.dedupe_key ?? null,
            concurrency_key: j.concurrency_key ?? '',
            event: JSON.stringify(event),
            created_at: row.created_at,
          });
          return row;
        });
      case 'refused':
      case 'error': {
        const detail = j.envelope ?? { message: j.error ?? 'error' };
        return this.d.store.tx(() => {
          const row = this.insert(def, j, { detail: JSON.stringify(detail) });
          this.announceRefusal(def, project, row);
          return row;
        });
      }
      default:
        return this.insert(def, j);
    }
  }

  private announceRefusal(def: TriggerDefinition, project: Project, row: TriggerDeliveryRow): void {
    this.d.events.append(
      'trigger.refused',
      { trigger_id: def.id, project_id: project.id, task_id: row.task_id },
      { delivery_id: row.id, event_id: row.event_id, outcome: row.outcome },
    );
  }

  private replay(req: ReplayRequest, def: TriggerDefinition): Promise<ReplayResponse> {
    if (!this.replayFn) throw new Error('the trigger runtime has no route to replay through');
    return this.replayFn({
      ...req,
      headers: { 'x-svc-trigger': def.id, ...(req.headers ?? {}) },
    });
  }

  private async fire(
    def: TriggerDefinition,
    project: Project,
    j: Judgement,
  ): Promise<TriggerDeliveryRow> {
    const action = j.action;
    if (!action)
      return this.insert(
        def,
        { ...j, outcome: 'error' },
        { detail: JSON.stringify({ message: 'no action' }) },
      );
    let superseded: number | null = null;
    if (j.would_cancel) {
      for (const id of j.in_flight ?? []) {
        const r = await this.replay(
          { method: 'POST', path: `/v1/tasks/${id}/cancel`, body: null },
          def,
        );
        if (r.status < 300) superseded = id;
      }
    }
    // A proposed follow-up or retry lands held: the engine's own "paused when held" path.
    const hold =
      onFireOf(def) === 'propose' &&
      (action.type === 'follow_up' || action.type === 'retry') &&
      action.task_id !== undefined
        ? this.d.engine.tasks.get(action.task_id)
        : undefined;
    if (hold) this.d.engine.states.patch(hold.id, hold.state, { pause_requested: 1 });
    const headers: Record<string, string> = {};
    if (action.type === 'create_task' && j.dedupe_key !== undefined)
      headers['idempotency-key'] = idempotencyKey(def.id, j.dedupe_key);
    let res: ReplayResponse;
    try {
      res = await this.replay(
        { method: 'POST', path: action.path, body: action.body, headers },
        def,
      );
    } catch (err) {
      res = { status: 500, body: { error: { code: 'internal', message: (err as Error).message } } };
    }
    if (res.status >= 300 && hold) {
      const now = this.d.engine.tasks.get(hold.id);
      if (now?.pause_requested === 1)
        this.d.engine.states.patch(now.id, now.state, { pause_requested: 0 });
    }
    if (res.status < 300) {
      const body = res.body as { id?: unknown } | null;
      const taskId =
        action.type === 'create_task'
          ? typeof body?.id === 'number'
            ? body.id
            : null
          : (action.task_id ?? null);
      return this.d.store.tx(() => {
        const row = this.insert(def, j, { task_id: taskId, superseded_task_id: superseded });
        this.state.upsert(def.id, { last_fire_at: formatMs(this.d.clock.now()) });
        this.d.events.append(
          'trigger.fired',
          { trigger_id: def.id, project_id: project.id, task_id: taskId },
          {
            delivery_id: row.id,
            event_id: row.event_id,
            action: action.type,
            ...(superseded !== null ? { superseded_task_id: superseded } : {}),
          },
        );
        return row;
      });
    }
    const outcome = res.status < 500 ? 'refused' : 'error';
    return this.d.store.tx(() => {
      const row = this.insert(
        def,
        { ...j, outcome },
        {
          task_id: action.task_id ?? null,
          superseded_task_id: superseded,
          detail: JSON.stringify(res.body),
        },
      );
      this.announceRefusal(def, project, row);
      return row;
    });
  }
}

/** One key per trigger and dedupe key, so a crash between the create and its ledger row cannot make two tasks. */
export function idempotencyKey(triggerId: string, dedupeKey: string): string {
  return `svc-trigger:${createHash('sha256').update(`${triggerId}\0${dedupeKey}`).digest('hex')}`;
}
