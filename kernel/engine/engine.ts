/**
 * The engine: tasks from creation to archive. Wires the transition writer, the runner, the
 * scheduler's hooks, crash recovery, the human actions and the views; the HTTP routes and the CLI
 * reach tasks only through this class.
 */
import { existsSync, rmSync } from 'node:fs';
import type { Logger } from 'pino';
import type { Clock } from '../clock/index.js';
import type { ConfigService } from '../config/index.js';
import type { Paths } from '../daemon/paths.js';
import type { DiskGuard } from '../disk/index.js';
import { SvcError } from '../errors.js';
import type { EventLog } from '../events/index.js';
import { deleteBranchIfEmpty, removeWorktree } from '../git/index.js';
import type { Notifier } from '../ops/notify.js';
import { type Registry, type StepHost, typesWithView, viewOf } from '../plugin/index.js';
import { procMarkPrefix } from '../proc/index.js';
import type { ProjectService } from '../projects/index.js';
import type { Scheduler } from '../scheduler/index.js';
import { StepRunsTable, type Store, type TaskRow, TasksTable } from '../store/index.js';
import { TaskActions } from './actions.js';
import { type CreateOptions, TaskCreator } from './create.js';
import { InputBroker } from './input.js';
import { laneCounts, viewReadsWorktree } from './lane-merges.js';
import { type ListQuery, TaskLister } from './list.js';
import { ListTexts } from './list-texts.js';
import { loopView } from './loop-view.js';
import { jsonOr, SETTLED_STATES, type WorkflowSnapshot } from './model.js';
import type { AgentPort, ForgePort, WorkflowPort } from './ports.js';
import { Precutter } from './precut.js';
import { type RecoveryReport, recover } from './recovery.js';
import { Runner } from './runner.js';
import { type CreateTask, LIST_PAGE_DEFAULT } from './schema.js';
import { isForeignWorktree } from './worktree.js';
import { recordWorktreeChanges } from './worktree-changes.js';

/** No default page for lanes: fan_out caps bound them (SPEC §8), and they have no cursor. */
const LANES_UNPAGED = 1_000_000;

import { TaskStates } from './state.js';
import {
  childrenRollup,
  listRow,
  rollups,
  stepRunView,
  taskView,
  type ViewContext,
  workflowStepsView,
} from './views.js';

export interface EngineDeps {
  store: Store;
  /** Disk-full mode and the reserve (decision 180). */
  disk: DiskGuard;
  events: EventLog;
  clock: Clock;
  config: ConfigService;
  logger: Logger;
  paths: Paths;
  registry: Registry;
  projects: ProjectService;
  scheduler: Scheduler;
  notifier: Notifier;
  workflows: WorkflowPort;
  agents: AgentPort;
  /** The code host for `forge_issue` / `forge_pull` (rules 7–9). */
  forge?: ForgePort;
}

export class Engine {
  readonly tasks: TasksTable;
  readonly runs: StepRunsTable;
  readonly states: TaskStates;
  readonly runner: Runner;
  readonly creator: TaskCreator;
  readonly actions: TaskActions;
  readonly input: InputBroker;
  readonly precut: Precutter;
  /**
   * What other rooms lend a step at run time (StepContext.agents, .mcp; decision 224): filled by
   * kernel.ts once those rooms exist, read by each attempt as it starts.
   */
  readonly stepHost: StepHost = {};
  /** Hooks other rooms fill (chats: the open chat linking a task). */
  openChat: (taskId: number) => number | null = () => null;
  /** The open chats linking a page of tasks, by task id: one read per list page (decision 233). */
  openChats: (taskIds: number[]) => Map<number, number> = (ids) => {
    const out = new Map<number, number>();
    for (const id of ids) {
      const chat = this.openChat(id);
      if (chat !== null) out.set(id, chat);
    }
    return out;
  };
  /** Stops and closes the open chat of a task being cancelled (SPEC §4.5). */
  closeChatForCancel: (taskId: number) => void = () => {};
  /** Chats' part of a project delete: refuse while a turn is live, else drop their worktrees. */
  projectDeleting: (projectId: number, projectPath: string) => Promise<void> = async () => {};
  /** The live chat working on `branch` in a project, other than `exceptChat` (branch claims). */
  chatClaim: (projectId: number, branch: string, exceptChat?: number) => number | null = () => null;
  private readonly viewDecorators: Array<NonNullable<ViewContext['decorate']>> = [];
  private readonly lister: TaskLister;
  private readonly rowTexts: ListTexts;
  private started = false;

  constructor(private readonly d: EngineDeps) {
    this.tasks = new TasksTable(d.store.db);
    this.runs = new StepRunsTable(d.store.db);
    this.lister = new TaskLister(d.store.db, () => typesWithView(d.registry, 'loop'));
    this.rowTexts = new ListTexts(d.store.db);
    // A row's loop view reads the loop ceiling from the configuration.
    d.config.onChange(() => this.rowTexts.clear());
    this.states = new TaskStates(d.store, this.tasks, d.projects.table, d.events, d.clock);
    this.input = new InputBroker(this.states, d.clock);
    this.precut = new Precutter({
      tasks: this.tasks,
      projects: d.projects.table,
      config: () => d.config.current(),
      worktreesDir: d.paths.worktreesDir,
      logger: d.logger,
      clock: d.clock,
    });
    this.runner = new Runner({
      input: this.input,
      host: this.stepHost,
      store: d.store,
      disk: d.disk,
      procMark: procMarkPrefix(d.paths.dataDir),
      runs: this.runs,
      events: d.events,
      clock: d.clock,
      config: () => d.config.current(),
      transcriptsDir: d.paths.transcriptsDir,
      tasks: this.tasks,
      projects: d.projects.table,
      states: this.states,
      registry: d.registry,
      logger: d.logger,
      worktreesDir: d.paths.worktreesDir,
      precut: this.precut,
      treeCost: (rootId) => this.treeCost(rootId),
      workflows: d.workflows,
      settledLanes: (taskId, index) =>
        (
          d.store.db
            .prepare(
              "SELECT COUNT(*) AS n FROM tasks WHERE parent_task_id = ? AND spawned_by_index = ? AND state IN ('done', 'aborted', 'archived')",
            )
            .get(taskId, index) as { n: number }
        ).n,
    });
    this.creator = new TaskCreator({
      store: d.store,
      tasks: this.tasks,
      projects: d.projects,
      events: d.events,
      clock: d.clock,
      config: d.config,
      workflows: d.workflows,
      agents: d.agents,
      registry: d.registry,
      forge: d.forge,
      chatClaim: (projectId, branch, exceptChat) => this.chatClaim(projectId, branch, exceptChat),
    });
    this.actions = new TaskActions({
      store: d.store,
      tasks: this.tasks,
      runs: this.runs,
      projects: d.projects,
      states: this.states,
      events: d.events,
      clock: d.clock,
      config: d.config,
      runner: this.runner,
      workflows: d.workflows,
      agents: d.agents,
      registry: d.registry,
      transcriptsDir: d.paths.transcriptsDir,
      worktreesDir: d.paths.worktreesDir,
      openChat: (id) => this.openChat(id),
      closeChatForCancel: (id) => this.closeChatForCancel(id),
      answerInput: (task, body) => this.input.answer(task, body),
    });
    this.addViewDecorator((task, snap, view) => {
      const loop = loopView(
        task,
        snap,
        this.runs,
        d.config.current().loop.max_iterations,
        (type) => viewOf(d.registry, type) === 'loop',
      );
      if (loop) view.loop = loop;
    });
    this.states.onTransition((task, from, event) => {
      this.precut.onTransition(task);
      // An admission made by a pass is that pass's own doing: it needs no other (decision 245).
      if (!(from === 'queued' && task.state === 'running' && d.scheduler.passing))
        d.scheduler.poke();
      d.notifier.onStateChanged(event, task.parent_task_id === null);
      if (task.parent_task_id !== null) this.laneChanged(task);
    });
  }

  /**
   * A lane moved: every ancestor hears about it (`task.children_changed`), and a parent parked in
   * awaiting_children is re-queued for its join when its lanes have settled — or, under
   * `schedule: eager`, as each further lane settles (decision 017).
   */
  private laneChanged(lane: TaskRow): void {
    let ancestor = lane.parent_task_id;
    while (ancestor !== null) {
      const a = this.tasks.get(ancestor);
      if (!a) break;
      this.d.events.append(
        'task.children_changed',
        { project_id: a.project_id, task_id: a.id },
        { child_id: lane.id, to_state: lane.state },
      );
      ancestor = a.parent_task_id;
    }
    if (lane.parent_task_id !== null && SETTLED_STATES.includes(lane.state))
      this.maybeJoin(lane.parent_task_id);
  }

  /** Re-queues a parked parent whose join can run now. */
  maybeJoin(parentId: number): void {
    const parent = this.tasks.get(parentId);
    if (parent?.state !== 'awaiting_children') return;
    const lanes = this.d.store.db
      .prepare('SELECT state FROM tasks WHERE parent_task_id = ? AND spawned_by_index = ?')
      .all(parent.id, parent.current_step) as Array<{ state: string }>;
    const settled = lanes.filter((l) =>
      SETTLED_STATES.includes(l.state as TaskRow['state']),
    ).length;
    const step = jsonOr<WorkflowSnapshot | null>(parent.workflow_snapshot, null)?.steps[
      parent.current_step
    ];
    const eager = step?.schedule === 'eager';
    if (settled === lanes.length || (eager && settled > 0))
      this.states.apply(parent.id, 'children_settled', 'awaiting_children');
  }

  /** Recovery, then admission. Call once, after plugins are loaded. */
  start(): RecoveryReport {
    const report = recover(
      this.d.store,
      this.tasks,
      this.runs,
      this.states,
      this.d.clock,
      this.d.logger,
      this.d.paths.transcriptsDir,
      this.d.disk,
      procMarkPrefix(this.d.paths.dataDir),
    );
    // Admission held while the disk was full resumes the moment it has room (decision 180).
    this.d.disk.onRoom(() => this.d.scheduler.poke());
    this.d.scheduler.start({
      admit: (task) => {
        // A full disk: nothing new is started into the same wall; queued tasks wait for room.
        if (this.d.disk.full) return false;
        const moved = this.states.apply(task.id, 'admit', 'queued');
        if (!moved) return false;
        this.runner.start(task.id);
        return true;
      },
      park: (task) => {
        this.states.apply(task.id, 'park', 'queued', { pause_requested: 0 });
      },
      waiting: (tasks) => {
        if (!this.d.disk.full) this.precut.consider(tasks);
      },
    });
    this.started = true;
    return report;
  }

  /** Daemon stop: no more admissions, live attempts interrupted and their tasks re-queued. */
  async stop(): Promise<void> {
    this.d.scheduler.stop();
    if (this.started) await this.runner.shutdown();
    await this.precut.stop();
  }

  /** Asks the scheduler to look at the queue now (a task created outside `create`). */
  poke(): void {
    this.d.scheduler.poke();
  }

  /**
   * Adds fields to every task view. A decorator reads only what the database holds (the task's
   * row, its step runs, its chats, its pull request's state) or the configuration: the list keeps
   * each row's text until a write to those tables or a reload (decision 250), so a decorator
   * reading anything else would be shown stale.
   */
  addViewDecorator(fn: NonNullable<ViewContext['decorate']>): void {
    this.viewDecorators.push(fn);
    this.rowTexts.clear();
  }

  private viewContext(): ViewContext {
    const names = new Map<number, string>();
    return {
      projectName: (id) => {
        if (!names.has(id)) names.set(id, this.d.projects.get(id)?.name ?? '');
        return names.get(id) as string;
      },
      openChat: (id) => this.openChat(id),
      types: this.d.registry,
      decorate: (task, snap, view) => {
        for (const fn of this.viewDecorators) fn(task, snap, view);
      },
    };
  }

  get(id: number): TaskRow {
    return this.actions.load(id);
  }

  /** Every task response but list rows, which leave out the prompt (up to 1 MiB each). */
  view(task: TaskRow): Record<string, unknown> {
    return { ...taskView(task, this.viewContext()), prompt: task.prompt };
  }

  /** The detail with `worktree_changes` measured now (a list row carries the last measurement). */
  async freshDetail(id: number): Promise<Record<string, unknown>> {
    const task = this.get(id);
    await recordWorktreeChanges(this.d.store.db, task.id, task.worktree_path);
    return this.detail(id);
  }

  detail(id: number): Record<string, unknown> {
    const task = this.get(id);
    const ctx = this.viewContext();
    const row = listRow(task, ctx, rollups(this.d.store.db, [id]).get(id));
    const snap = jsonOr<WorkflowSnapshot | null>(task.workflow_snapshot, null);
    const detail: Record<string, unknown> = {
      ...row,
      prompt: task.prompt,
      workflow_steps: workflowStepsView(snap),
      steps: this.runs.ofTask(id).map((r) => stepRunView(r, task.step_total)),
    };
    const children = childrenRollup(this.d.store.db, id);
    if (children) detail.children = { ...children, ...laneCounts(this.d.store.db, id) };
    return detail;
  }

  steps(id: number): Array<Record<string, unknown>> {
    const task = this.get(id);
    return this.runs.ofTask(id).map((r) => stepRunView(r, task.step_total));
  }

  list(q: ListQuery): { rows: Array<Record<string, unknown>>; next_cursor: number | null } {
    const rows: Array<Record<string, unknown>> = [];
    const { next_cursor } = this.listEach(q, (row) => rows.push(row));
    return { rows, next_cursor };
  }

  /**
   * `list`'s rows one at a time, each handed to `each` as soon as it is built and never kept
   * (GET /v1/tasks stringifies it into the body at once; decisions 237, 244). `each` must not
   * write to the database: the page's statement is still stepping.
   */
  listEach(
    q: ListQuery,
    each: (row: Record<string, unknown>) => void,
  ): { next_cursor: number | null } {
    const { ids, next_cursor } = this.pageOf(q);
    const view = this.listViewer(ids);
    this.lister.each(ids, (r) => each(view(r)));
    return { next_cursor };
  }

  /**
   * `listEach`'s rows as their `JSON.stringify` texts, each handed to `push` in order; the texts
   * of rows unchanged since an earlier page are kept and reused (list-texts.ts, decision 250).
   */
  listTexts(q: ListQuery, push: (text: string) => void): { next_cursor: number | null } {
    const { ids, next_cursor } = this.pageOf(q);
    const texts = this.rowTexts.page(ids, (missing, put) => {
      const view = this.listViewer(missing);
      // A row whose view reads its worktree (a merge in progress there) is built every time.
      this.lister.each(missing, (r) => put(r.id, JSON.stringify(view(r)), !viewReadsWorktree(r)));
    });
    for (const text of texts) push(text);
    return { next_cursor };
  }

  /** The ids of the page `q` asks for, and the cursor of the next one. */
  private pageOf(q: ListQuery): { ids: number[]; next_cursor: number | null } {
    // Lanes of one parent come whole (the fan-out caps bound them); everything else is paged.
    const limit = q.limit ?? (q.parent_id !== undefined ? LANES_UNPAGED : LIST_PAGE_DEFAULT);
    const { ids, more } = this.lister.ids(q, limit);
    return { ids, next_cursor: more && q.parent_id === undefined ? (ids.at(-1) ?? null) : null };
  }

  /** What builds the list rows of `ids`: their open chats are read first, in one go. */
  private listViewer(ids: number[]) {
    return this.lister.viewer(
      { decorate: this.viewContext().decorate, types: this.d.registry },
      this.openChats(ids),
    );
  }

  async create(body: CreateTask, opts: CreateOptions = {}) {
    // A task created on a full disk could not run anyway; refusing it up front keeps what room is
    // left for the outcomes of the tasks already running (decision 180).
    if (this.d.disk.full)
      throw new SvcError(
        'disk_full',
        'the data disk is full: no task was created; free space and retry',
        {
          code: this.d.disk.status().code ?? 'ENOSPC',
        },
      );
    const r = await this.creator.create(body, opts);
    if (!r.replayed) this.d.scheduler.poke();
    return r;
  }

  /** Spend of a whole fan-out tree: the root and every descendant, archived included. */
  treeCost(rootId: number): number | null {
    const row = this.d.store.db
      .prepare(
        `SELECT SUM(cost_usd) AS c FROM step_runs WHERE task_id IN
           (SELECT id FROM tasks WHERE id = ? OR root_task_id = ?)`,
      )
      .get(rootId, rootId) as { c: number | null };
    return row.c;
  }

  /**
   * DELETE /v1/projects/{id} (SPEC §4.2): refused while non-archived tasks exist unless forced;
   * forced, refused while any task runs, archives the rest (force-removing worktrees), deletes
   * empty branches (archived rows included), keeps branches with commits, touches no remote.
   */
  async deleteProject(id: number, force: boolean): Promise<void> {
    const project = this.d.projects.require(id);
    const tasks = this.tasks.ofProject(id);
    const live = tasks.filter((t) => t.state !== 'archived');
    if (live.length > 0 && !force) {
      throw new SvcError(
        'invalid_state',
        `project ${id} has ${live.length} tasks that are not archived; archive them or delete with force`,
        {
          reason: 'project_has_tasks',
        },
      );
    }
    const running = live.find((t) => t.state === 'running' || t.state === 'awaiting_input');
    if (running) {
      throw new SvcError('invalid_state', `task ${running.id} is running; cancel it first`, {
        state: running.state,
        reason: 'task_running',
      });
    }
    await this.projectDeleting(id, project.path);
    for (const t of live) {
      if (!['done', 'aborted'].includes(t.state)) this.actions.cancel(t.id);
      // A worktree cut ahead for a task that waited is given back while its row still exists.
      await this.precut.settled(t.id);
      // Another installation's worktree (a copied database) is never removed (decision 194).
      if (
        t.worktree_path &&
        existsSync(t.worktree_path) &&
        !isForeignWorktree(t.worktree_path, this.d.paths.worktreesDir)
      ) {
        try {
          await removeWorktree(project.path, t.worktree_path, true);
        } catch {
          rmSync(t.worktree_path, { recursive: true, force: true });
        }
      }
    }
    if (this.d.config.current().delete_empty_branch_on_archive && existsSync(project.path)) {
      for (const t of tasks) {
        if (t.branch_name && !t.forge_pull)
          await deleteBranchIfEmpty(project.path, t.base_branch, t.branch_name);
      }
    }
    this.d.store.tx(() => {
      this.tasks.deleteOfProject(id);
      this.d.projects.table.delete(id);
      this.d.events.append('project.deleted', { project_id: id }, { name: project.name });
    });
  }
}
