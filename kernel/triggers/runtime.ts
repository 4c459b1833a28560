/**
 * The trigger runtime (SPEC §2.6, §4.6): keeps every armed trigger running — a poll loop on the
 * injected clock for poll sources, an anchored croner schedule for schedule sources, the ingress
 * for push sources — and turns each event into one ledger row. Judging is judge.ts (shared with
 * the dry runs); acting replays the HTTP route the action names through the app itself, so a
 * trigger can do nothing a client could not, and a 4xx becomes outcome `refused` with the
 * route's envelope (decision 082). Deliveries of one trigger are serialized, so dedupe, the rate
 * limit and the overrun check always see the rows written before them.
 * The cursor exists only while the trigger is armed: disarming drops it, so the first poll after
 * arming seeds again (decision 084).
 */
import { createHash } from 'node:crypto';
import { type FSWatcher, watch } from 'chokidar';
import type { Logger } from 'pino';
import { type Clock, formatMs, formatNs, type Timer } from '../clock/index.js';
import type { ConfigService } from '../config/index.js';
import type { Paths } from '../daemon/paths.js';
import { ensurePrivateDir } from '../daemon/paths.js';
import type { Engine } from '../engine/index.js';
import { canonicalJson } from '../engine/index.js';
import { SvcError } from '../errors.js';
import type { EventLog } from '../events/index.js';
import type { ForgeService } from '../forge/index.js';
import type {
  IngressRequest,
  Registry,
  TriggerEvent,
  TriggerPollContext,
  TriggerSource,
} from '../plugin/index.js';
import { capture, resolveEnvironment } from '../proc/index.js';
import type { Project, ProjectService } from '../projects/index.js';
import {
  type Store,
  TriggerDeliveriesTable,
  type TriggerDeliveryRow,
  TriggerQueueTable,
  TriggerStateTable,
} from '../store/index.js';
import { onFireOf, type TriggerDefinition } from './definition.js';
import { type TriggerFile, TriggerFiles } from './files.js';
import { type JudgeContext, type Judgement, judge } from './judge.js';
import { type DeliveryView, deliveryView, disarmedReason } from './view.js';

/** SPEC §8: a poll hands at most this many events to the pipeline. */
export const MAX_EVENTS_PER_POLL = 20;
const SETTLED = new Set(['done', 'aborted', 'archived']);
/** Bounds the catch-up walk of a schedule whose daemon was down for a long time. */
const MAX_CATCH_UP_STEPS = 100_000;

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

export interface TriggerServiceDeps {
  paths: Paths;
  registry: Registry;
  config: ConfigService;
  clock: Clock;
  logger: Logger;
  store: Store;
  events: EventLog;
  projects: ProjectService;
  engine: Engine;
  forge: ForgeService;
}

interface Active {
  id: string;
  version: string;
  def: TriggerDefinition;
  source: TriggerSource;
  timer: Timer | null;
  abort: AbortController;
}

export function sourceDigest(def: TriggerDefinition): string {
  return createHash('sha256')
    .update(canonicalJson({ project: def.project_id, source: def.source }))
    .digest('hex')
    .slice(0, 16);
}

/** The event id of an event object: its `id` (string or number), else a digest of its content. */
export function eventIdOf(event: Record<string, unknown>): string {
  const id = event.id;
  if (typeof id === 'string' && id !== '') return id;
  if (typeof id === 'number' && Number.isFinite(id)) return String(id);
  return `sha256:${createHash('sha256').update(canonicalJson(event)).digest('hex')}`;
}

export class TriggerService {
  readonly files: TriggerFiles;
  readonly state: TriggerStateTable;
  readonly deliveries: TriggerDeliveriesTable;
  readonly queue: TriggerQueueTable;
  private replayFn: Replay | null = null;
  private readonly active = new Map<string, Active>();
  private readonly chains = new Map<string, Promise<unknown>>();
  private readonly pending = new Set<Promise<unknown>>();
  private readonly versions = new Map<string, string>();
  private watcher: FSWatcher | null = null;
  private reloadTimer: NodeJS.Timeout | null = null;
  private unsubscribers: Array<() => void> = [];
  private started = false;

  constructor(private readonly d: TriggerServiceDeps) {
    this.files = new TriggerFiles(d.paths.triggersDir, {
      source: (type) => d.registry.triggerSource(type),
      sourceTypes: () => d.registry.listTriggerSources().map((s) => s.type),
      projectExists: (id) => d.projects.get(id) !== undefined,
    });
    this.state = new TriggerStateTable(d.store.db);
    this.deliveries = new TriggerDeliveriesTable(d.store.db);
    this.queue = new TriggerQueueTable(d.store.db);
  }

  get globalOn(): boolean {
    return this.d.config.current().triggers.enabled;
  }

  /** Arms what should run, watches the directory and the config. Call once. */
  start(replay: Replay, opts: { watch?: boolean } = {}): void {
    this.replayFn = replay;
    this.started = true;
    ensurePrivateDir(this.d.paths.triggersDir);
    this.files.tighten();
    for (const f of this.files.list()) this.versions.set(f.id, f.version);
    this.unsubscribers.push(
      this.d.config.onChange((next, prev) => {
        if (next.triggers.enabled !== prev.triggers.enabled) this.reconcile();
      }),
      this.d.engine.states.onTransition((task) => {
        if (SETTLED.has(task.state)) this.releaseQueues();
      }),
    );
    if (opts.watch !== false) {
      this.watcher = watch(this.d.paths.triggersDir, {
        ignoreInitial: true,
        depth: 0,
        awaitWriteFinish: { stabilityThreshold: 50, pollInterval: 20 },
      });
      const onFs = () => {
        if (this.reloadTimer) clearTimeout(this.reloadTimer);
        this.reloadTimer = setTimeout(() => {
          this.reloadTimer = null;
          this.reload('file');
        }, 50);
      };
      // chokidar reports nothing for files that appear before its first scan ends (they are
      // "initial"), so a file written just after start-up would wait for its next edit: read the
      // directory once more when the watcher is ready.
      this.watcher.on('add', onFs).on('change', onFs).on('unlink', onFs).on('ready', onFs);
    }
    this.reconcile();
  }

  async stop(): Promise<void> {
    this.started = false;
    for (const u of this.unsubscribers) u();
    this.unsubscribers = [];
    if (this.reloadTimer) clearTimeout(this.reloadTimer);
    await this.watcher?.close();
    this.watcher = null;
    for (const a of this.active.values()) this.halt(a);
    this.active.clear();
    await this.idle();
  }

  /** Resolves when no poll, delivery or release is in progress (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p)).catch(() => {});
    return p;
  }

  /** Runs `fn` after every earlier delivery of the same trigger. */
  private serial<T>(id: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.chains.get(id) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    const settled = next.catch(() => {});
    this.chains.set(id, settled);
    void settled.then(() => {
      if (this.chains.get(id) === settled) this.chains.delete(id);
    });
    return this.track(next);
  }

  /** Re-reads the directory after a write or a file change and announces what changed. */
  reload(source: 'api' | 'file'): void {
    const files = this.files.list();
    const changed: string[] = [];
    const seen = new Set<string>();
    for (const f of files) {
      seen.add(f.id);
      if (this.versions.get(f.id) !== f.version) changed.push(f.id);
      this.versions.set(f.id, f.version);
    }
    for (const id of [...this.versions.keys()])
      if (!seen.has(id)) {
        this.versions.delete(id);
        changed.push(id);
      }
    if (changed.length > 0) {
      this.files.tighten();
      for (const id of changed.sort())
        this.d.events.append(
          'trigger.changed',
          { trigger_id: id },
          { source, removed: !seen.has(id) },
        );
    }
    this.reconcile(files);
  }

  /** Starts, restarts and stops loops so exactly the armed triggers run. */
  reconcile(files: TriggerFile[] = this.files.list()): void {
    if (!this.started) return;
    const globalOn = this.globalOn;
    const armed = new Map<string, TriggerFile>();
    for (const f of files) if (disarmedReason(f, globalOn) === null) armed.set(f.id, f);
    for (const [id, a] of this.active) {
      const f = armed.get(id);
      if (!f || f.version !== a.version) {
        this.halt(a);
        this.active.delete(id);
      }
    }
    for (const f of files) {
      if (armed.has(f.id)) continue;
      const s = this.state.get(f.id);
      if (s && (s.seeded === 1 || s.cursor !== null))
        this.state.upsert(f.id, { cursor: null, seeded: 0, source_digest: null });
    }
    for (const [id, f] of armed) {
      if (this.active.has(id)) continue;
      const def = f.validation.definition as TriggerDefinition;
      const source = this.d.registry.triggerSource(def.source.type) as TriggerSource;
      const a: Active = {
        id,
        version: f.version,
        def,
        source,
        timer: null,
        abort: new AbortController(),
      };
      this.active.set(id, a);
      if (source.meta.kind === 'poll') this.track(this.pollLoop(a));
      else if (source.meta.kind === 'schedule') this.armSchedule(a);
    }
    this.releaseQueues();
  }

  private halt(a: Active): void {
    a.timer?.cancel();
    a.timer = null;
    a.abort.abort(new Error('trigger disarmed'));
  }

  private isCurrent(a: Active): boolean {
    return this.active.get(a.id) === a && !a.abort.signal.aborted;
  }

  projectExists(id: number): boolean {
    return this.d.projects.get(id) !== undefined;
  }

  projectOf(def: TriggerDefinition): Project | undefined {
    return this.d.projects.get(def.project_id);
  }

  sourceOf(def: TriggerDefinition): TriggerSource | undefined {
    return this.d.registry.triggerSource(def.source.type);
  }

  isArmed(id: string): boolean {
    return this.active.has(id);
  }

  // ---- poll sources --------------------------------------------------------------------------

  pollContext(def: TriggerDefinition, project: Project, signal: AbortSignal): TriggerPollContext {
    return {
      triggerId: def.id,
      project: {
        id: project.id,
        name: project.name,
        path: project.path,
        default_branch: project.default_branch,
      },
      maxEvents: MAX_EVENTS_PER_POLL,
      signal,
      run: (argv, opts) =>
        capture({
          argv,
          cwd: project.path,
          env: { ...resolveEnvironment(this.d.config.current().environment), ...opts.env },
          clock: this.d.clock,
          timeoutMs: opts.timeoutMs,
          signal,
          maxOutputBytes: opts.maxOutputBytes,
        }),
      forge: () => this.d.forge.resolve(project, signal),
    };
  }

  /** Whether the next real poll seeds: never polled since arming, or the source block changed. */
  seedsNext(def: TriggerDefinition): boolean {
    const s = this.state.get(def.id);
    return !this.isArmed(def.id) || !s || s.seeded !== 1 || s.source_digest !== sourceDigest(def);
  }

  private async pollLoop(a: Active): Promise<void> {
    if (!this.isCurrent(a)) return;
    // A poll whose writes were refused (a full disk) is logged and polled again at the next
    // interval, rather than ending the loop (issue 17).
    await this.serial(a.id, () => this.pollOnce(a)).catch((err: unknown) => {
      this.d.logger.error({ trigger: a.id, err: (err as Error).message }, 'trigger poll failed');
    });
    if (!this.isCurrent(a)) return;
    const ms = a.source.interval?.(a.def.source) ?? 5 * 60_000;
    a.timer = this.d.clock.setTimer(ms, () => {
      a.timer = null;
      this.track(this.pollLoop(a));
    });
  }

  private async pollOnce(a: Active): Promise<void> {
    const { def } = a;
    const project = this.d.projects.get(def.project_id);
    if (!project || !a.source.poll) return;
    const seeding = this.seedsNext(def);
    const prev = this.state.get(def.id);
    // null tells the source this poll seeds; '' is a seeded source that printed no watermark.
    const cursor = seeding ? null : (prev?.cursor ?? '');
    let result: Awaited<ReturnType<NonNullable<TriggerSource['poll']>>>;
    try {
      result = await a.source.poll(
        this.pollContext(def, project, a.abort.signal),
        def.source,
        cursor,
      );
    } catch (err) {
      result = { ok: false, error: `the source failed: ${(err as Error).message}` };
    }
    if (!this.isCurrent(a)) return;
    const now = formatMs(this.d.clock.now());
    if (!result.ok) {
      this.state.upsert(def.id, { last_poll_at: now, ok: 0, error: result.error });
      this.d.logger.warn({ trigger: def.id, error: result.error }, 'trigger poll failed');
      return;
    }
    for (const event of result.events) await this.deliverNow(def, event, seeding);
    // Past the cap (decision 196): what the cursor leaves for the next poll comes again; what it
    // moved past is recorded, `seeded` when this poll seeds (it predates arming), else `truncated`.
    const dropped = result.dropped ?? [];
    if (seeding) for (const event of dropped) await this.deliverNow(def, event, true);
    else if (dropped.length > 0) this.recordTruncated(def, dropped);
    if (result.truncated > 0)
      this.d.logger.warn(
        {
          trigger: def.id,
          held_back: result.truncated,
          truncated: seeding ? 0 : dropped.length,
          cap: MAX_EVENTS_PER_POLL,
        },
        'trigger poll held events back past the per-poll cap',
      );
    this.state.upsert(def.id, {
      cursor: result.cursor ?? cursor,
      seeded: 1,
      source_digest: sourceDigest(def),
      last_poll_at: now,
      ok: 1,
      error: null,
      held_back: result.truncated,
      truncated: seeding ? 0 : dropped.length,
    });
  }

  /** Ledger rows for events past the cap that no later poll will show (outcome `truncated`). */
  private recordTruncated(def: TriggerDefinition, events: TriggerEvent[]): void {
    const detail = JSON.stringify({
      message: `past the ${MAX_EVENTS_PER_POLL}-event cap of one poll, and the source's cursor moved past it: not judged and never acted on`,
    });
    this.d.store.tx(() => {
      for (const event of events)
        this.deliveries.insert({
          trigger_id: def.id,
          event_id: eventIdOf(event),
          dedupe_key: null,
          concurrency_key: null,
          outcome: 'truncated',
          task_id: null,
          superseded_task_id: null,
          detail,
          created_at: formatNs(this.d.clock.nowNs()),
        });
    });
  }

  /** Runs one poll now, outside the timer (CLI and tests); the loop keeps its own schedule. */
  pollNow(id: string): Promise<void> {
    const a = this.active.get(id);
    if (a?.source.meta.kind !== 'poll') return Promise.resolve();
    return this.serial(id, () => this.pollOnce(a));
  }

  // ---- schedule sources ----------------------------------------------------------------------

  private armSchedule(a: Active): void {
    const sched = a.source.schedule?.(a.def.source);
    if (!sched) return;
    const now = this.d.clock.now();
    const s = this.state.get(a.id);
    const digest = sourceDigest(a.def);
    let anchor: Date;
    if (s?.seeded !== 1 || s.source_digest !== digest || !s.cursor) {
      // Seeding: the clock is anchored now, so nothing that was due before arming fires.
      anchor = new Date(now);
      this.state.upsert(a.id, {
        cursor: anchor.toISOString(),
        seeded: 1,
        source_digest: digest,
        last_poll_at: formatMs(now),
        ok: 1,
        error: null,
      });
    } else {
      anchor = new Date(s.cursor);
      // Occurrences missed while the daemon was down fire once, as the latest of them.
      let last: Date | null = null;
      let t = anchor;
      for (let i = 0; i < MAX_CATCH_UP_STEPS; i++) {
        const n = sched.next(t);
        if (!n || n.getTime() > now) break;
        last = n;
        t = n;
      }
      if (last) {
        const at = last;
        void this.fireOccurrence(a, at);
        anchor = at;
      }
    }
    this.armNext(a, anchor);
  }

  private armNext(a: Active, anchor: Date): void {
    if (!this.isCurrent(a)) return;
    const sched = a.source.schedule?.(a.def.source);
    const next = sched?.next(anchor);
    if (!next) return;
    a.timer = this.d.clock.setTimer(next.getTime() - this.d.clock.now(), () => {
      a.timer = null;
      void this.fireOccurrence(a, next);
      this.armNext(a, next);
    });
  }

  private fireOccurrence(a: Active, at: Date): Promise<unknown> {
    const sched = a.source.schedule?.(a.def.source);
    if (!sched) return Promise.resolve();
    try {
      this.state.upsert(a.id, {
        cursor: at.toISOString(),
        last_poll_at: formatMs(this.d.clock.now()),
        ok: 1,
        error: null,
      });
    } catch (err) {
      // Called from a timer: a refused write (a full disk) is logged, never an uncaught
      // exception; the occurrence is not delivered without its cursor (issue 17, decision 181).
      this.d.logger.error(
        { trigger: a.id, err: (err as Error).message },
        'trigger occurrence not recorded',
      );
      return Promise.resolve();
    }
    return this.serial(a.id, () => this.deliverNow(a.def, sched.event(at), false));
  }

  // ---- push sources --------------------------------------------------------------------------

  /** POST /v1/triggers/{id}/events: one signed event, answered with its delivery. */
  async ingress(id: string, req: Omit<IngressRequest, 'now' | 'env'>): Promise<DeliveryView> {
    const file = this.files.read(id);
    if (!file) throw new SvcError('not_found', `trigger ${id} not found`);
    const def = file.validation.definition;
    if (!def)
      throw new SvcError('invalid_state', `trigger ${id} does not validate`, { reason: 'invalid' });
    const source = this.d.registry.triggerSource(def.source.type);
    if (!source?.accept || source.meta.kind !== 'push')
      throw new SvcError(
        'invalid_state',
        `trigger ${id} has a ${def.source.type} source, which takes no pushed events`,
        {
          reason: 'not_push_source',
        },
      );
    const reason = disarmedReason(file, this.globalOn);
    if (reason)
      throw new SvcError('invalid_state', `trigger ${id} is not armed (${reason})`, { reason });
    const accepted = source.accept(def.source, {
      ...req,
      now: this.d.clock.now(),
      env: resolveEnvironment(this.d.config.current().environment),
    });
    if (!accepted.ok) {
      if (accepted.reason === 'not_an_event')
        throw new SvcError('validation_failed', accepted.message, { field: 'body' });
      if (accepted.reason === 'event_id_invalid')
        throw new SvcError('validation_failed', accepted.message, { field: 'X-Svc-Event-Id' });
      throw new SvcError('unauthorized', accepted.message, { reason: accepted.reason });
    }
    const row = await this.serial(id, () => this.deliverNow(def, accepted.event, false));
    return deliveryView(row);
  }

  // ---- judging and acting --------------------------------------------------------------------

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
  private async deliverNow(
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

  /** Releases queued events whose concurrency key has nothing in flight any more. */
  releaseQueues(): void {
    if (!this.started) return;
    for (const id of this.queue.triggers()) {
      const a = this.active.get(id);
      if (!a) continue;
      void this.serial(id, () => this.releaseFor(a));
    }
  }

  private async releaseFor(a: Active): Promise<void> {
    for (const entry of this.queue.ofTrigger(a.id)) {
      if (!this.isCurrent(a)) return;
      if (this.inFlight(a.id, entry.concurrency_key).length > 0) continue;
      if (!this.queue.delete(entry.id)) continue;
      const event = JSON.parse(entry.event) as TriggerEvent;
      await this.deliverNow(a.def, event, false);
    }
  }

  // ---- reads ---------------------------------------------------------------------------------

  ledger(id: string, limit: number): DeliveryView[] {
    return this.deliveries.recent(id, limit).map(deliveryView);
  }

  /** Forgets a deleted trigger's cursor and queue; its ledger stays (SPEC §4.6 DELETE). */
  forget(id: string): void {
    const a = this.active.get(id);
    if (a) {
      this.halt(a);
      this.active.delete(id);
    }
    this.d.store.tx(() => {
      this.state.delete(id);
      this.queue.deleteOfTrigger(id);
    });
  }
}

/** One key per trigger and dedupe key, so a crash between the create and its ledger row cannot make two tasks. */
export function idempotencyKey(triggerId: string, dedupeKey: string): string {
  return `svc-trigger:${createHash('sha256').update(`${triggerId}\0${dedupeKey}`).digest('hex')}`;
}
