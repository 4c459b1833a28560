/**
 * What the engine asks of rooms it does not own, as narrow interfaces the kernel wires up:
 * the workflow registry (snapshots and field rules at creation) and the agent registry
 * (override checks and restricted verdicts at creation).
 */
import type { Project } from '../projects/index.js';
import type { WorkflowOrigin, WorkflowSnapshot } from './model.js';

export interface TaskWorkflow {
  snapshot: WorkflowSnapshot;
  origin: WorkflowOrigin;
  warnings: string[];
}

export type FieldCheck =
  | { ok: true; fields: Record<string, string>; defaulted: string[] }
  | { ok: false; message: string; field: string };

export interface WorkflowPort {
  /** The frozen snapshot of `name` in the project's view, includes resolved. Throws SvcError (400). */
  forTask(name: string, project: Project): TaskWorkflow;
  /** SPEC §2.8's four rules for task fields against the snapshot's declarations. */
  checkFields(snapshot: WorkflowSnapshot, fields: Record<string, string>): FieldCheck;
}

export interface AgentOverrides {
  agent?: string;
  model?: string;
  effort?: string;
}

export interface AgentPort {
  /**
   * Checks the agent steps a task would run: unknown adapters and known-invalid values are 400
   * (SvcError), values no catalogue recognizes come back as warnings, and a restricted task on an
   * adapter whose verdict is `unsupported` is 400 naming the step and the agent.
   */
  checkTask(snapshot: WorkflowSnapshot, overrides: AgentOverrides, restricted: boolean): string[];
}
