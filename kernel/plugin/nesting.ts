/**
 * A rule two container types share: a step that would stop and wait for a human answer
 * (`on_input: require`, judged on the value it resolves to) cannot stand inside a parallel group
 * or a loop body, where nobody could answer one member while its siblings or later iterations run
 * (SPEC §2.8 parallel row; decision 022 for loops).
 */
import type { PathSegment, StepFinding, StepValidationContext } from './step.js';

export function requireInputFindings(
  steps: readonly unknown[],
  listPath: readonly PathSegment[],
  where: string,
  ctx: StepValidationContext,
): StepFinding[] {
  const out: StepFinding[] = [];
  steps.forEach((step, i) => {
    // on_input is an agent's: only steps that run one can wait for an answer (decision 225).
    if (ctx.typeOf(step)?.runsAgent !== true) return;
    const resolved = ctx.resolve(step, 'on_input');
    if (resolved?.value !== 'require') return;
    const fromDefaults = resolved.from === 'defaults';
    const path: PathSegment[] =
      resolved.from === 'step'
        ? [...listPath, i, 'on_input']
        : fromDefaults
          ? ['defaults', 'on_input']
          : [...listPath, i];
    out.push({
      path,
      fromRoot: fromDefaults,
      code: 'input_required_here',
      message:
        resolved.from === 'step'
          ? `on_input: require cannot be used ${where}`
          : `an agent step ${where} resolves to on_input: require (from ${fromDefaults ? 'defaults.on_input' : "an included workflow's defaults"}), which is not allowed there`,
    });
  });
  return out;
}
