/**
 * Pre-cut worktrees (decision 159). While a task waits in the queue only for a slot, its worktree
 * is cut ahead — the same checks and the same `git worktree add` admission would run — so that a
 * freed slot only has to spawn. git cannot add two worktrees of one repository at once, so when
 * slots free faster than worktrees can be cut, the wait used to fall after admission, with the
 * slot held; now it falls before.
 *
 * The pre-cut worktree stays invisible: the row keeps `worktree_path` null and no event names it
 * until admission adopts it (worktree.ts, which also moves it to the base's tip if the base moved
 * meanwhile). A task that leaves the queue any other way has it removed, and its branch deleted
 * while it still points where it was cut. The row's mark (`worktree_cut`, written before git runs)
 * outlives a crash: the next daemon removes what a kill may have left half made and cuts again,
 * and a task that leaves the queue has it removed just the same.
 *
 * Every worktree operation of one task — cut, adoption at admission, removal — runs in order on a
 * per-task chain, so a cancel that arrives mid-cut removes what the cut made.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Clock } from '../clock/index.js';
import type { Config } from '../config/index.js';
import { addWorktree, branchTip, knownUpstreamOf } from '../git/index.js';
import type { ProjectsTable, QueuedTask, TaskRow, TasksTable } from '../store/index.js';
import type { TaskState } from '../task-states.js';
import { snapshotOf } from './model.js';
import { cutOf, discardUnstarted, type Precut, platformAdmits } from './worktree.js';

/** Pre-cut worktrees per project at most: the next admissions, and a bound on the disk they take. */
export const PRECUT_DEPTH = 3;

/**
 * After a cut fails, its task is not cut ahead again for this long: passes run on every state
 * change, and a cause that persists (a full disk, a broken repository) would otherwise run git
 * for the same task on each of them. Admission still cuts it the usual way and reports git's error.
 */
export const PRECUT_RETRY_MS = 60_000;

export interface PrecutDeps {
  tasks: TasksTable;
  projects: ProjectsTable;
  config: () => Config;
  worktreesDir: string;
  logger: Logger;
  clock: Clock;
}

interface Entry {
  projectId: number;
  /** A worktree cut and not yet adopted. */
  pre: Precut | null;
  cutting: boolean;
  chain: Promise<void>;
}

/** States in which a never-started worktree still has a future: it waits, or admission takes it. */
const KEEPS = new Set<TaskState>(['queued', 'running']);

export class Precutter {
  private readonly entries = new Map<number, Entry>();
  /** When each task's last cut failed. */
  private readonly failedAt = new Map<number, number>();
  private stopped = false;

  constructor(private readonly d: PrecutDeps) {}

  /** After an admission pass: the tasks that wait only for a slot, in admission order. */
  consider(waiting: readonly QueuedTask[]): void {
    if (this.stopped || waiting.length === 0) return;
    const held = new Map<number, number>();
    for (const e of this.entries.values())
      if (e.pre || e.cutting) held.set(e.projectId, (held.get(e.projectId) ?? 0) + 1);
    for (const task of waiting) {
      // A removal still in flight (paused and resumed at once) is followed by the new cut.
      const had = this.entries.get(task.id);
      if (had && (had.pre || had.cutting)) continue;
      const failed = this.failedAt.get(task.id);
      if (failed !== undefined && this.d.clock.now() - failed < PRECUT_RETRY_MS) continue;
      const n = held.get(task.project_id) ?? 0;
      if (n >= PRECUT_DEPTH) continue;
      held.set(task.project_id, n + 1);
      const e = this.entry(task.id, task.project_id);
      e.cutting = true;
      this.background(task.id, e, () => this.cutNotingFailure(task.id, e)).then(() => {
        e.cutting = false;
        this.release(task.id, e);
      });
    }
  }

  /**
   * Admission's worktree work for a task, run after any cut of it in flight; `fn` receives the
   * pre-cut worktree, if one is ready, and owns it from then on.
   */
  admit<T>(taskId: number, projectId: number, fn: (pre: Precut | null) => Promise<T>): Promise<T> {
    const e = this.entry(taskId, projectId);
    const run = this.chain(taskId, e, () => {
      const pre = e.pre;
      e.pre = null;
      return fn(pre);
    });
    void run.finally(() => this.release(taskId, e)).catch(() => {});
    return run;
  }

  /**
   * Called on every state change. A task that left the queue for good before its worktree was
   * recorded (canceled, paused, blocked at admission) gives back what was cut for it.
   */
  onTransition(task: TaskRow): void {
    if (KEEPS.has(task.state) || task.worktree_path !== null) return;
    const e = this.entries.get(task.id);
    if (!e && !task.worktree_cut && !existsSync(this.pathOf(task.id))) return;
    const entry = e ?? this.entry(task.id, task.project_id);
    void this.background(task.id, entry, () => this.discard(task.id, entry)).then(() =>
      this.release(task.id, entry),
    );
  }

  /** Resolves when every worktree operation queued for the task so far has settled. */
  async settled(taskId: number): Promise<void> {
    await this.entries.get(taskId)?.chain;
  }

  /** No more cuts; resolves when the ones in flight have settled. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.entries.values()].map((e) => e.chain));
  }

  /** Tasks holding a pre-cut worktree now (for tests and the benchmark). */
  ready(): number[] {
    return [...this.entries].filter(([, e]) => e.pre !== null).map(([id]) => id);
  }

  private pathOf(taskId: number): string {
    return join(this.d.worktreesDir, String(taskId));
  }

  private entry(taskId: number, projectId: number): Entry {
    let e = this.entries.get(taskId);
    if (!e) {
      e = { projectId, pre: null, cutting: false, chain: Promise.resolve() };
      this.entries.set(taskId, e);
    }
    return e;
  }

  private chain<T>(taskId: number, e: Entry, fn: () => Promise<T>): Promise<T> {
    const run = e.chain.then(fn);
    e.chain = run.then(
      () => {},
      (err: unknown) => {
        this.d.logger.warn({ err, task_id: taskId }, 'pre-cut worktree work failed');
      },
    );
    return run;
  }

  /** Work nobody awaits: settles when `fn` has, its failure logged by `chain`. */
  private background(taskId: number, e: Entry, fn: () => Promise<void>): Promise<void> {
    this.chain(taskId, e, fn).catch(() => {});
    return e.chain;
  }

  /** Forgets an entry with nothing cut and nothing in flight. */
  private release(taskId: number, e: Entry): void {
    const tail = e.chain;
    void tail.then(() => {
      if (e.chain === tail && !e.pre && !e.cutting && this.entries.get(taskId) === e)
        this.entries.delete(taskId);
    });
  }

  private async cutNotingFailure(taskId: number, e: Entry): Promise<void> {
    try {
      await this.cut(taskId, e);
      this.failedAt.delete(taskId);
    } catch (err) {
      if (this.failedAt.size > 10_000) this.failedAt.clear();
      this.failedAt.set(taskId, this.d.clock.now());
      throw err;
    }
  }

  /** Cuts the worktree admission would cut, or does nothing and leaves every verdict to admission. */
  private async cut(taskId: number, e: Entry): Promise<void> {
    const task = this.d.tasks.get(taskId);
    if (this.stopped || !this.stillWaiting(task) || task.forge_pull || !task.branch_name) return;
    const project = this.d.projects.get(task.project_id);
    if (!project || !existsSync(project.path)) return;
    if (!platformAdmits(snapshotOf(task).platforms)) return;
    const path = this.pathOf(taskId);
    const branch = task.branch_name;
    const left = cutOf(task);
    if (left) {
      // An earlier daemon's cut, maybe half made by a kill: given back, then cut afresh.
      await discardUnstarted(project.path, path, branch, task.base_branch, left);
      this.d.tasks.cas(taskId, 'queued', { worktree_cut: null });
    }
    // Occupied by something not ours: admission judges it.
    if (existsSync(path)) return;
    const base = task.base_branch;
    // Read from the ref files where they answer (no git process): cuts must keep ahead of slots.
    if ((await branchTip(project.path, branch)) !== null) return;
    const start = await branchTip(project.path, base);
    if (!start) return;
    // A base with an upstream is refreshed over the network at admission (decision 012); a cut
    // made earlier could start from a tip admission would not choose.
    const isLane = task.parent_task_id !== null;
    if (this.d.config().fetch_base_branch && !isLane && (await knownUpstreamOf(project.path, base)))
      return;
    if (this.stopped || !this.stillWaiting(this.d.tasks.get(taskId))) return;
    // The mark first: a daemon killed mid-add then knows the branch and the path are its own.
    const cut = JSON.stringify({ branch, start });
    if (!this.d.tasks.cas(taskId, 'queued', { worktree_cut: cut })) return;
    await addWorktree(project.path, path, branch, start, { replaceStale: true });
    e.pre = { path, branch, base, start, repo: project.path };
    this.d.logger.debug({ task_id: taskId, path, start }, 'worktree cut ahead of admission');
  }

  private stillWaiting(task: TaskRow | undefined): task is TaskRow {
    return task?.state === 'queued' && task.worktree_path === null;
  }

  private async discard(taskId: number, e: Entry): Promise<void> {
    const task = this.d.tasks.get(taskId);
    // Queued again (a retry) or admitted since: the worktree still has a future.
    if (task && (KEEPS.has(task.state) || task.worktree_path !== null)) return;
    const pre = e.pre;
    e.pre = null;
    if (pre) await discardUnstarted(pre.repo, pre.path, pre.branch, pre.base, pre);
    else if (task?.branch_name) {
      const project = this.d.projects.get(task.project_id);
      if (project)
        await discardUnstarted(
          project.path,
          this.pathOf(taskId),
          task.branch_name,
          task.base_branch,
          cutOf(task),
        );
    }
    if (task?.worktree_cut) this.d.tasks.update(taskId, { worktree_cut: null });
  }
}
