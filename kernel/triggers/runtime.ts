/**
 * The trigger runtime (SPEC §2.6, §4.6): keeps every armed trigger running — a poll loop on the
 * injected clock for poll sources (poll-loop.ts), an anchored croner schedule for schedule sources
 * (schedule.ts), the ingress for push sources (ingress.ts) — and turns each event into one ledger
 * row (firing.ts: judging, acting, the ledger writes). This file is the service itself: arming
 * and disarming as files and the config change, the release of queued events, and the reads.
 * Deliveries of one trigger are serialized (chains.ts), so dedupe, the rate limit and the overrun
 * check always see the rows written before them.
 * The cursor exists only while the trigger is armed: disarming drops it, so the first poll after
 * arming seeds again (decision 084).
 */
import { type FSWatcher, watch } from 'chokidar';
import { ensurePrivateDir } from '../daemon/paths.js';
import type {
  IngressRequest,
  TriggerEvent,
  TriggerPollContext,
  TriggerSource,
} from '../plugin/index.js';
import type { Project } from '../projects/index.js';
import { TriggerDeliveriesTable, TriggerQueueTable, TriggerStateTable } from '../store/index.js';
import { type Active, type RuntimeParts, SETTLED, type TriggerServiceDeps } from './armed.js';
import { DeliveryChains } from './chains.js';
import type { TriggerDefinition } from './definition.js';
import { type TriggerFile, TriggerFiles } from './files.js';
import { type Replay, TriggerFiring } from './firing.js';
import { PushIngress } from './ingress.js';
import type { JudgeContext } from './judge.js';
import { PollLoop } from './poll-loop.js';
import { ScheduleClock } from './schedule.js';
import { type DeliveryView, deliveryView, disarmedReason } from './view.js';

export type { TriggerServiceDeps } from './armed.js';

export class TriggerService {
  readonly files: TriggerFiles;
  readonly state: TriggerStateTable;
  readonly deliveries: TriggerDeliveriesTable;
  readonly queue: TriggerQueueTable;
  private readonly chains = new DeliveryChains();
  private readonly firing: TriggerFiring;
  private readonly polls: PollLoop;
  private readonly schedules: ScheduleClock;
  private readonly push: PushIngress;
  private readonly active = new Map<string, Active>();
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
    const parts: RuntimeParts = {
      d,
      files: this.files,
      state: this.state,
      deliveries: this.deliveries,
      queue: this.queue,
      chains: this.chains,
      globalOn: () => this.globalOn,
      isCurrent: (a) => this.isCurrent(a),
      isArmed: (id) => this.isArmed(id),
    };
    this.firing = new TriggerFiring(parts);
    this.polls = new PollLoop(parts, this.firing);
    this.schedules = new ScheduleClock(parts, this.firing);
    this.push = new PushIngress(parts, this.firing);
  }

  get globalOn(): boolean {
    return this.d.config.current().triggers.enabled;
  }

  /** Arms what should run, watches the directory and the config. Call once. */
  start(replay: Replay, opts: { watch?: boolean } = {}): void {
    this.firing.replayFn = replay;
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
    await this.chains.idle();
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
      if (source.meta.kind === 'poll') this.chains.track(this.polls.pollLoop(a));
      else if (source.meta.kind === 'schedule') this.schedules.armSchedule(a);
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

  // ---- poll sources (poll-loop.ts) -----------------------------------------------------------

  pollContext(def: TriggerDefinition, project: Project, signal: AbortSignal): TriggerPollContext {
    return this.polls.pollContext(def, project, signal);
  }

  /** Whether the next real poll seeds: never polled since arming, or the source block changed. */
  seedsNext(def: TriggerDefinition): boolean {
    return this.polls.seedsNext(def);
  }

  /** Runs one poll now, outside the timer (CLI and tests); the loop keeps its own schedule. */
  pollNow(id: string): Promise<void> {
    const a = this.active.get(id);
    if (a?.source.meta.kind !== 'poll') return Promise.resolve();
    return this.chains.serial(id, () => this.polls.pollOnce(a));
  }

  // ---- push sources (ingress.ts) -------------------------------------------------------------

  /** POST /v1/triggers/{id}/events: one signed event, answered with its delivery. */
  ingress(id: string, req: Omit<IngressRequest, 'now' | 'env'>): Promise<DeliveryView> {
    return this.push.ingress(id, req);
  }

  // ---- judging and acting (firing.ts) --------------------------------------------------------

  judgeContext(def: TriggerDefinition, project: Project, seeding: boolean): JudgeContext {
    return this.firing.judgeContext(def, project, seeding);
  }

  inFlight(triggerId: string, key: string): number[] {
    return this.firing.inFlight(triggerId, key);
  }

  /** Releases queued events whose concurrency key has nothing in flight any more. */
  releaseQueues(): void {
    if (!this.started) return;
    for (const id of this.queue.triggers()) {
      const a = this.active.get(id);
      if (!a) continue;
      void this.chains.serial(id, () => this.releaseFor(a));
    }
  }

  private async releaseFor(a: Active): Promise<void> {
    for (const entry of this.queue.ofTrigger(a.id)) {
      if (!this.isCurrent(a)) return;
      if (this.inFlight(a.id, entry.concurrency_key).length > 0) continue;
      if (!this.queue.delete(entry.id)) continue;
      const event = JSON.parse(entry.event) as TriggerEvent;
      await this.firing.deliverNow(a.def, event, false);
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
