/**
 * The middle of an attempt: the definition the step runs with, the step type's `run` itself (once
 * the definition is checked against its schema, decision 223), the verdict the transcript and
 * the disk add to its outcome, and what the attempt leaves in the worktree (a `commit: true`
 * commit, the uncommitted changes recorded before the outcome moves the task).
 */
import { diskFullCode } from '../disk/index.js';
import type { StepContext, StepDefOf, StepOutcome, StepTypes } from '../plugin/index.js';
import type { OpenAttempt } from './attempt-open.js';
import type { AttemptDeps, AttemptSpec } from './attempt-types.js';
import { commitStepWork } from './commit.js';
import { type StepDef, stepSetting, type WorkflowSnapshot } from './model.js';
import { carriesPrompt, PROMPT_LEAD } from './prompt.js';
import { checkStepDef } from './step-def.js';
import { measureWorktreeChanges } from './worktree-changes.js';

/** The step as this attempt runs it: the task's prompt where it belongs, a retry's overrides. */
function effectiveDef(spec: AttemptSpec, types: StepTypes): Record<string, unknown> {
  const { task, step } = spec;
  const def: Record<string, unknown> = { ...step };
  // The task's own prompt, where its workflow does not place it (decision 198).
  if (carriesPrompt(task, spec.snapshot, step, types))
    def.prompt = `${PROMPT_LEAD}${String(step.prompt ?? '')}`;
  if (spec.override?.prompt_override !== undefined) def.prompt = spec.override.prompt_override;
  if (spec.override?.run_override !== undefined) def.run = spec.override.run_override;
  return def;
}

/** Runs the step type's `run` and judges its outcome against the transcript and the signal. */
export async function runStep(
  deps: Pick<AttemptDeps, 'registry'>,
  spec: AttemptSpec,
  open: OpenAttempt,
  ctx: StepContext,
): Promise<StepOutcome> {
  const { step } = spec;
  const { transcript, transcriptPath } = open;
  let outcome: StepOutcome;
  try {
    if (!spec.stepType.run) throw new Error(`step type ${step.type} cannot run on its own`);
    // The snapshot's step, before the kernel's own prompt and overrides are laid on it.
    const checked = checkStepDef(spec.stepType, step);
    // A transcript that could not even be opened: nothing is started (the verdict is below).
    if (transcript.failure) outcome = { kind: 'cancelled' };
    else if (!checked.ok)
      outcome = {
        kind: 'failed',
        reason: 'invalid_snapshot',
        message: checked.message,
        noRetry: true,
      };
    else
      outcome = await spec.stepType.run(
        ctx,
        effectiveDef(spec, deps.registry) as StepDefOf<unknown>,
      );
  } catch (err) {
    outcome = { kind: 'failed', reason: 'internal_error', message: (err as Error).message };
  }
  // A step that started no process has not waited for its first line yet: the verdict below
  // needs to know whether it was written.
  await open.ready();
  const unwritable = transcript.failure;
  if (unwritable && !spec.signal.aborted) {
    // Not retried at once: the disk that was full a moment ago still is. The task blocks with
    // the file system's own code in block_detail; `retry` once there is room (docs/reliability.md).
    // A full disk is named as such (decision 180); any other refusal (EIO, …) stays
    // transcript_unwritable (decision 131).
    const full = diskFullCode(unwritable);
    outcome = {
      kind: 'failed',
      reason: full ? 'disk_full' : 'transcript_unwritable',
      message: `the transcript ${transcriptPath} cannot be written (${unwritable.code ?? 'error'}: ${unwritable.message})`,
      noRetry: true,
    };
  } else if (transcript.latched && outcome.kind !== 'cancelled') {
    outcome = {
      kind: 'failed',
      reason: 'transcript_limit',
      message: `transcript passed transcript_max_bytes (${open.maxBytes} bytes)`,
    };
  } else if (spec.signal.aborted && outcome.kind !== 'awaiting_gate') {
    outcome = { kind: 'cancelled' };
  }
  return outcome;
}

/** A step commits after success when its type takes `commit` and it (or `defaults`) sets it true. */
function commits(
  stepType: { meta: { schema: unknown } },
  step: StepDef,
  spec: { snapshot: WorkflowSnapshot },
): boolean {
  const shape = (stepType.meta.schema as { shape?: Record<string, unknown> }).shape;
  return (
    shape !== undefined && 'commit' in shape && stepSetting(step, spec.snapshot, 'commit') === true
  );
}

/** An attempt's outcome after its work was kept, and what it left uncommitted. */
export interface KeptWork {
  outcome: StepOutcome;
  /**
   * The worktree's uncommitted changes as the row keeps them, measured after the step (null:
   * none, or no worktree); undefined when the attempt was cancelled and nothing was measured.
   */
  changes?: string | null;
  /**
   * The worktree's HEAD after the step and its commit (null without a worktree); undefined for a
   * gate, which records no HEADs.
   */
  head?: string | null;
}

/**
 * What the step left in the worktree: committed when it asks to, measured either way. The
 * measurement is written by the transaction that closes the attempt (attempt-close.ts), before
 * its outcome moves the task, so the transition still announces it — and a one-step task commits
 * once less than when it was written here on its own (issue 22).
 */
export async function keepStepWork(
  spec: AttemptSpec,
  open: OpenAttempt,
  outcome: StepOutcome,
): Promise<KeptWork> {
  const { task, step } = spec;
  if (outcome.kind === 'succeeded' && task.worktree_path && commits(spec.stepType, step, spec)) {
    // `commit: true` (decision 204): what the step left goes on the branch, or the step fails.
    const c = await commitStepWork(task.worktree_path, task, {
      id: step.id,
      attempt: open.attempt,
    });
    if (!c.ok)
      outcome = { kind: 'failed', reason: 'commit_failed', message: c.message, noRetry: true };
    else if (c.commit)
      open.transcript.annotate('committed', { commit: c.commit, files: c.files }, open.ts());
  }
  // What the attempt left uncommitted, recorded before its outcome moves the task (decision 204).
  if (outcome.kind === 'cancelled') return { outcome, head: await open.head() };
  // HEAD is read while `git status` runs: neither changes it, and the step and its commit are
  // over. A gate records no HEADs (attempt-close.ts).
  const measuring = measureWorktreeChanges(task.worktree_path);
  const head = outcome.kind === 'awaiting_gate' ? undefined : await open.head();
  return { outcome, changes: await measuring, head };
}
