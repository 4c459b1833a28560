/**
 * The fan_out step (SPEC §2.8): each lane becomes a child task with its own worktree and branch,
 * based on the parent's branch; the parent parks in awaiting_children and merges the lanes
 * `--no-ff` in declared order once they settle. Load-time rules here: exactly one of `lanes` and
 * `lane`, each lane exactly one of `workflow` and `steps`, lane ids unique in the step, a static
 * list within `fan_out.max_tasks`, and the merge block's resolver rules (an agent step with an id,
 * only with `on_conflict: agent`, pinned to `retry_backoff: 0`, never `on_input: require`).
 * Named lane workflows, depth and descendant counts are judged at task creation.
 */

import {
  agentValueFindings,
  defineStepType,
  type LaneSource,
  type PathSegment,
  type StepChildren,
  type StepFinding,
  type StepValidationContext,
  workflowDurationMs,
} from '../../../kernel/plugin/index.js';
import { fanOutFlow } from './flow.js';
import {
  FAN_OUT_COMMON,
  FAN_OUT_ROWS,
  FAN_OUT_SECTIONS,
  type FanOutStep,
  FanOutStepSchema,
} from './schema.js';

type LaneLike = Record<string, unknown>;

function isMap(v: unknown): v is LaneLike {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function lanesOf(def: FanOutStep): Array<{ lane: LaneLike; path: PathSegment[] }> {
  const out: Array<{ lane: LaneLike; path: PathSegment[] }> = [];
  if (Array.isArray(def?.lanes))
    def.lanes.forEach((lane, i) => {
      if (isMap(lane)) out.push({ lane, path: ['lanes', i] });
    });
  if (isMap(def?.lane)) out.push({ lane: def.lane, path: ['lane'] });
  return out;
}

function prefixed(findings: StepFinding[], prefix: PathSegment[]): StepFinding[] {
  return findings.map((f) => ({ ...f, path: [...prefix, ...f.path] }));
}

function laneFindings(def: FanOutStep, ctx: StepValidationContext): StepFinding[] {
  const out: StepFinding[] = [];
  const seen = new Map<string, number>();
  for (const { lane, path } of lanesOf(def)) {
    const hasWorkflow = lane.workflow !== undefined;
    const hasSteps = lane.steps !== undefined;
    if (hasWorkflow === hasSteps) {
      out.push({
        path: hasWorkflow ? [...path, 'steps'] : path,
        code: 'lane_source',
        message: hasWorkflow
          ? 'a lane takes workflow or steps, not both'
          : 'a lane needs workflow or steps',
      });
    }
    if (typeof lane.id === 'string' && path[0] === 'lanes') {
      const first = seen.get(lane.id);
      if (first !== undefined) {
        out.push({
          path: [...path, 'id'],
          code: 'duplicate_lane_id',
          message: `lane id "${lane.id}" is already used by lanes[${first}]`,
        });
      } else seen.set(lane.id, path[1] as number);
    }
    const resolvedAgent = lane.agent ?? ctx.resolve({}, 'agent')?.value;
    out.push(...prefixed(agentValueFindings(lane, resolvedAgent, ctx.agents), path));
  }
  return out;
}

function mergeFindings(def: FanOutStep, ctx: StepValidationContext): StepFinding[] {
  const merge = def?.merge;
  if (!isMap(merge)) return [];
  const out: StepFinding[] = [];
  const wantsAgent = merge.on_conflict === 'agent';
  if (wantsAgent && merge.agent === undefined) {
    out.push({
      path: ['merge'],
      code: 'merge_agent_required',
      message: 'on_conflict: agent needs merge.agent, the resolver step',
    });
  }
  if (!wantsAgent && merge.agent !== undefined) {
    out.push({
      path: ['merge', 'agent'],
      code: 'merge_agent_not_allowed',
      message: 'merge.agent is only valid with on_conflict: agent',
    });
  }
  const resolver = merge.agent;
  if (isMap(resolver)) {
    const backoff = resolver.retry_backoff;
    if (typeof backoff === 'string' && workflowDurationMs(backoff) !== 0) {
      out.push({
        path: ['merge', 'agent', 'retry_backoff'],
        code: 'resolver_backoff',
        message: 'the merge resolver is pinned to retry_backoff: 0 (the parent holds the merge)',
      });
    }
    const onInput = ctx.resolve(resolver, 'on_input');
    if (onInput?.value === 'require') {
      const fromDefaults = onInput.from === 'defaults';
      out.push({
        path: fromDefaults ? ['defaults', 'on_input'] : ['merge', 'agent', 'on_input'],
        fromRoot: fromDefaults,
        code: 'input_required_here',
        message: 'the merge resolver may not use on_input: require',
      });
    }
  }
  return out;
}

export const fanOutStep = defineStepType<FanOutStep>({
  meta: {
    type: 'fan_out',
    schema: FanOutStepSchema,
    common: FAN_OUT_COMMON,
    rows: FAN_OUT_ROWS,
    sections: FAN_OUT_SECTIONS,
    docs: {
      summary: 'Split work into child tasks (lanes) and merge their branches back in order.',
      url: 'docs/workflows.md#fan_out',
    },
    reasons: ['merge_conflict', 'lane_failed', 'loop_limit', 'condition_error', 'timeout'],
    contexts: ['body'],
    templates: [
      'if',
      'lanes[].if',
      'lanes[].fields.*',
      'lane.if',
      'lane.for_each',
      'lane.for_each[]',
      'lane.fields.*',
    ],
  },
  flow: fanOutFlow,
  // Declaring lanes is the join policy (decision 225): child tasks, awaiting_children,
  // merge_finished, the fan-out bounds. A `lane:` template counts only when it renders, at spawn.
  lanes(def): LaneSource[] {
    return lanesOf(def).map(({ lane, path }) => ({
      ...(Array.isArray(lane.steps) && { steps: lane.steps }),
      ...(typeof lane.workflow === 'string' && { workflow: lane.workflow }),
      counted: path[0] === 'lanes',
    }));
  },
  children(def): StepChildren[] {
    const out: StepChildren[] = [];
    for (const { lane, path } of lanesOf(def)) {
      if (Array.isArray(lane.steps))
        out.push({ kind: 'list', path: [...path, 'steps'], context: 'body', steps: lane.steps });
    }
    const merge = def?.merge;
    if (isMap(merge) && merge.agent !== undefined) {
      out.push({
        kind: 'single',
        path: ['merge', 'agent'],
        context: 'merge',
        step: merge.agent,
        impliedType: 'agent',
        requiresId: true,
      });
    }
    return out;
  },
  validate(def, ctx) {
    const out: StepFinding[] = [];
    const hasLanes = def.lanes !== undefined;
    const hasLane = def.lane !== undefined;
    if (hasLanes === hasLane) {
      out.push({
        path: hasLane ? ['lane'] : [],
        code: 'fan_out_lanes',
        message: hasLane
          ? 'a fan_out takes lanes or lane, not both'
          : 'a fan_out needs lanes or lane',
      });
    }
    if (Array.isArray(def.lanes) && def.lanes.length > ctx.limits.fan_out_max_tasks) {
      out.push({
        path: ['lanes'],
        code: 'fan_out_max_tasks',
        message: `${def.lanes.length} lanes are more than fan_out.max_tasks (${ctx.limits.fan_out_max_tasks})`,
      });
    }
    out.push(...laneFindings(def, ctx), ...mergeFindings(def, ctx));
    return out;
  },
});
