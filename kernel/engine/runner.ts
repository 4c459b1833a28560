/**
 * The task runner: once the scheduler admits a task, runs its steps top to bottom in its worktree
 * until it finishes, stops for a human or a clock, or is cancelled. Every outcome is applied
 * through the transition table (state.ts); the runner never guesses a state, it re-reads the row
 * before each step so a concurrent human action always wins.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { formatMs } from '../clock/index.js';
import { diskFullCode } from '../disk/index.js';
import { removeLeftIndexLock } from '../git/index.js';
import { type FlowOutcome, waitsForHuman } from '../plugin/index.js';
import { TranscriptWriter } from '../proc/index.js';
import type { Project } from '../projects/index.js';
import { effectiveContainer, ensureImage, runtimeProblem } from '../sandbox/index.js';
import type { TaskRow } from '../store/index.js';
import { closeRow, runAttempt } from './attempt.js';
import { topStepContext } from './context.js';
import { settleCrashedTask } from './crash.js';
import { finishJoin } from './finish-join.js';
import { runFlow } from './flow.js';
import { unmergedPaths } from './lane-merges.js';
import {
  type FollowUpSpec,
  jsonOr,
  type RepairSpec,
  type StepDef,
  snapshotOf,
  stepName,
  type WorkflowSnapshot,
} from './model.js';
import {
  advance,
  applyOutcome,
  block,
  blockReasonFor,
  costBlock,
  recordDecision,
  takeOverride,
  usageLimit,
} from './outcomes.js';
import { evaluateGuard } from './render.js';
import { runFollowUp, runRepair } from './rounds.js';
import type { Active, Next, RunnerDeps } from './runner-deps.js';
import { isForeignWorktree, prepareWorktree } from './worktree.js';

/** Attempts that ended with the daemon killing their process tree, or lost to a daemon crash. */
const KILLED_REASONS = new Set([
  'interrupted',
  'canceled',
  'timeout',
  'transcript_limit',
  'transcript_unwritable',
  'disk_full',
]);

export class Runner {
  private readonly active = new Map<number, Active>();
  private idleWaiters: Array<() => void> = [];

  /**
   * A loop's end asks for no admission pass: slots are counted by state, and every state change
   * already asks for one (decision 245).
   */
  constructor(private readonly deps: RunnerDeps) {}

  isActive(taskId: number): boolean {
    return this.active.has(taskId);
  }

  /** Resolves once no attempt of the task is live (a cancelled one has stopped its process). */
  async settled(taskId: number): Promise<void> {
    await this.active.get(taskId)?.done;
  }

  get activeCount(): number {
    return this.active.size;
  }

  start(taskId: number): void {
    const live = this.active.get(taskId);
    if (live) {
      // Admitted again before the loop that re-queued it has returned (a lane settled while its
      // parent's join looked, runner.applyFlow): start once that loop is gone, or the task would
      // sit in running with nothing running it.
      void live.done.then(() => this.start(taskId));
      return;
    }
    const ac = new AbortController();
    const entry: Active = { ac, reason: null, done: Promise.resolve() };
    entry.done = this.loop(taskId, entry)
      .catch((err: unknown) => this.crashed(taskId, err))
      .finally(() => {
        this.active.delete(taskId);
        if (this.active.size === 0) for (const w of this.idleWaiters.splice(0)) w();
      });
    this.active.set(taskId, entry);
  }

  /** Stops the live attempt of a cancelled task (its state is already aborted). */
  cancel(taskId: number): void {
    const a = this.active.get(taskId);
    if (!a) return;
    a.reason = 'cancel';
    a.ac.abort(new Error('cancelled'));
  }

  /**
   * Stops the live attempt of a task an action already moved (a worktree lost while the agent
   * waited for an answer, decision 183): like cancel, the attempt recording `failure`.
   */
  interrupt(taskId: number, failure: string): void {
    const a = this.active.get(taskId);
    if (!a) return;
    a.reason = 'cancel';
    a.failure = failure;
    a.ac.abort(new Error(failure));
  }

  /** Stops every live attempt for a daemon stop; their tasks go back to queued. */
  async shutdown(): Promise<void> {
    for (const a of this.active.values()) {
      a.reason = 'shutdown';
      a.ac.abort(new Error('shutdown'));
    }
    await Promise.allSettled([...this.active.values()].map((a) => a.done));
  }

  idle(): Promise<void> {
    if (this.active.size === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  private now(): string {
    return formatMs(this.deps.clock.now());
  }

  /** Never throws: it runs in a `.catch` (crash.ts, decisions 180 and 181). */
  private crashed(taskId: number, err: unknown): void {
    settleCrashedTask(this.deps, taskId, err);
  }

  private async loop(taskId: number, entry: Active): Promise<void> {
    const { deps } = this;
    let task = deps.tasks.get(taskId);
    if (task?.state !== 'running') return;
    const project = deps.projects.get(task.project_id);
    if (!project) {
      block(this.deps, task, 'project_path_missing', 'the project no longer exists');
      return;
    }
    const snapshot = snapshotOf(task);
    const container = effectiveContainer(deps.config(), snapshot.defaults);
    if (container) {
      // Admission rows of SPEC §2.10: a runtime gone since creation, an image missing and not pullable.
      const problem = await runtimeProblem(container.runtime);
      if (entry.ac.signal.aborted) return this.aborted(taskId, entry);
      if (problem) {
        block(this.deps, task, 'container_unavailable', problem);
        return;
      }
      if (!(await ensureImage(container.runtime, container.image))) {
        if (entry.ac.signal.aborted) return this.aborted(taskId, entry);
        block(
          this.deps,
          task,
          'container_image_unavailable',
          `image ${container.image} is not present and could not be pulled`,
        );
        return;
      }
    }
    if (
      !task.worktree_path ||
      !existsSync(task.worktree_path) ||
      isForeignWorktree(task.worktree_path, deps.worktreesDir)
    ) {
      // The transcripts' directory is made while git cuts the worktree, so the first attempt
      // opens its file in one call (proc/transcript.ts).
      TranscriptWriter.prepareDir(join(deps.transcriptsDir, String(taskId)));
      const admitted = task;
      // On the task's worktree chain (precut.ts): after a cut in flight, before a removal a cancel
      // asks for; the row names the worktree inside it, so that removal finds it claimed.
      const verdict = await deps.precut.admit(taskId, task.project_id, async (pre) => {
        const v = await prepareWorktree(admitted, project.path, snapshot, deps.worktreesDir, {
          fetchBase: deps.config().fetch_base_branch,
          isLane: admitted.parent_task_id !== null,
          precut: pre,
          // A task cancelled meanwhile keeps no mark; the removal chained after this takes the cut.
          markCut: (cut) => {
            deps.tasks.cas(taskId, 'running', { worktree_cut: JSON.stringify(cut) });
          },
        });
        if (v.ok) {
          deps.states.patch(taskId, 'running', {
            worktree_path: v.worktree,
            worktree_cut: null,
            started_at: admitted.started_at ?? this.now(),
          });
        }
        return v;
      });
      if (entry.ac.signal.aborted) return this.aborted(taskId, entry);
      if (!verdict.ok) {
        // git (or the directory) refused for want of room: the disk's fault, named so (decision 180).
        // git does not always say why a write failed; a data disk without room is then the cause.
        const full = diskFullCode(verdict.detail) ?? (this.deps.disk.short() ? 'ENOSPC' : null);
        if (full) this.deps.disk.noteRefusal({ code: full, message: verdict.detail });
        block(this.deps, task, full ? 'disk_full' : verdict.reason, verdict.detail);
        return;
      }
    }
    for (;;) {
      if (entry.ac.signal.aborted) return this.aborted(taskId, entry);
      task = deps.tasks.get(taskId);
      if (task?.state !== 'running') return;
      if (task.pause_requested) {
        deps.states.apply(taskId, 'park', 'running', { pause_requested: 0 });
        return;
      }
      let next: Next;
      const repair = jsonOr<RepairSpec | null>(task.repair_spec, null);
      const followUp = jsonOr<FollowUpSpec | null>(task.followup_spec, null);
      const more = repair || followUp || task.current_step < snapshot.steps.length;
      if (more && task.worktree_path && !existsSync(task.worktree_path)) {
        // Deleted under a running task (issue 11, decision 151): spawning in it would fail as a
        // missing shell; stop before the step instead, so no attempt is spent, and let `retry`
        // re-create it from the branch, which holds every commit made so far.
        block(
          this.deps,
          task,
          'worktree_missing',
          `worktree ${task.worktree_path} was deleted while the task ran; retry re-creates it from ${task.branch_name}`,
        );
        return;
      }
      if (more && deps.disk.full) {
        // Disk-full mode (decision 180): the next step would only run into the same wall.
        block(this.deps, task, 'disk_full', 'the data disk is full; free space, then retry');
        return;
      }
      if (more && task.worktree_path) this.clearLeftLock(task, task.worktree_path);
      if (repair) next = await runRepair(this.deps, task, project, snapshot, repair, entry);
      else if (followUp)
        next = await runFollowUp(this.deps, task, project, snapshot, followUp, entry);
      else if (task.current_step >= snapshot.steps.length) {
        deps.disk.rescue(() =>
          deps.states.apply(taskId, 'complete', 'running', { finished_at: this.now() }),
        );
        return;
      } else {
        next = await this.runStep(
          task,
          project,
          snapshot,
          snapshot.steps[task.current_step] as StepDef,
          task.current_step,
          entry,
        );
      }
      if (next === 'stop') {
        if (entry.ac.signal.aborted) return this.aborted(taskId, entry);
        return;
      }
    }
  }

  /**
   * A step process killed mid-`git add` leaves `index.lock` behind, and every later git write in
   * the worktree fails on it. When the task's previous attempt was one the daemon killed (or lost
   * to a crash), its process tree is gone by now, so a lock found here is its leftover: removed
   * and logged. A lock nobody killed is left for a human (decision 152).
   */
  private clearLeftLock(task: TaskRow, worktree: string): void {
    const last = this.deps.runs.newest(task.id);
    if (!last || !KILLED_REASONS.has(last.failure_reason ?? '')) return;
    if (removeLeftIndexLock(worktree))
      this.deps.logger.warn(
        { task_id: task.id, worktree, after: last.failure_reason },
        'removed the index.lock a killed step left behind',
      );
  }

  /** After an abort: a cancel already moved the task; a shutdown sends it back to the queue. */
  private aborted(taskId: number, entry: Active): void {
    const task = this.deps.tasks.get(taskId);
    if (!task) return;
    for (const row of this.deps.runs.open(taskId)) {
      if (task.state === 'awaiting_gate' && waitsForHuman(this.deps.registry, row.step_type))
        continue;
      closeRow(this.deps.runs, row, 'interrupted', this.deps.clock, {
        failure_reason: entry.failure ?? (entry.reason === 'cancel' ? 'canceled' : 'interrupted'),
      });
    }
    if (entry.reason === 'shutdown') {
      this.deps.store.tx(() => {
        for (const row of this.deps.runs.atIndex(taskId, task.current_step)) {
          if (row.state === 'interrupted' && row.failure_reason === 'canceled')
            this.deps.runs.update(row.id, { failure_reason: 'interrupted' });
        }
      });
      if (task.state === 'running' || task.state === 'awaiting_input')
        this.deps.states.apply(taskId, 'interrupt', task.state);
    }
  }

  /** Runs a top-level step at `index` until it succeeds, stops the task, or needs another attempt. */
  private async runStep(
    task: TaskRow,
    project: Project,
    snapshot: WorkflowSnapshot,
    step: StepDef,
    index: number,
    entry: Active,
  ): Promise<Next> {
    const { deps } = this;
    const stepType = deps.registry.stepType(step.type);
    if (!stepType)
      return block(this.deps, task, 'invalid_snapshot', `no step type ${step.type} is registered`);
    const rows = deps.runs.ofTask(task.id);
    const context = topStepContext(task, project, snapshot, step, index, rows);
    if (typeof step.if === 'string' && stepType.meta.ifRole !== 'body') {
      const guard = evaluateGuard(step.if, context);
      if (!guard.ok) {
        recordDecision(this.deps, task, step, index, 'failed', {
          failure_reason: 'condition_error',
          result_summary: guard.error,
        });
        return block(this.deps, task, 'condition_error', guard.error);
      }
      if (!guard.value) {
        recordDecision(this.deps, task, step, index, 'skipped', {
          skip_reason: 'condition',
          result_summary: step.if,
        });
        advance(this.deps, task, index);
        return 'next';
      }
    }
    if (task.join_request && task.worktree_path) {
      // A human's merge_finished (decision 192): this join merges what finished, whatever the step.
      const outcome = await finishJoin(deps, task, step, index);
      deps.states.patch(task.id, 'running', { join_request: null });
      return this.applyFlow(task, snapshot, step, index, outcome);
    }
    // Never over unmerged paths (decision 190): the step would build on, or commit, conflict markers.
    const unmerged = task.worktree_path ? await unmergedPaths(task.worktree_path) : [];
    if (unmerged.length > 0)
      return block(
        this.deps,
        task,
        'merge_conflict',
        `unmerged paths in the worktree before step ${step.id}: ${unmerged.join(', ')}; resolve and stage them (or abort the merge), then retry`,
      );
    if (stepType.flow) {
      const outcome = await runFlow(deps, task, project, snapshot, step, index, entry.ac.signal);
      return this.applyFlow(task, snapshot, step, index, outcome);
    }
    const override = takeOverride(deps, task);
    let next: Next = 'stop';
    await runAttempt(deps, {
      task,
      project,
      snapshot,
      step,
      stepType,
      index,
      iteration: 0,
      item: null,
      groupId: null,
      topName: stepName(step),
      context,
      signal: entry.ac.signal,
      counts_retry: true,
      override,
      // The attempt's end, the task's advance and, after the last step, done: one transaction.
      onSettled: (result) => {
        next = applyOutcome(this.deps, task, snapshot, step, index, result, entry);
        if (next === 'next') next = this.doneIfLast(task.id, snapshot, entry);
      },
    });
    return next;
  }

  /**
   * After a step succeeded: the task is done when nothing follows — as the loop would decide on its
   * next turn (not cancelled, no pause asked for, no repair or follow-up, no step left) — else the
   * loop goes on.
   */
  private doneIfLast(taskId: number, snapshot: WorkflowSnapshot, entry: Active): Next {
    const task = this.deps.tasks.progress(taskId);
    if (
      entry.ac.signal.aborted ||
      task?.state !== 'running' ||
      task.pause_requested ||
      task.repair_spec ||
      task.followup_spec ||
      task.current_step < snapshot.steps.length
    )
      return 'next';
    this.deps.states.apply(taskId, 'complete', 'running', { finished_at: this.now() });
    return 'stop';
  }

  /** Applies what a structural step ended as (FlowOutcome) to the task. */
  private applyFlow(
    task: TaskRow,
    snapshot: WorkflowSnapshot,
    step: StepDef,
    index: number,
    outcome: FlowOutcome,
  ): Next {
    const { deps } = this;
    if (deps.tasks.get(task.id)?.state !== 'running') return 'stop';
    switch (outcome.kind) {
      case 'succeeded': {
        advance(this.deps, task, index);
        const cost = costBlock(this.deps, task);
        if (cost) return block(this.deps, task, cost, `spend passed the cap in step ${step.id}`);
        return 'next';
      }
      case 'failed':
        return block(
          this.deps,
          task,
          blockReasonFor(outcome.reason),
          `${outcome.reason} in step ${step.id}${outcome.message ? `: ${outcome.message}` : ''}`,
        );
      case 'blocked':
        return block(this.deps, task, outcome.reason, outcome.message ?? null);
      case 'stop_workflow':
        deps.states.patch(task.id, 'running', { current_step: snapshot.steps.length });
        return 'next';
      case 'backoff':
        deps.states.apply(task.id, 'backoff', 'running', {
          queued_reason: 'retry_backoff',
          admit_not_before: formatMs(deps.clock.now() + outcome.ms),
        });
        return 'stop';
      case 'usage_limit':
        return usageLimit(this.deps, task, outcome.resets_at, outcome.auto_continue);
      case 'awaiting_children':
        deps.states.apply(task.id, 'spawn_children', 'running');
        // A lane that settled after the flow looked would otherwise never wake the parent.
        if (deps.settledLanes(task.id, index) > (outcome.settled ?? 0)) {
          deps.states.apply(task.id, 'children_settled', 'awaiting_children');
        }
        return 'stop';
      case 'cancelled':
        return 'stop';
    }
  }
}
