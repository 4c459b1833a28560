/**
 * The promise behind a typed `run(ctx, def)` and `flow(ctx, def)` (decision 223): before either is
 * called, the step is checked against its type's own schema, so a built-in reads `def.count` as
 * the number its schema says instead of re-narrowing an unknown record. A snapshot is checked
 * when the task is created; this catches what changed under it since (a row edited in the
 * database, a plugin whose schema changed between daemon versions): the attempt fails
 * `invalid_snapshot` naming the step and the first problem, instead of a step reading a value of
 * the wrong type.
 */
import { readIssues } from '../input/index.js';
import {
  type FlowContext,
  type FlowOutcome,
  KERNEL_STEP_KEYS,
  type StepDefOf,
  type StepType,
} from '../plugin/index.js';
import type { StepDef } from './model.js';

export type StepDefCheck = { ok: true } | { ok: false; message: string };

/**
 * Ids the kernel gives steps it builds itself (`__repair`): outside the slug pattern on purpose,
 * so no authored id can collide with one; the engine chose it, so it is not the schema's to judge.
 */
const KERNEL_ID = /^__/;

/** Whether `step` is what `stepType.meta.schema` describes, the kernel's own keys left out. */
export function checkStepDef(
  stepType: StepType,
  step: Readonly<Record<string, unknown>>,
): StepDefCheck {
  const authored: Record<string, unknown> = { ...step };
  for (const key of KERNEL_STEP_KEYS) delete authored[key];
  if (typeof authored.id === 'string' && KERNEL_ID.test(authored.id)) delete authored.id;
  const parsed = stepType.meta.schema.safeParse(authored);
  if (parsed.success) return { ok: true };
  const [first] = readIssues(parsed.error.issues, { value: authored });
  const id = typeof step.id === 'string' ? step.id : '(no id)';
  return {
    ok: false,
    message: `step ${id} no longer matches the ${stepType.meta.type} step schema: ${first?.message ?? parsed.error.message}`,
  };
}

/** A structural step's `flow`, called once its definition is checked; a mismatch blocks the task. */
export async function checkedFlow(
  stepType: StepType,
  ctx: FlowContext,
  step: StepDef,
): Promise<FlowOutcome> {
  if (!stepType.flow) throw new Error(`step type ${step.type} has no flow`);
  const checked = checkStepDef(stepType, step);
  if (!checked.ok) return { kind: 'blocked', reason: 'invalid_snapshot', message: checked.message };
  return stepType.flow(ctx, step as StepDefOf<unknown>);
}
