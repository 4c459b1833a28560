/**
 * The step type contract (SPEC §2.8). A step type is one self-describing module: `meta` holds the
 * data (its id, strict zod schema, schema-route rows, docs, the failure reasons `run` may return)
 * and the behaviour hangs off it. The workflow validator composes the schemas of every registered
 * step type; the engine calls `run` and applies the outcome it returns — a step type never writes
 * task state itself. Placeholder shape: the workflow format and the engine extend it.
 */
import type { ZodType } from 'zod';

export interface StepTypeMeta {
  /** The id users write as `type:` (`command`), equal to the plugin folder name. */
  type: string;
  /** Strict schema of one authored step of this type; the single source of truth for its keys. */
  schema: ZodType;
  docs: { summary: string; url?: string };
  /** Every `failed{reason}` the step's run may return; the step tester rejects any other. */
  reasons: readonly string[];
}

export interface StepType {
  meta: StepTypeMeta;
  /** Runs one attempt (engine-owned contract in step-run.ts). Absent for purely structural types. */
  run?: import('./step-run.js').StepRun;
}

export function defineStepType<T extends StepType>(stepType: T): T {
  return stepType;
}
