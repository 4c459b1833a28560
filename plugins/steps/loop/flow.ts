/**
 * Running a loop (decision 024): `count` or the rendered `for_each` items, the body once per item.
 * Position is derived from rows: each iteration skips body steps whose latest attempt passed and
 * continues from the first that did not; iterations already started keep their recorded items and
 * extent never shrinks below them. `break` true leaves the loop (it succeeds); `condition` false
 * ends the iteration. A list longer than the ceiling blocks `loop_limit` before iteration 1.
 */
import type { FlowOutcome, LoopPosition, StepFlow } from '../../../kernel/plugin/index.js';
import type { LoopStep } from './schema.js';

/** A body step as the snapshot holds it: its own type's business, with the id the snapshot gave it. */
type Body = Record<string, unknown> & { id: string; type: string };

export const loopFlow: StepFlow<LoopStep> = async (ctx, def): Promise<FlowOutcome> => {
  const body = def.steps as Body[];
  const bodyIds = new Set(body.map((s) => s.id));
  const ceiling = def.max_iterations ?? ctx.limits().loop_max_iterations;
  const history = ctx.history().filter((r) => bodyIds.has(r.step_id) && r.iteration > 0);
  const recorded = new Map<number, string | null>();
  // Latest row per body step and iteration, read once: each pair is looked up before its own run.
  const latestAt = new Map<string, (typeof history)[number]>();
  for (const r of history) {
    recorded.set(r.iteration, r.loop_item);
    latestAt.set(`${r.iteration}:${r.step_id}`, r);
  }
  const started = Math.max(0, ...recorded.keys());

  let items: Array<string | null>;
  if (def.count !== undefined) {
    if (def.count > ceiling && started === 0)
      return {
        kind: 'blocked',
        reason: 'loop_limit',
        message: `count ${def.count} is over the ceiling ${ceiling}`,
      };
    items = Array.from({ length: def.count }, () => null);
  } else {
    try {
      items = ctx.items(def.for_each);
    } catch (err) {
      const message = `for_each: ${(err as Error).message}`;
      ctx.record({
        step_id: ctx.step.id,
        step_type: 'loop',
        state: 'failed',
        failure_reason: 'condition_error',
        summary: message,
      });
      return { kind: 'blocked', reason: 'condition_error', message };
    }
    if (items.length > ceiling && started === 0) {
      return {
        kind: 'blocked',
        reason: 'loop_limit',
        message: `for_each rendered ${items.length} items, over the ceiling ${ceiling}`,
      };
    }
  }
  const total = Math.max(items.length, started);
  if (total === 0) {
    if (
      !ctx.history().some((r) => r.step_id === ctx.step.id && r.state === 'succeeded' && r.current)
    ) {
      ctx.record({
        step_id: ctx.step.id,
        step_type: 'loop',
        state: 'succeeded',
        summary: 'the for_each list was empty',
      });
    }
    return { kind: 'succeeded' };
  }
  for (let i = 1; i <= total; i++) {
    const at: LoopPosition = {
      iteration: i,
      item: recorded.has(i) ? (recorded.get(i) ?? null) : (items[i - 1] ?? null),
      total,
    };
    iteration: for (const step of body) {
      const latest = latestAt.get(`${i}:${step.id}`);
      if (latest) {
        const ended = ctx.endedBy(latest, step);
        if (ended === 'loop') return { kind: 'succeeded' };
        if (ended === 'iteration') break;
        if (ctx.isPassed(latest, step)) continue;
      }
      const v = await ctx.runChild(step, { group: ctx.step.id, at });
      switch (v.kind) {
        case 'passed':
          continue;
        case 'stopped':
          break iteration;
        case 'break':
          return { kind: 'succeeded' };
        case 'failed':
          if (v.allowed) continue;
          return {
            kind: 'failed',
            reason: v.reason,
            message: `${step.id} (iteration ${i}): ${v.message}`,
          };
        default:
          return v;
      }
    }
  }
  return { kind: 'succeeded' };
};
