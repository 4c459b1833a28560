/**
 * The actions that run a task again (SPEC §3.2, §4.4): repair (an agent at the blocked step, the
 * block kept as the verdict), follow-up (a round past the last step that returns to where it
 * came from), and the branch a retry may rename (`branch_override`).
 */
import { SvcError } from '../errors.js';
import { branchExists, gitRaw } from '../git/index.js';
import type { Project } from '../projects/index.js';
import type { TaskRow } from '../store/index.js';
import type { TaskState } from '../task-states.js';
import type { ActionKit, FollowUpBody } from './action-kit.js';
import { AGENT_STEP, COMMAND_STEP } from './kernel-steps.js';
import { type FollowUpSpec, type RepairSpec, type StepDef, snapshotOf } from './model.js';
import { branchNameProblem } from './refname.js';
import { repairPrompt } from './repair.js';
import { actionAllowed, heldEvent } from './transitions.js';

export async function checkBranchOverride(
  kit: ActionKit,
  task: TaskRow,
  name: string,
): Promise<string> {
  if (task.forge_pull)
    throw new SvcError(
      'invalid_state',
      'the branch of a pull-request task is the pull request’s head',
      { state: task.state, reason: 'pull_request_branch' },
    );
  const trimmed = name.trim();
  const problem = branchNameProblem(trimmed);
  if (problem)
    throw new SvcError(
      'validation_failed',
      `branch_override ${JSON.stringify(trimmed)} ${problem}`,
      { field: 'branch_override' },
    );
  const project = kit.d.projects.require(task.project_id);
  if (await branchExists(project.path, trimmed))
    throw new SvcError('validation_failed', `branch ${trimmed} already exists`, {
      field: 'branch_override',
    });
  const claim = kit.d.tasks.claimOf(project.id, trimmed, task.id);
  if (claim)
    throw new SvcError(
      'validation_failed',
      `branch ${trimmed} is already claimed by task ${claim.id}`,
      { field: 'branch_override' },
    );
  if (task.worktree_path && task.branch_name) {
    const r = await gitRaw(project.path, ['branch', '-m', task.branch_name, trimmed]);
    if (r.code !== 0)
      throw new SvcError('validation_failed', `cannot rename the branch: ${r.stderr.trim()}`, {
        field: 'branch_override',
      });
  }
  return trimmed;
}

export function repair(
  kit: ActionKit,
  id: number,
  body: { prompt: string; agent?: string; model?: string; effort?: string },
): { task: TaskRow; warnings: string[] } {
  const first = kit.load(id);
  kit.locked(first, 'repair');
  if (first.state !== 'blocked')
    throw new SvcError('invalid_state', `cannot repair a task that is ${first.state}`, {
      state: first.state,
    });
  if (!first.worktree_path)
    throw new SvcError('invalid_state', 'the task has no worktree to repair in', {
      state: first.state,
      reason: 'no_worktree',
    });
  const snapshot = snapshotOf(first);
  const repairStep: StepDef = { id: '__repair', type: AGENT_STEP, prompt: body.prompt };
  if (body.agent) repairStep.agent = body.agent;
  if (body.model) repairStep.model = body.model;
  if (body.effort) repairStep.effort = body.effort;
  const warnings = kit.d.agents.checkTask(
    { ...snapshot, steps: [repairStep] },
    {},
    first.restricted === 1,
  );
  const prompt = repairPrompt(first, kit.d.runs.ofTask(first.id), body.prompt, snapshot);
  const spec: RepairSpec = {
    prompt,
    agent: body.agent,
    model: body.model,
    effort: body.effort,
    block_reason: first.block_reason ?? 'step_failed',
    block_detail: first.block_detail,
    step_index: first.current_step,
  };
  const task = kit.act(id, 'repair', (t) =>
    kit.d.states.apply(t.id, 'repair', 'blocked', { repair_spec: JSON.stringify(spec) }),
  );
  return { task, warnings };
}

export function followUp(
  kit: ActionKit,
  id: number,
  body: FollowUpBody,
): { task: TaskRow; warnings: string[] } {
  const first = kit.load(id);
  kit.locked(first, 'follow_up');
  if (!actionAllowed('follow_up', first.state)) {
    throw new SvcError('invalid_state', `cannot follow-up a task that is ${first.state}`, {
      state: first.state,
    });
  }
  if (!first.worktree_path)
    throw new SvcError('invalid_state', 'the task has no worktree to follow up in', {
      state: first.state,
      reason: 'no_worktree',
    });
  const round = first.followup_round + 1;
  let steps: StepDef[];
  let warnings: string[] = [];
  let kind: FollowUpSpec['kind'];
  if (body.workflow !== undefined) {
    kind = 'workflow';
    const project = kit.d.projects.require(first.project_id) as Project;
    const wf = kit.d.workflows.forTask(body.workflow, project);
    steps = wf.snapshot.steps;
    warnings = wf.warnings;
  } else if (body.run !== undefined) {
    kind = 'run';
    steps = [{ id: `follow-up-${round}`, type: COMMAND_STEP, run: body.run, max_retries: 0 }];
  } else {
    kind = 'prompt';
    const step: StepDef = {
      id: `follow-up-${round}`,
      type: AGENT_STEP,
      prompt: body.prompt ?? '',
      max_retries: 0,
      // The agent continues the task's latest session of its CLI where it can (decision 044);
      // the human's prompt is literal text, not a template.
      continue_session: true,
      literal_prompt: true,
    };
    if (body.agent) step.agent = body.agent;
    if (body.model) step.model = body.model;
    if (body.effort) step.effort = body.effort;
    steps = [step];
    warnings = kit.d.agents.checkTask({ ...snapshotOf(first), steps }, {}, first.restricted === 1);
  }
  const spec: FollowUpSpec & { origin_step: number } = {
    kind,
    round,
    steps,
    workflow: body.workflow,
    origin_step: first.current_step,
  };
  const task = kit.act(id, 'follow_up', (t) =>
    kit.d.states.apply(t.id, heldEvent('follow_up', t.pause_requested), t.state, {
      followup_origin: t.state as TaskState,
      followup_round: round,
      followup_spec: JSON.stringify(spec),
      current_step: t.step_total + round - 1,
      retry_floor: kit.d.runs.maxId(t.id),
      pause_requested: 0,
      finished_at: null,
    }),
  );
  return { task, warnings };
}
