/**
 * scheduler: admission (SPEC §3.1, §2.10 max_parallel_tasks). The only place queued → running
 * happens. Each pass walks queued tasks by priority then age: a persisted pause request parks the
 * task; a clock (`admit_not_before`) in the future skips it and arms a timer; the global cap and
 * the project cap (counting this pass's admissions) skip it; otherwise a compare-and-swap admits
 * it and the engine's runner takes over. Only running and awaiting_input hold a slot. A pass runs
 * on every state change, config change and clock expiry, so a freed slot is refilled at once.
 * Each pass ends by naming the tasks that wait only for a slot, whose worktrees the engine cuts
 * ahead (decision 159).
 * Uses: store, config, clock. Used by: engine. Decision 010.
 */
import type { Logger } from 'pino';
import type { Clock, Timer } from '../clock/index.js';
import type { ConfigService } from '../config/index.js';
import type { ProjectsTable, QueuedTask, TasksTable } from '../store/index.js';

export interface SchedulerHooks {
  /** CAS queued → running and start the runner; false when the task was no longer queued. */
  admit(task: QueuedTask): boolean;
  /** queued → paused for a task whose pause was requested. */
  park(task: QueuedTask): void;
  /** Re-queues parents whose lanes all settled (fan_out join); runs first in each pass. */
  beforePass?(): void;
  /** Ends each pass with the tasks that wait only for a slot, in admission order (decision 159). */
  waiting?(tasks: QueuedTask[]): void;
}

/**
 * Queued tasks a pass reads before it knows whether it needs the rest: with every slot taken the
 * tail only waits, and a pass runs on every state change, so reading hundreds of queued rows each
 * time was a large share of a task's CPU under a long queue (issue 22, decision 236). The tasks
 * named to the engine as waiting (the worktrees it cuts ahead) come from this head.
 */
export const QUEUE_HEAD = 64;

export class Scheduler {
  private scheduled = false;
  private stopped = true;
  private timer: Timer | null = null;
  private timerAt = Number.POSITIVE_INFINITY;
  private hooks: SchedulerHooks | null = null;
  /** Admission latency samples (slot freed or task queued → admitted), for the benchmark. */
  readonly latencies: number[] = [];
  private pokedAt = 0;
  private inPass = false;

  constructor(
    private readonly tasks: TasksTable,
    private readonly projects: ProjectsTable,
    private readonly config: ConfigService,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  start(hooks: SchedulerHooks): void {
    this.hooks = hooks;
    this.stopped = false;
    this.config.onChange(() => this.poke());
    this.poke();
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = null;
  }

  /** Asks for a pass soon; many pokes in one tick coalesce into one pass. */
  poke(): void {
    if (this.stopped || this.scheduled) return;
    this.scheduled = true;
    this.pokedAt = performance.now();
    queueMicrotask(() => {
      this.scheduled = false;
      if (!this.stopped) this.pass();
    });
  }

  /**
   * True while a pass runs: a task it admits changes state inside it, and that change needs no
   * pass of its own — the pass counted the slot it filled and goes on down the queue. Asking for
   * one anyway was a quarter of a one-step task's passes, each reading the queue (issue 22).
   */
  get passing(): boolean {
    return this.inPass;
  }

  /** One admission pass (exported for tests). */
  pass(): void {
    const hooks = this.hooks;
    if (!hooks || this.stopped) return;
    this.inPass = true;
    try {
      hooks.beforePass?.();
      const config = this.config.current();
      const holders = this.tasks.slotHolders();
      let used = holders.length;
      const perProject = new Map<number, number>();
      for (const h of holders)
        perProject.set(h.project_id, (perProject.get(h.project_id) ?? 0) + 1);
      const now = this.clock.now();
      let nextClock = Number.POSITIVE_INFINITY;
      const caps = new Map<number, number | null>();
      const waiting: QueuedTask[] = [];
      // The head of the queue first: with every slot taken, the rest can only wait (decision 236).
      let queue = this.tasks.admissionQueue(QUEUE_HEAD);
      let whole = queue.length < QUEUE_HEAD;
      const seen = new Set<number>();
      for (let i = 0; ; i++) {
        if (i >= queue.length) {
          if (whole || used >= config.max_parallel_tasks) break;
          // Slots left after the head (a project cap, clocks): read the whole queue.
          queue = this.tasks.admissionQueue().filter((t) => !seen.has(t.id));
          whole = true;
          i = -1;
          continue;
        }
        const task = queue[i] as QueuedTask;
        seen.add(task.id);
        if (task.pause_requested) {
          hooks.park(task);
          continue;
        }
        if (task.admit_not_before) {
          const at = Date.parse(task.admit_not_before);
          if (at > now) {
            nextClock = Math.min(nextClock, at);
            continue;
          }
        }
        if (used >= config.max_parallel_tasks) {
          waiting.push(task);
          continue;
        }
        if (!caps.has(task.project_id))
          caps.set(task.project_id, this.projects.get(task.project_id)?.max_parallel_tasks ?? null);
        const cap = caps.get(task.project_id);
        const inProject = perProject.get(task.project_id) ?? 0;
        if (cap !== null && cap !== undefined && inProject >= cap) {
          waiting.push(task);
          continue;
        }
        if (hooks.admit(task)) {
          used++;
          perProject.set(task.project_id, inProject + 1);
          this.latencies.push(performance.now() - this.pokedAt);
          if (this.latencies.length > 10_000) this.latencies.splice(0, 5_000);
        }
      }
      if (!whole) {
        // Past the head: pause requests are honoured and clocks armed all the same.
        for (const task of this.tasks.queuedPauses()) if (!seen.has(task.id)) hooks.park(task);
        for (const text of this.tasks.queuedClocks()) {
          const at = Date.parse(text);
          if (at > now) nextClock = Math.min(nextClock, at);
        }
      }
      this.arm(nextClock);
      hooks.waiting?.(waiting);
    } catch (err) {
      this.logger.error({ err }, 'scheduler pass failed');
    } finally {
      this.inPass = false;
    }
  }

  private arm(at: number): void {
    if (at === this.timerAt && this.timer) return;
    this.timer?.cancel();
    this.timer = null;
    this.timerAt = at;
    if (!Number.isFinite(at)) return;
    this.timer = this.clock.setTimer(Math.max(0, at - this.clock.now()), () => {
      this.timer = null;
      this.timerAt = Number.POSITIVE_INFINITY;
      this.poke();
    });
  }
}
