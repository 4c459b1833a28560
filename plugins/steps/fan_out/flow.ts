/**
 * Running a fan_out (SPEC §2.8): the first pass spawns the selected lanes as child tasks and parks
 * the task in awaiting_children; once they have settled (or, with `schedule: eager`, as each
 * further one settles, decision 017) the join merges lane branches `--no-ff` in declared order. A
 * conflict blocks `merge_conflict` with the worktree left conflicted, unless `on_conflict: agent`
 * has a resolver fix it first; an aborted lane blocks `lane_failed` before anything merges.
 */
import type {
  FlowContext,
  FlowOutcome,
  LaneSpec,
  LaneView,
  LoopPosition,
  StepDefOf,
  StepFlow,
} from '../../../kernel/plugin/index.js';
import type { FanOutStep, Lane } from './schema.js';

const SETTLED = new Set(['done', 'aborted', 'archived']);

function laneSpec(
  ctx: FlowContext,
  lane: Lane,
  id: string,
  order: number,
  at?: LoopPosition,
): LaneSpec {
  const fields: Record<string, string> = {};
  for (const [k, v] of Object.entries(lane.fields ?? {})) {
    fields[k] = typeof v === 'string' ? ctx.render(v, at) : String(v);
  }
  const spec: LaneSpec = { id, order, fields };
  if (lane.workflow !== undefined) spec.workflow = lane.workflow;
  if (lane.steps !== undefined) spec.steps = lane.steps;
  for (const k of ['agent', 'model', 'effort'] as const) {
    const value = lane[k];
    if (value !== undefined) spec[k] = value;
  }
  if (lane.priority !== undefined) spec.priority = lane.priority;
  if (at?.item !== undefined && at.item !== null)
    spec.item = { value: at.item, iteration: at.iteration, total: at.total ?? 0 };
  return spec;
}

/** The lanes this step declares, expanded and guarded, in merge order. */
function select(ctx: FlowContext, def: FanOutStep): LaneSpec[] | { error: string } {
  const candidates: Array<{ lane: Lane; id: string; at?: LoopPosition }> = [];
  if (def.lanes !== undefined) for (const lane of def.lanes) candidates.push({ lane, id: lane.id });
  else if (def.lane !== undefined) {
    const lane = def.lane;
    const items = ctx.items(lane.for_each);
    items.forEach((item, i) => {
      candidates.push({
        lane,
        id: `${lane.id}-${i + 1}`,
        at: { iteration: i + 1, item, total: items.length },
      });
    });
  }
  const out: LaneSpec[] = [];
  for (const [order, c] of candidates.entries()) {
    if (typeof c.lane.if === 'string') {
      const g = ctx.guard(c.lane.if, c.at);
      if (!g.ok) return { error: `lane ${c.id}: ${g.error}` };
      if (!g.value) continue;
    }
    out.push(laneSpec(ctx, c.lane, c.id, order, c.at));
  }
  return out;
}

export const fanOutFlow: StepFlow<FanOutStep> = async (ctx, def): Promise<FlowOutcome> => {
  const lanes = ctx.lanes();
  if (lanes.length === 0) {
    if (
      ctx.history().some((r) => r.step_id === ctx.step.id && r.state === 'succeeded' && r.current)
    )
      return { kind: 'succeeded' };
    let selected: LaneSpec[] | { error: string };
    try {
      selected = select(ctx, def);
    } catch (err) {
      selected = { error: (err as Error).message };
    }
    if ('error' in selected) {
      ctx.record({
        step_id: ctx.step.id,
        step_type: 'fan_out',
        state: 'failed',
        failure_reason: 'condition_error',
        summary: selected.error,
      });
      return { kind: 'blocked', reason: 'condition_error', message: selected.error };
    }
    if (selected.length === 0) {
      ctx.record({
        step_id: ctx.step.id,
        step_type: 'fan_out',
        state: 'succeeded',
        summary: 'no lane was selected',
      });
      return { kind: 'succeeded' };
    }
    ctx.spawnLanes(selected);
    return { kind: 'awaiting_children', settled: 0 };
  }
  return join(ctx, def, lanes);
};

async function join(
  ctx: FlowContext,
  def: StepDefOf<FanOutStep>,
  lanes: LaneView[],
): Promise<FlowOutcome> {
  const merge: NonNullable<FanOutStep['merge']> = def.merge ?? {};
  const eager = def.schedule === 'eager';
  const pending = await ctx.pendingMerge();
  if (pending.kind === 'conflicted') return conflict(ctx, pending.paths);
  if (pending.kind === 'resolved') {
    const r = await ctx.commitMerge(`Merge lanes of task ${ctx.task.id} (resolved)`);
    if (r.kind === 'error') return failedJoin(ctx, 'git_error', r.message);
  }
  const settled = lanes.filter((l) => SETTLED.has(l.state)).length;
  if (!eager && settled < lanes.length) return { kind: 'awaiting_children', settled };
  const aborted = lanes.find((l) => l.state === 'aborted');
  if (aborted)
    return failedJoin(
      ctx,
      'lane_failed',
      `lane ${aborted.lane_id} (task ${aborted.task_id}) was aborted`,
    );
  const merged: string[] = [];
  for (const lane of lanes) {
    if (!SETTLED.has(lane.state)) return { kind: 'awaiting_children', settled };
    const r = await ctx.mergeLane(lane);
    if (r.kind === 'merged') merged.push(lane.lane_id);
    else if (r.kind === 'already') continue;
    else if (r.kind === 'error') {
      if (lane.state === 'archived') continue;
      return failedJoin(ctx, 'git_error', r.message);
    } else {
      if (merge.on_conflict !== 'agent' || !merge.agent) return conflict(ctx, r.paths);
      // The resolver is an agent step of its own (checked as one at load and at its attempt).
      const resolver: Record<string, unknown> = {
        type: 'agent',
        ...(merge.agent as Record<string, unknown>),
        max_retries: 0,
        retry_backoff: '0s',
      };
      const v = await ctx.runChild(resolver, { group: ctx.step.id, extra: { Conflicts: r.paths } });
      const after = await ctx.pendingMerge();
      if (v.kind !== 'passed' || after.kind !== 'resolved')
        return conflict(ctx, after.kind === 'conflicted' ? after.paths : r.paths);
      const committed = await ctx.commitMerge(
        `Merge lane '${lane.lane_id}' of task ${lane.task_id}`,
      );
      if (committed.kind === 'error') return failedJoin(ctx, 'git_error', committed.message);
      merged.push(lane.lane_id);
    }
  }
  ctx.record({
    step_id: ctx.step.id,
    step_type: 'fan_out',
    state: 'succeeded',
    summary: merged.length > 0 ? `merged lanes ${merged.join(', ')}` : 'nothing to merge',
  });
  return { kind: 'succeeded' };
}

function conflict(ctx: FlowContext, paths: string[]): FlowOutcome {
  const message = `merge conflict in ${paths.join(', ')}; resolve and stage in the worktree, then retry`;
  ctx.record({
    step_id: ctx.step.id,
    step_type: 'fan_out',
    state: 'failed',
    failure_reason: 'merge_conflict',
    summary: message,
  });
  return { kind: 'blocked', reason: 'merge_conflict', message };
}

function failedJoin(ctx: FlowContext, reason: string, message: string): FlowOutcome {
  ctx.record({
    step_id: ctx.step.id,
    step_type: 'fan_out',
    state: 'failed',
    failure_reason: reason,
    summary: message,
  });
  return { kind: 'blocked', reason, message };
}
