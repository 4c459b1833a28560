/**
 * Running a parallel group (SPEC §2.8): sub-steps at once, at most `max_parallel` (read when the
 * group starts), one index and one slot. A failure does not cancel siblings; when all have ended
 * the group fails with the first failure in declaration order. A retry re-runs only sub-steps whose
 * latest attempt did not pass. A sub-step backing off takes the group with it.
 */
import type { ChildVerdict, FlowOutcome, StepFlow } from '../../../kernel/plugin/index.js';
import type { ParallelStep } from './schema.js';

/** A sub-step as the snapshot holds it: its own type's business, with the id the snapshot gave it. */
type Sub = Record<string, unknown> & { id: string };

export const parallelFlow: StepFlow<ParallelStep> = async (ctx, def) => {
  const subs = def.steps as Sub[];
  const max = def.max_parallel ?? ctx.limits().parallel_max;
  const history = ctx.history();
  const latest = new Map<string, (typeof history)[number]>();
  for (const r of history) if (r.iteration === 0) latest.set(r.step_id, r);
  const pending = subs.filter((s) => {
    const row = latest.get(s.id);
    return !row || !ctx.isPassed(row, s);
  });
  const verdicts = new Map<string, ChildVerdict>();
  let next = 0;
  const worker = async () => {
    for (;;) {
      const sub = pending[next++];
      if (!sub) return;
      verdicts.set(sub.id, await ctx.runChild(sub, { group: ctx.step.id }));
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(max, pending.length)) }, worker));
  return outcomeOf(subs, verdicts);
};

function outcomeOf(subs: Sub[], verdicts: Map<string, ChildVerdict>): FlowOutcome {
  for (const s of subs) {
    const v = verdicts.get(s.id);
    if (v?.kind === 'failed' && !v.allowed)
      return { kind: 'failed', reason: v.reason, message: `${s.id}: ${v.message}` };
  }
  const all = [...verdicts.values()];
  if (all.some((v) => v.kind === 'cancelled')) return { kind: 'cancelled' };
  const limits = all.filter(
    (v): v is Extract<ChildVerdict, { kind: 'usage_limit' }> => v.kind === 'usage_limit',
  );
  if (limits.length > 0) {
    const resets = limits.map((v) => v.resets_at);
    // One mode for the group when every stopped member agrees, else the config's (decision 043).
    const modes = new Set(limits.map((v) => v.auto_continue));
    const [mode] = modes;
    return {
      kind: 'usage_limit',
      resets_at: resets.includes(null) ? null : Math.max(...(resets as number[])),
      ...(modes.size === 1 && mode !== undefined && { auto_continue: mode }),
    };
  }
  const backoffs = all.filter(
    (v): v is Extract<ChildVerdict, { kind: 'backoff' }> => v.kind === 'backoff',
  );
  if (backoffs.length > 0) return { kind: 'backoff', ms: Math.max(...backoffs.map((b) => b.ms)) };
  return { kind: 'succeeded' };
}
