/**
 * runChild, the FlowContext primitive that runs one child of a structural step (a parallel
 * sub-step, a loop body step) to its verdict: its guard, or its body `if` as its type declares it
 * (StepTypeMeta.ifRole and bodyIf, decision 225), then attempts under its own retry budget at the
 * structural step's index.
 */
import { bodyIfVerdict, type FlowContext } from '../plugin/index.js';
import { runAttempt } from './attempt.js';
import { writeFlowRow } from './flow-rows.js';
import { contextAt, type FlowScope } from './flow-scope.js';
import { unmergedPaths } from './lane-merges.js';
import {
  durationMs,
  jsonOr,
  type PendingOverride,
  type StepDef,
  SWALLOWABLE,
  stepSetting,
} from './model.js';
import { evaluateGuard } from './render.js';

/** The runChild of one structural step's run. */
export function childRunner(s: FlowScope): FlowContext['runChild'] {
  const { deps, task, project, snapshot, step, index, topName, worktree } = s;
  const flowSignal = s.signal;
  // A human retry's override targets the child that failed (actions.retry records its id); it is
  // spent by that child's next attempt.
  let override = jsonOr<(PendingOverride & { step_id?: string }) | null>(
    task.pending_override,
    null,
  );
  return async (raw, opts) => {
    const def = raw as StepDef;
    const childType = deps.registry.stepType(def.type);
    const at = opts.at;
    const iteration = at?.iteration ?? 0;
    const childSignal = opts.signal ? AbortSignal.any([flowSignal, opts.signal]) : flowSignal;
    if (!childType)
      return {
        kind: 'failed',
        reason: 'invalid_snapshot',
        message: `no step type ${def.type}`,
        allowed: false,
      };
    const attemptNo = deps.runs.lastAttempt(task.id, index, def.id, iteration) + 1;
    const ctx = contextAt(s, def, at, attemptNo, opts.extra);
    const decision = (
      state: 'succeeded' | 'stopped' | 'skipped' | 'failed',
      summary: string,
      reason?: string,
    ) =>
      writeFlowRow(s, {
        step_id: def.id,
        step_type: def.type,
        group_id: opts.group,
        attempt: attemptNo,
        at,
        state,
        failure_reason: reason ?? null,
        skip_reason: state === 'skipped' ? 'condition' : null,
        summary,
      });
    const ifIsBody = childType.meta.ifRole === 'body';
    if (typeof def.if === 'string') {
      const g = evaluateGuard(def.if, ctx);
      if (!g.ok) {
        decision('failed', g.error, 'condition_error');
        return { kind: 'failed', reason: 'condition_error', message: g.error, allowed: false };
      }
      if (ifIsBody) {
        // The type says which value ends work and what it ends (condition: false ends the
        // iteration; break: true leaves the loop).
        const v = bodyIfVerdict(childType.meta, g.value);
        decision(v.ends === false ? 'succeeded' : 'stopped', def.if);
        if (v.ends === false) return { kind: 'passed', state: 'succeeded' };
        return v.ends === 'loop' ? { kind: 'break' } : { kind: 'stopped' };
      }
      if (!g.value) {
        decision('skipped', def.if);
        return { kind: 'passed', state: 'skipped' };
      }
    }
    if (!childType.run)
      return {
        kind: 'failed',
        reason: 'invalid_snapshot',
        message: `${def.type} cannot run inside ${step.type}`,
        allowed: false,
      };
    // Never over unmerged paths (decision 190), except the merge resolver, whose work they are.
    const unmerged = opts.extra?.Conflicts === undefined ? await unmergedPaths(worktree) : [];
    if (unmerged.length > 0)
      return {
        kind: 'failed',
        reason: 'merge_conflict',
        message: `unmerged paths in the worktree before ${def.id}: ${unmerged.join(', ')}`,
        allowed: false,
      };
    for (;;) {
      if (childSignal.aborted) return { kind: 'cancelled' };
      const mine = override && override.step_id === def.id ? override : null;
      if (mine) {
        override = null;
        deps.states.patch(task.id, 'running', { pending_override: null });
      }
      const res = await runAttempt(deps, {
        task,
        project,
        snapshot,
        step: def,
        stepType: childType,
        index,
        iteration,
        item: at?.item ?? null,
        loopTotal: at?.total,
        groupId: opts.group,
        topName,
        context: contextAt(
          s,
          def,
          at,
          deps.runs.lastAttempt(task.id, index, def.id, iteration) + 1,
          opts.extra,
        ),
        signal: childSignal,
        counts_retry: true,
        override: mine ?? undefined,
      });
      const o = res.outcome;
      switch (o.kind) {
        case 'succeeded':
          return { kind: 'passed', state: 'succeeded' };
        case 'cancelled':
          return { kind: 'cancelled' };
        case 'usage_limit':
          return { kind: 'usage_limit', resets_at: o.resets_at, auto_continue: o.auto_continue };
        case 'awaiting_gate':
          return {
            kind: 'failed',
            reason: 'invalid_snapshot',
            message: 'a manual step cannot run here',
            allowed: false,
          };
        case 'failed': {
          if (o.noRetry)
            return { kind: 'failed', reason: o.reason, message: o.message ?? '', allowed: false };
          const failures = deps.runs.failuresSince(
            task.id,
            index,
            def.id,
            iteration,
            task.retry_floor,
          );
          const max = stepSetting(def, snapshot, 'max_retries');
          if (failures <= (typeof max === 'number' ? max : 1)) {
            const backoff = stepSetting(def, snapshot, 'retry_backoff');
            const ms = typeof backoff === 'string' ? durationMs(backoff) : 0;
            if (ms > 0) return { kind: 'backoff', ms };
            continue;
          }
          const allowed = def.allow_failure === true && SWALLOWABLE.has(o.reason);
          return { kind: 'failed', reason: o.reason, message: o.message ?? '', allowed };
        }
      }
    }
  };
}
