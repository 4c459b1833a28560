/**
 * The template context of SPEC §2.8 for one step attempt: `.Task`, `.Project`, `.Workflow`,
 * `.Step`, `.Steps`, `.Loop`/`.Item`/`.Iteration`, `.Host`, `.Worktree`, `.LastFailure`,
 * `.Conflicts`. `.Steps` holds the steps the run has moved past, each `{Status, Result, ExitCode}`,
 * keyed by step id; a step never sees its own failed attempts mid-retry.
 */
import type { TaskView } from '../plugin/index.js';
import type { Project } from '../projects/index.js';
import type { StepRunRow, TaskRow } from '../store/index.js';
import { fieldsOf, type StepDef, type WorkflowSnapshot } from './model.js';

/** The task as a step (or a flow step) sees it: `ctx.task`. */
export function taskView(
  task: TaskRow,
  project: Project,
  worktree: string,
  fields: Record<string, string>,
): TaskView {
  return {
    id: task.id,
    title: task.title,
    description: task.description,
    workflow: task.workflow,
    fields,
    branch: task.branch_name ?? '',
    base_branch: task.base_branch,
    worktree,
    project: {
      id: project.id,
      name: project.name,
      path: project.path,
      default_branch: project.default_branch,
    },
    restricted: task.restricted === 1,
    agent_override: task.agent_override,
    model_override: task.model_override,
    effort_override: task.effort_override,
    prompt: task.prompt ?? '',
  };
}

export interface StepPosition {
  index: number;
  attempt: number;
  iteration: number;
  item: string | null;
  /** Items of the loop being run, for `.Loop.IsLast`. */
  loopTotal?: number;
}

export interface StepsEntry {
  Status: string;
  Result: string;
  ExitCode: number | null;
}

/** `.Steps`: latest row per step id among steps already passed (and earlier body steps of this iteration). */
export function stepsContext(
  rows: StepRunRow[],
  pos: { index: number; iteration: number },
): Record<string, StepsEntry> {
  const out: Record<string, StepsEntry> = {};
  for (const r of rows) {
    const passed =
      r.step_index < pos.index ||
      (r.step_index === pos.index && r.iteration === pos.iteration && pos.iteration > 0);
    if (!passed) continue;
    if (!['succeeded', 'approved', 'skipped', 'failed'].includes(r.state)) continue;
    out[r.step_id] = { Status: r.state, Result: r.result_summary, ExitCode: r.exit_code };
  }
  return out;
}

function laneItem(
  snapshot: WorkflowSnapshot,
): { value: string; iteration: number; total: number } | null {
  const v = snapshot.lane_item as
    | { value?: unknown; iteration?: unknown; total?: unknown }
    | undefined;
  return v && typeof v.value === 'string' && typeof v.iteration === 'number'
    ? { value: v.value, iteration: v.iteration, total: typeof v.total === 'number' ? v.total : 0 }
    : null;
}

export function buildContext(
  task: TaskRow,
  project: Project,
  snapshot: WorkflowSnapshot,
  step: StepDef,
  pos: StepPosition,
  rows: StepRunRow[],
  extra: {
    lastFailure?: { Reason: string; Output: string };
    conflicts?: string[];
    event?: unknown;
  } = {},
): Record<string, unknown> {
  // A lane a `lane:` template made sees its item as `.Loop` outside any loop of its own (decision 197).
  const lane = pos.iteration === 0 ? laneItem(snapshot) : null;
  const loop = lane
    ? { iteration: lane.iteration, item: lane.value, loopTotal: lane.total }
    : { iteration: pos.iteration, item: pos.item, loopTotal: pos.loopTotal };
  return {
    Task: {
      ID: task.id,
      Title: task.title,
      Description: task.description,
      Prompt: task.prompt ?? '',
      Fields: fieldsOf(task),
      BaseBranch: task.base_branch,
      BranchName: task.branch_name ?? '',
      ParentID: task.parent_task_id ?? 0,
      LaneID: task.lane_id ?? '',
    },
    Project: { Name: project.name, Path: project.path, DefaultBranch: project.default_branch },
    Workflow: { Name: snapshot.name, Description: snapshot.description ?? '' },
    Step: { ID: step.id, Name: step.name ?? step.id, Index: pos.index, Attempt: pos.attempt },
    Steps: stepsContext(rows, pos),
    Loop: {
      Index: loop.iteration,
      Iteration: loop.iteration,
      Item: loop.item ?? '',
      IsFirst: loop.iteration === 1,
      IsLast: loop.loopTotal !== undefined && loop.iteration === loop.loopTotal,
      Total: loop.loopTotal ?? 0,
    },
    Item: loop.item ?? '',
    Iteration: loop.iteration,
    Host: {
      OS: process.platform === 'win32' ? 'windows' : process.platform,
      Arch: process.arch === 'x64' ? 'amd64' : process.arch,
    },
    Worktree: { Path: task.worktree_path ?? '' },
    LastFailure: extra.lastFailure ?? { Reason: '', Output: '' },
    Conflicts: extra.conflicts ?? [],
    Event: extra.event ?? {},
  };
}

/**
 * The template context of a top-level step's next attempt: its attempt number, and the last
 * failure since the task's retry floor (`.LastFailure`). `rows` are every run of the task, so the
 * attempt number is read from them rather than asked of the database again.
 */
export function topStepContext(
  task: TaskRow,
  project: Project,
  snapshot: WorkflowSnapshot,
  step: StepDef,
  index: number,
  rows: StepRunRow[],
): Record<string, unknown> {
  let attempt = 1;
  for (const r of rows)
    if (r.step_index === index && r.step_id === step.id && r.iteration === 0)
      attempt = Math.max(attempt, r.attempt + 1);
  const last = rows
    .filter(
      (r) =>
        r.step_index === index &&
        r.step_id === step.id &&
        r.state === 'failed' &&
        r.id > task.retry_floor,
    )
    .at(-1);
  return buildContext(
    task,
    project,
    snapshot,
    step,
    { index, attempt, iteration: 0, item: null },
    rows,
    {
      lastFailure: last
        ? { Reason: last.failure_reason ?? '', Output: last.result_summary }
        : undefined,
    },
  );
}
