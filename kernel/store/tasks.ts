/** The tasks table: rows as stored, JSON columns as text. Views and rules live in the engine. */
import type { TaskState } from '../task-states.js';
import type { Db } from './database.js';

export interface TaskRow {
  id: number;
  project_id: number;
  parent_task_id: number | null;
  root_task_id: number | null;
  depth: number;
  lane_id: string | null;
  lane_order: number | null;
  spawned_by_index: number | null;
  title: string;
  description: string;
  prompt: string | null;
  state: TaskState;
  workflow: string;
  workflow_origin: string | null;
  workflow_snapshot: string;
  fields: string;
  fields_defaulted: string;
  branch_name: string | null;
  base_branch: string;
  worktree_path: string | null;
  /** JSON `{branch, start}` while svc cuts a worktree for a task not yet started (decision 159). */
  worktree_cut: string | null;
  /** JSON `{files, additions, deletions, untracked}` when the worktree holds uncommitted work (decision 204). */
  worktree_changes: string | null;
  priority: number;
  agent_override: string | null;
  model_override: string | null;
  effort_override: string | null;
  restricted: number;
  max_task_cost_usd: number | null;
  current_step: number;
  step_total: number;
  block_reason: string | null;
  block_detail: string | null;
  queued_reason: string | null;
  admit_not_before: string | null;
  pause_requested: number;
  pending_input: string | null;
  followup_origin: TaskState | null;
  followup_round: number;
  followup_spec: string | null;
  repair_spec: string | null;
  pending_override: string | null;
  retry_floor: number;
  source_chat_id: number | null;
  forge_issue: string | null;
  forge_pull: string | null;
  created_via: string | null;
  /** The task whose agent step created this one through its MCP endpoint (decision 123). */
  created_by_task_id: number | null;
  /** The first task of that MCP chain not itself created through MCP; null off the chain. */
  mcp_origin_task_id: number | null;
  /** Links from the origin down to this task through MCP creation; 0 off the chain. */
  mcp_depth: number;
  /** On a lane: `merged` once the parent's branch holds it, `left_out` when a human went on without it (migration 0011). */
  lane_merge: 'merged' | 'left_out' | null;
  /** Why a lane was left out (`aborted`, `conflict`, `unfinished`, `skipped`, …). */
  lane_merge_note: string | null;
  /** On a parent: a `merge_finished` waiting for the runner's next join (decision 192). */
  join_request: string | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
  archived_at: string | null;
  /**
   * `[[name or id, type], …]` of the snapshot's top-level steps, kept by SQLite triggers (migration
   * 0015): present on every row read back, never written by svc.
   */
  steps_outline?: string;
}

export type TaskInsert = Omit<TaskRow, 'id' | 'steps_outline'>;

/** What an admission pass knows of a queued task. */
export type QueuedTask = Pick<
  TaskRow,
  'id' | 'project_id' | 'priority' | 'pause_requested' | 'admit_not_before'
>;

/**
 * What the runner asks of a running task between steps: where it is and whether anything waits
 * to change its course. Read without the row's text columns (the prompt alone may be a mebibyte).
 */
export type TaskProgress = Pick<
  TaskRow,
  | 'id'
  | 'project_id'
  | 'state'
  | 'current_step'
  | 'pause_requested'
  | 'repair_spec'
  | 'followup_spec'
>;

/** A new task row with every optional column empty; callers name what they know. */
export function newTask(
  t: Pick<
    TaskRow,
    | 'project_id'
    | 'title'
    | 'state'
    | 'workflow'
    | 'workflow_snapshot'
    | 'base_branch'
    | 'step_total'
    | 'created_at'
  > &
    Partial<TaskInsert>,
): TaskInsert {
  return {
    parent_task_id: null,
    root_task_id: null,
    depth: 0,
    lane_id: null,
    lane_order: null,
    spawned_by_index: null,
    description: '',
    prompt: null,
    workflow_origin: null,
    fields: '{}',
    fields_defaulted: '[]',
    branch_name: null,
    worktree_path: null,
    worktree_cut: null,
    worktree_changes: null,
    priority: 0,
    agent_override: null,
    model_override: null,
    effort_override: null,
    restricted: 0,
    max_task_cost_usd: null,
    current_step: 0,
    block_reason: null,
    block_detail: null,
    queued_reason: null,
    admit_not_before: null,
    pause_requested: 0,
    pending_input: null,
    followup_origin: null,
    followup_round: 0,
    followup_spec: null,
    repair_spec: null,
    pending_override: null,
    retry_floor: 0,
    source_chat_id: null,
    forge_issue: null,
    forge_pull: null,
    created_via: null,
    created_by_task_id: null,
    mcp_origin_task_id: null,
    mcp_depth: 0,
    lane_merge: null,
    lane_merge_note: null,
    join_request: null,
    updated_at: t.created_at,
    started_at: null,
    finished_at: null,
    archived_at: null,
    ...t,
  };
}
/**
 * The fields a write may change beside the state. `state` is not one: it is written only by
 * `moveState`, which only `TaskStates.apply` calls, after looking the move up in the transition
 * table (engine/transitions.ts, decision 222).
 */
export type TaskPatch = Partial<Omit<TaskRow, 'id' | 'state'>>;

/** A state write smuggled into a field patch (a cast, a spread) is a bug, refused loudly. */
function noState(patch: TaskPatch): void {
  if ('state' in patch) throw new Error('tasks.state is written only through TaskStates.apply');
}

export class TasksTable {
  private readonly getStmt;

  constructor(private readonly db: Db) {
    this.getStmt = db.prepare('SELECT * FROM tasks WHERE id = ?');
  }

  insert(t: TaskInsert): number {
    const keys = Object.keys(t);
    const info = this.db
      .prepare(
        `INSERT INTO tasks (${keys.join(', ')}) VALUES (${keys.map((k) => `@${k}`).join(', ')})`,
      )
      .run(t);
    return Number(info.lastInsertRowid);
  }

  get(id: number): TaskRow | undefined {
    return this.getStmt.get(id) as TaskRow | undefined;
  }

  /**
   * The task's progress alone: a whole row is 58 columns made into an object, its workflow
   * snapshot and prompt copied into strings, several times a step (issue 22).
   */
  progress(id: number): TaskProgress | undefined {
    return this.db
      .prepare(
        'SELECT id, project_id, state, current_step, pause_requested, repair_spec, followup_spec FROM tasks WHERE id = ?',
      )
      .get(id) as TaskProgress | undefined;
  }

  /** Compare-and-swap: applies `patch` only while the task is in `from`; true when it did. */
  cas(id: number, from: TaskState, patch: TaskPatch): boolean {
    noState(patch);
    return this.write(id, from, patch);
  }

  /**
   * The one writer of `tasks.state`: for `TaskStates.apply`, which checks the move first. Answers
   * the row as written (`RETURNING`: the event and the listeners need it, and reading it again
   * was one more statement on every state change), or undefined when the task had left `from`.
   */
  moveState(id: number, from: TaskState, to: TaskState, patch: TaskPatch): TaskRow | undefined {
    noState(patch);
    const set: Partial<Omit<TaskRow, 'id'>> = { ...patch, state: to };
    const keys = Object.keys(set);
    const row = this.db
      .prepare(
        `UPDATE tasks SET ${keys.map((k) => `${k} = @${k}`).join(', ')} WHERE id = @__id AND state = @__from RETURNING *`,
      )
      .get({ ...set, __id: id, __from: from }) as TaskRow | undefined;
    // RETURNING does not see what a trigger writes after it: a new snapshot's outline
    // (migration 0015) is read back.
    return row && 'workflow_snapshot' in patch ? this.get(id) : row;
  }

  private write(id: number, from: TaskState, patch: Partial<Omit<TaskRow, 'id'>>): boolean {
    const keys = Object.keys(patch);
    const info = this.db
      .prepare(
        `UPDATE tasks SET ${keys.map((k) => `${k} = @${k}`).join(', ')} WHERE id = @__id AND state = @__from`,
      )
      .run({ ...patch, __id: id, __from: from });
    return info.changes === 1;
  }

  update(id: number, patch: TaskPatch): void {
    noState(patch);
    const keys = Object.keys(patch);
    if (keys.length === 0) return;
    this.db
      .prepare(`UPDATE tasks SET ${keys.map((k) => `${k} = @${k}`).join(', ')} WHERE id = @__id`)
      .run({ ...patch, __id: id });
  }

  byState(states: readonly TaskState[]): TaskRow[] {
    return this.db
      .prepare(
        `SELECT * FROM tasks WHERE state IN (${states.map(() => '?').join(', ')}) ORDER BY id`,
      )
      .all(...states) as TaskRow[];
  }

  /**
   * Queued tasks in admission order: priority, then age (SPEC §2.10 scheduler), with only the
   * columns a pass reads. A pass runs on every state change; whole rows (each carrying its
   * workflow snapshot) made one pass over 500 queued tasks cost ~50 ms, narrow ones ~4 (issue 11).
   */
  admissionQueue(limit = -1): QueuedTask[] {
    return this.db
      .prepare(
        `SELECT id, project_id, priority, pause_requested, admit_not_before FROM tasks
         WHERE state = 'queued' ORDER BY priority DESC, created_at, id LIMIT ?`,
      )
      .all(limit) as QueuedTask[];
  }

  /** Queued tasks whose pause was requested (read through their own index, migration 0015). */
  queuedPauses(): QueuedTask[] {
    return this.db
      .prepare(
        `SELECT id, project_id, priority, pause_requested, admit_not_before FROM tasks
         WHERE state = 'queued' AND pause_requested = 1 ORDER BY priority DESC, created_at, id`,
      )
      .all() as QueuedTask[];
  }

  /** The clocks of queued tasks that have one (read through their own index, migration 0015). */
  queuedClocks(): string[] {
    return this.db
      .prepare(
        "SELECT admit_not_before FROM tasks WHERE state = 'queued' AND admit_not_before IS NOT NULL",
      )
      .pluck()
      .all() as string[];
  }

  slotHolders(): Array<{ id: number; project_id: number }> {
    return this.db
      .prepare("SELECT id, project_id FROM tasks WHERE state IN ('running', 'awaiting_input')")
      .all() as Array<{
      id: number;
      project_id: number;
    }>;
  }

  children(parentId: number): TaskRow[] {
    return this.db
      .prepare('SELECT * FROM tasks WHERE parent_task_id = ? ORDER BY lane_order, id')
      .all(parentId) as TaskRow[];
  }

  /** Every task below `rootId` in its fan-out tree (not the root itself); the subtree drives the join. */
  descendants(id: number): TaskRow[] {
    return this.db
      .prepare(
        `WITH RECURSIVE sub(id) AS (SELECT id FROM tasks WHERE parent_task_id = ? UNION ALL
           SELECT t.id FROM tasks t JOIN sub ON t.parent_task_id = sub.id)
         SELECT tasks.* FROM sub CROSS JOIN tasks ON tasks.id = sub.id ORDER BY tasks.id`,
      )
      .all(id) as TaskRow[];
  }

  /** Non-archived tasks of a project holding `branch` (the claim check). */
  claimOf(projectId: number, branch: string, exceptId = 0): TaskRow | undefined {
    return this.db
      .prepare(
        "SELECT * FROM tasks WHERE project_id = ? AND branch_name = ? AND state <> 'archived' AND id <> ? LIMIT 1",
      )
      .get(projectId, branch, exceptId) as TaskRow | undefined;
  }

  ofProject(projectId: number): TaskRow[] {
    return this.db
      .prepare('SELECT * FROM tasks WHERE project_id = ? ORDER BY id')
      .all(projectId) as TaskRow[];
  }

  deleteOfProject(projectId: number): void {
    this.db.prepare('DELETE FROM tasks WHERE project_id = ?').run(projectId);
  }
}
