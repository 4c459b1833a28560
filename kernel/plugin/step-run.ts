/**
 * The run half of the step type contract: what the engine hands a step type's `run` and what it
 * gets back. Owned by the engine; the workflow format owns `step.ts` (meta and validation).
 * Placeholder until the engine lands.
 */
export interface StepContext {
  readonly signal: AbortSignal;
}

export type StepOutcome =
  | { kind: 'succeeded' }
  | { kind: 'failed'; reason: string; message?: string };

export type StepRun = (ctx: StepContext, def: Record<string, unknown>) => Promise<StepOutcome>;
