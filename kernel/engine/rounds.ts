/**
 * The rounds a task runs besides its workflow's steps: a follow-up (SPEC §3.2, decision 015),
 * which runs past the last step and returns to its origin state whatever its exit, and a repair
 * (SPEC §4.4), an agent attempt at the blocked step that never changes the verdict.
 */
import { formatMs } from '../clock/index.js';
import type { Project } from '../projects/index.js';
import type { TaskRow } from '../store/index.js';
import { runAttempt } from './attempt.js';
import { buildContext, topStepContext } from './context.js';
import { AGENT_STEP } from './kernel-steps.js';
import {
  type FollowUpSpec,
  jsonOr,
  type RepairSpec,
  type StepDef,
  stepName,
  type WorkflowSnapshot,
} from './model.js';
import { block, costBlock, maxRetries, noteFailure, takeOverride, usageLimit } from './outcomes.js';
import type { Active, Next, RunnerDeps } from './runner-deps.js';

/** Follow-up failures that block instead of returning to the origin state (decision 015). */
const FOLLOWUP_BLOCKS = new Set([
  'agent_unavailable',
  'shell_unavailable',
  'template_error',
  'condition_error',
  'mcp_unsupported',
  'internal_error',
  'invalid_snapshot',
]);

/** A follow-up round (SPEC §3.2): runs at index step_total + round - 1 and returns to its origin state whatever its exit. */
export async function runFollowUp(
  deps: RunnerDeps,
  task: TaskRow,
  project: Project,
  snapshot: WorkflowSnapshot,
  spec: FollowUpSpec,
  entry: Active,
): Promise<Next> {
  const index = task.step_total + spec.round - 1;
  const rows = deps.runs.atIndex(task.id, index);
  const done = (id: string) =>
    rows.some((r) => r.step_id === id && ['succeeded', 'skipped', 'approved'].includes(r.state));
  const step = spec.steps.find((s) => !done(s.id));
  if (!step) return returnToOrigin(deps, task);
  const stepType = deps.registry.stepType(step.type);
  if (!stepType)
    return block(deps, task, 'invalid_snapshot', `no step type ${step.type} is registered`);
  const all = deps.runs.ofTask(task.id);
  const context = topStepContext(task, project, snapshot, step, index, all);
  const override = takeOverride(deps, task);
  const result = await runAttempt(deps, {
    task,
    project,
    snapshot,
    step,
    stepType,
    index,
    iteration: 0,
    item: null,
    groupId: spec.steps.length > 1 ? 'follow_up' : null,
    topName: spec.steps.length > 1 ? `follow-up ${spec.round}` : stepName(step),
    context,
    signal: entry.ac.signal,
    counts_retry: true,
    override,
  });
  const { outcome } = result;
  const costReason = result.row.cost_usd !== null ? costBlock(deps, task) : null;
  if (costReason)
    return block(deps, task, costReason, `spend passed the cap in follow-up ${spec.round}`);
  switch (outcome.kind) {
    case 'cancelled':
      noteFailure(deps, result, entry);
      return 'stop';
    case 'awaiting_gate':
      deps.states.apply(task.id, 'gate', 'running');
      return 'stop';
    case 'usage_limit':
      return usageLimit(deps, task, outcome.resets_at, outcome.auto_continue);
    case 'succeeded':
      return 'next';
    case 'failed': {
      if (FOLLOWUP_BLOCKS.has(outcome.reason))
        return block(deps, task, outcome.reason, outcome.message ?? null);
      const failures = deps.runs.failuresSince(task.id, index, step.id, 0, task.retry_floor);
      if (failures <= maxRetries(step, snapshot)) return 'next';
      return returnToOrigin(deps, task);
    }
  }
}

export function returnToOrigin(deps: RunnerDeps, task: TaskRow): Next {
  const spec = jsonOr<(FollowUpSpec & { origin_step?: number }) | null>(task.followup_spec, null);
  deps.states.apply(task.id, 'followup_return', task.state, {
    followup_spec: null,
    followup_origin: null,
    current_step: spec?.origin_step ?? task.step_total,
    finished_at: formatMs(deps.clock.now()),
  });
  return 'stop';
}

/** A repair run (SPEC §4.4): an agent attempt at the blocked index that never changes the verdict. */
export async function runRepair(
  deps: RunnerDeps,
  task: TaskRow,
  project: Project,
  snapshot: WorkflowSnapshot,
  spec: RepairSpec,
  entry: Active,
): Promise<Next> {
  const stepType = deps.registry.stepType(AGENT_STEP);
  // The prompt is literal text (the human's words around the failure context), not a template.
  const step: StepDef = {
    id: '__repair',
    name: '__repair',
    type: AGENT_STEP,
    prompt: spec.prompt,
    literal_prompt: true,
  };
  if (spec.agent) step.agent = spec.agent;
  if (spec.model) step.model = spec.model;
  if (spec.effort) step.effort = spec.effort;
  if (stepType) {
    const all = deps.runs.ofTask(task.id);
    const context = buildContext(
      task,
      project,
      snapshot,
      step,
      { index: spec.step_index, attempt: 1, iteration: 0, item: null },
      all,
    );
    await runAttempt(deps, {
      task,
      project,
      snapshot,
      step,
      stepType,
      index: spec.step_index,
      iteration: 0,
      item: null,
      groupId: null,
      topName: '__repair',
      context: { ...context, Steps: {} },
      signal: entry.ac.signal,
      counts_retry: false,
    });
  }
  if (entry.ac.signal.aborted) return 'stop';
  const now = deps.tasks.get(task.id);
  if (now?.state !== 'running') return 'stop';
  deps.states.apply(task.id, 'repair_done', 'running', {
    block_reason: spec.block_reason,
    block_detail: spec.block_detail,
    repair_spec: null,
  });
  return 'stop';
}
