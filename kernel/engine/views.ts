/**
 * Task representations (SPEC §2.1): the shape every route returns, list rows with their rollups
 * (cost and tokens across every attempt), and the detail with `workflow_steps[]`, `steps[]` and,
 * for a task with lanes, `children` over the whole subtree, computed per request.
 */
import type { StepTypes } from '../plugin/index.js';
import type { Db, StepRunRow, TaskRow } from '../store/index.js';
import { TASK_STATES } from '../task-states.js';
import { withheldActions } from './lane-merges.js';
import { jsonOr, type StepDef, type WorkflowOrigin, type WorkflowSnapshot } from './model.js';
import { availableActions } from './transitions.js';

export interface ViewContext {
  projectName(id: number): string;
  /** The open chat linked to a task, if any (chats add this later). */
  openChat(taskId: number): number | null;
  /** The step types, for what they declare (a join `merge_finished` acts on; decision 225). */
  types: StepTypes;
  /**
   * Extra list/detail fields contributed by other rooms (loop rollup, …). In a list row
   * (list.ts) `task` has no `workflow_snapshot` and `snapshot` holds only the current step, the
   * whole step when it is a loop: the list never parses snapshots (decision 233). It reads only
   * the database and the configuration: the list keeps row texts until either changes (decision
   * 250).
   */
  decorate?(task: TaskRow, snapshot: WorkflowSnapshot | null, view: Record<string, unknown>): void;
}

function snapshotOrNull(task: TaskRow): WorkflowSnapshot | null {
  return jsonOr<WorkflowSnapshot | null>(task.workflow_snapshot, null);
}

function statusMessage(task: TaskRow, stepName: string): string {
  switch (task.state) {
    case 'queued':
      if (task.queued_reason && task.admit_not_before)
        return `waiting for ${task.queued_reason} until ${task.admit_not_before}`;
      return 'waiting for a slot';
    case 'running':
      return stepName
        ? `running ${stepName} (${Math.min(task.current_step + 1, task.step_total)}/${task.step_total})`
        : 'running';
    case 'blocked':
      return `blocked: ${task.block_reason ?? 'unknown'}${task.block_detail ? ` — ${task.block_detail}` : ''}`;
    case 'awaiting_gate':
      return `waiting for approval at ${stepName}`;
    case 'awaiting_input':
      return `waiting for an answer at ${stepName}`;
    case 'awaiting_children':
      return 'waiting for its lanes';
    case 'paused':
      return 'paused';
    default:
      return task.state;
  }
}

/** The representation shared by every task response (`snap`: the parsed snapshot, when the caller has it). */
export function taskView(
  task: TaskRow,
  ctx: ViewContext,
  snap: WorkflowSnapshot | null = snapshotOrNull(task),
): Record<string, unknown> {
  const chatId = ctx.openChat(task.id);
  const view: Record<string, unknown> = {
    id: task.id,
    project_id: task.project_id,
    title: task.title,
    description: task.description,
    state: task.state,
    workflow: task.workflow,
    workflow_origin: jsonOr<WorkflowOrigin | null>(task.workflow_origin, null),
    fields: jsonOr<Record<string, string>>(task.fields, {}),
    fields_defaulted: jsonOr<string[]>(task.fields_defaulted, []),
    branch_name: task.branch_name,
    base_branch: task.base_branch,
    worktree_path: task.worktree_path,
    // Uncommitted work in the worktree, as last measured (decision 204); null when clean.
    worktree_changes: task.worktree_path ? jsonOr<unknown>(task.worktree_changes, null) : null,
    priority: task.priority,
    agent_override: task.agent_override,
    model_override: task.model_override,
    effort_override: task.effort_override,
    restricted: task.restricted === 1,
    max_task_cost_usd: task.max_task_cost_usd,
    current_step: task.current_step,
    step_total: task.step_total,
    block_reason: task.state === 'blocked' ? task.block_reason : null,
    block_detail: task.state === 'blocked' ? task.block_detail : null,
    queued_reason: task.state === 'queued' ? task.queued_reason : null,
    admit_not_before: task.state === 'queued' ? task.admit_not_before : null,
    pause_requested: task.pause_requested === 1,
    available_actions: availableActions({
      state: task.state,
      chatOpen: chatId !== null,
      withheld: withheldActions(task, snap?.steps, ctx.types),
      hasWorktree: task.worktree_path !== null,
      pauseRequested: task.pause_requested === 1,
    }),
    parent_task_id: task.parent_task_id,
    lane_id: task.lane_id,
    lane_order: task.lane_order,
    created_via: task.created_via,
    follow_up: task.followup_origin
      ? { origin: task.followup_origin, round: task.followup_round }
      : null,
    created_at: task.created_at,
    updated_at: task.updated_at,
    started_at: task.started_at,
    finished_at: task.finished_at,
    archived_at: task.archived_at,
  };
  if (chatId !== null) view.open_chat_id = chatId;
  if (task.source_chat_id !== null) view.source_chat_id = task.source_chat_id;
  if (task.created_by_task_id !== null) view.created_by_task_id = task.created_by_task_id;
  if (task.forge_issue) view.forge_issue = jsonOr<unknown>(task.forge_issue, null);
  if (task.forge_pull) view.forge_pull = jsonOr<unknown>(task.forge_pull, null);
  if (task.state === 'awaiting_input' && task.pending_input)
    view.pending_input = jsonOr<unknown>(task.pending_input, null);
  ctx.decorate?.(task, snap, view);
  return view;
}

export interface Rollup {
  cost_usd: number | null;
  input_tokens: number;
  output_tokens: number;
}

/** Cost and token sums per task, one grouped query for a whole page of rows. */
export function rollups(db: Db, ids: number[]): Map<number, Rollup> {
  const out = new Map<number, Rollup>();
  if (ids.length === 0) return out;
  const rows = db
    .prepare(
      `SELECT task_id, SUM(cost_usd) AS cost_usd, COALESCE(SUM(input_tokens), 0) AS input_tokens,
              COALESCE(SUM(output_tokens), 0) AS output_tokens
       FROM step_runs WHERE task_id IN (SELECT value FROM json_each(?)) GROUP BY task_id`,
    )
    .all(JSON.stringify(ids)) as Array<Rollup & { task_id: number }>;
  for (const r of rows)
    out.set(r.task_id, {
      cost_usd: r.cost_usd,
      input_tokens: r.input_tokens,
      output_tokens: r.output_tokens,
    });
  return out;
}

export function listRow(
  task: TaskRow,
  ctx: ViewContext,
  rollup: Rollup | undefined,
): Record<string, unknown> {
  // Parsed once per row: a snapshot carries every prompt of the workflow.
  const snap = snapshotOrNull(task);
  const step = snap?.steps[task.current_step];
  return listView(task, ctx, snap, step ? (step.name ?? step.id) : '', rollup);
}

/**
 * A list row: the task's representation and what a list shows beside it — the project's name,
 * the current step's name (`stepName`, its name or else its id, '' past the last), a status line,
 * and the spend of every attempt. Shared by the detail (listRow) and the list (list.ts).
 */
export function listView(
  task: TaskRow,
  ctx: ViewContext,
  snap: WorkflowSnapshot | null,
  stepName: string,
  rollup: Rollup | undefined,
): Record<string, unknown> {
  const view = taskView(task, ctx, snap);
  view.project_name = ctx.projectName(task.project_id);
  view.step_name = stepName;
  view.status_message = statusMessage(task, stepName);
  view.cost_usd = rollup?.cost_usd ?? null;
  view.input_tokens = rollup?.input_tokens ?? 0;
  view.output_tokens = rollup?.output_tokens ?? 0;
  return view;
}

export function stepRunView(r: StepRunRow, stepTotal: number): Record<string, unknown> {
  return {
    id: r.id,
    step_index: r.step_index,
    step_id: r.step_id,
    step_name: r.step_name,
    step_type: r.step_type,
    group_id: r.group_id,
    attempt: r.attempt,
    iteration: r.iteration,
    loop_item: r.loop_item,
    state: r.state,
    agent: r.agent,
    model: r.model,
    effort: r.effort,
    pid: r.pid,
    exit_code: r.exit_code,
    check_exit_code: r.check_exit_code,
    failure_reason: r.failure_reason,
    skip_reason: r.skip_reason,
    result_summary: r.result_summary,
    has_transcript: r.transcript_path !== null,
    input_tokens: r.input_tokens,
    output_tokens: r.output_tokens,
    cost_usd: r.cost_usd,
    input_wait_ms: r.input_wait_ms,
    prompt_override: r.prompt_override,
    run_override: r.run_override,
    follow_up: r.step_index >= stepTotal && r.step_id !== '__repair',
    head_before: r.head_before,
    head_after: r.head_after,
    started_at: r.started_at,
    finished_at: r.finished_at,
  };
}

/** `workflow_steps[]`: the snapshot's top-level steps as authored (with `resolved_from[]` where spliced). */
export function workflowStepsView(snap: WorkflowSnapshot | null): Array<Record<string, unknown>> {
  if (!snap) return [];
  return snap.steps.map((s: StepDef, index) => ({ index, ...s, name: s.name ?? s.id }));
}

export interface ChildrenRollup {
  total: number;
  settled: number;
  by_state: Record<string, number>;
  blocked: number[];
  awaiting_gate: number[];
  cost_usd: number | null;
}

/**
 * `children` over the whole subtree (SPEC §2.1): counts, ids needing a human, descendants' spend
 * (null, never 0, when none reported). CROSS JOIN makes the subtree drive the join; left to choose,
 * SQLite scanned every task to probe it (5 ms per detail at 10,000 tasks, issue 11).
 */
export function childrenRollup(db: Db, taskId: number): ChildrenRollup | null {
  const rows = db
    .prepare(
      `WITH RECURSIVE sub(id) AS (SELECT id FROM tasks WHERE parent_task_id = ? UNION ALL
         SELECT t.id FROM tasks t JOIN sub ON t.parent_task_id = sub.id)
       SELECT t.id, t.state, (SELECT SUM(cost_usd) FROM step_runs WHERE task_id = t.id) AS cost
       FROM sub CROSS JOIN tasks t ON t.id = sub.id ORDER BY t.id`,
    )
    .all(taskId) as Array<{ id: number; state: string; cost: number | null }>;
  if (rows.length === 0) return null;
  const by_state: Record<string, number> = {};
  let cost: number | null = null;
  for (const r of rows) {
    by_state[r.state] = (by_state[r.state] ?? 0) + 1;
    if (r.cost !== null) cost = (cost ?? 0) + r.cost;
  }
  const settled = rows.filter((r) => ['done', 'aborted', 'archived'].includes(r.state)).length;
  return {
    total: rows.length,
    settled,
    by_state: Object.fromEntries(
      TASK_STATES.filter((s) => by_state[s]).map((s) => [s, by_state[s] as number]),
    ),
    blocked: rows.filter((r) => r.state === 'blocked').map((r) => r.id),
    awaiting_gate: rows.filter((r) => r.state === 'awaiting_gate').map((r) => r.id),
    cost_usd: cost,
  };
}
