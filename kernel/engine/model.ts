/**
 * The engine's view of a task's frozen workflow snapshot and of its JSON columns. The snapshot
 * is whatever the workflow format produced at creation (includes spliced); the engine reads it
 * structurally so a step type added by a plugin needs no engine change.
 */

import { workflowDurationMs } from '../plugin/index.js';
import type { TaskRow } from '../store/index.js';
import type { TaskState } from '../task-states.js';
import { AGENT_STEP } from './kernel-steps.js';

export interface StepDef {
  id: string;
  name?: string;
  type: string;
  if?: string;
  max_retries?: number;
  retry_backoff?: string;
  timeout?: string;
  allow_failure?: boolean;
  resolved_from?: string[];
  [key: string]: unknown;
}

export interface WorkflowSnapshot {
  name: string;
  description?: string;
  platforms?: string[];
  defaults?: Record<string, unknown>;
  steps: StepDef[];
  [key: string]: unknown;
}

export interface WorkflowOrigin {
  scope: 'builtin' | 'global' | 'project' | 'derived';
  file?: string;
  digest?: string;
  parent_task_id?: number;
}

export interface PendingOverride {
  prompt_override?: string;
  run_override?: string;
}

export interface FollowUpSpec {
  kind: 'prompt' | 'run' | 'workflow';
  round: number;
  steps: StepDef[];
  workflow?: string;
}

export interface RepairSpec {
  prompt: string;
  agent?: string;
  model?: string;
  effort?: string;
  block_reason: string;
  block_detail: string | null;
  step_index: number;
}

export function snapshotOf(task: TaskRow): WorkflowSnapshot {
  return JSON.parse(task.workflow_snapshot) as WorkflowSnapshot;
}

export function fieldsOf(task: TaskRow): Record<string, string> {
  return JSON.parse(task.fields) as Record<string, string>;
}

export function jsonOr<T>(text: string | null, fallback: T): T {
  if (text === null || text === '') return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

export function stepName(step: StepDef): string {
  return typeof step.name === 'string' && step.name !== '' ? step.name : step.id;
}

/** Step reasons the engine itself produces (the step types declare their own in `meta.reasons`). */
export const ENGINE_REASONS = [
  'nonzero_exit',
  'check_failed',
  'timeout',
  'transcript_limit',
  'transcript_unwritable',
  'disk_full',
  'template_error',
  'condition_error',
  'interrupted',
  'canceled',
  'internal_error',
  /** `commit: true` could not commit what the step left (a hook refused, git failed). */
  'commit_failed',
] as const;

/** Admission blocks (SPEC §2.1). */
export const ADMISSION_BLOCKS = [
  'branch_exists',
  'base_branch_missing',
  'platform_unsupported',
  'project_path_missing',
  'worktree_missing',
  'worktree_path_occupied',
  'git_error',
] as const;

/** Failure reasons allow_failure may swallow: the step's own verdicts, never the daemon's or the environment's. */
export const SWALLOWABLE = new Set([
  'nonzero_exit',
  'check_failed',
  'agent_error',
  'timeout',
  'transcript_limit',
]);

export const TERMINAL_STATES: readonly TaskState[] = ['done', 'aborted', 'archived'];
export const SETTLED_STATES: readonly TaskState[] = ['done', 'aborted', 'archived'];

/**
 * A setting of a step as it resolves (SPEC §2.8 defaults, decision 025): the step's own value, then
 * the defaults its include carried in, then the workflow's defaults. Undefined means the config
 * default applies.
 */
export function stepSetting(step: StepDef, snapshot: WorkflowSnapshot, key: string): unknown {
  if (step[key] !== undefined) return step[key];
  const carried = step.include_defaults as Record<string, unknown> | undefined;
  if (carried && carried[key] !== undefined) return carried[key];
  return snapshot.defaults?.[key];
}

/** A workflow duration in milliseconds (Go units, decision 021); throws on a malformed one. */
export function durationMs(text: string): number {
  const ms = workflowDurationMs(text);
  if (ms === null) throw new Error(`not a duration: ${JSON.stringify(text)}`);
  return ms;
}

/**
 * Every step a workflow can run, at any depth: group and loop bodies, inline lanes, lane templates,
 * merge resolvers, and (through `laneWorkflow`) the workflows lanes name.
 */
export function everyStep(
  steps: readonly StepDef[],
  laneWorkflow?: (name: string) => readonly StepDef[] | null,
  seen = new Set<string>(),
): StepDef[] {
  const out: StepDef[] = [];
  const visit = (list: unknown) => {
    if (!Array.isArray(list)) return;
    for (const raw of list) {
      if (!raw || typeof raw !== 'object') continue;
      const step = raw as StepDef;
      out.push(step);
      visit(step.steps);
      const lanes = [
        ...(Array.isArray(step.lanes) ? step.lanes : []),
        ...(step.lane && typeof step.lane === 'object' ? [step.lane] : []),
      ];
      for (const lane of lanes as Array<Record<string, unknown>>) {
        visit(lane.steps);
        if (typeof lane.workflow === 'string' && laneWorkflow && !seen.has(lane.workflow)) {
          seen.add(lane.workflow);
          const named = laneWorkflow(lane.workflow);
          if (named) out.push(...everyStep(named, laneWorkflow, seen));
        }
      }
      const merge = step.merge as { agent?: unknown } | undefined;
      if (merge?.agent && typeof merge.agent === 'object')
        out.push({ type: AGENT_STEP, ...(merge.agent as object) } as StepDef);
    }
  };
  visit(steps);
  return out;
}
