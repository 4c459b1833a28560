/**
 * What the engine asks of rooms it does not own, as narrow interfaces the kernel wires up:
 * the workflow registry (snapshots and field rules at creation), the agent registry (override
 * checks and restricted verdicts at creation) and the code host (issue and pull request prefill).
 */
import type { ForgeIssue, ForgePull, ForgeRepo } from '../plugin/index.js';
import type { Project } from '../projects/index.js';
import type { WorkflowOrigin, WorkflowSnapshot } from './model.js';

export interface TaskWorkflow {
  snapshot: WorkflowSnapshot;
  origin: WorkflowOrigin;
  warnings: string[];
}

export type FieldCheck =
  | { ok: true; fields: Record<string, string>; defaulted: string[] }
  /** `field`: the path of the first finding, `fields.<name>` (or `fields`). */
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

/**
 * The code host, as task creation needs it (SPEC §4.4 rules 7–9). Each method makes exactly one
 * lookup and throws SvcError: 409 `invalid_state` with `details.reason` when the integration is
 * unusable for the project (`forge_disabled`, `forge_not_detected`, `forge_unauthenticated`,
 * `forge_unreachable`, …), 400 `validation_failed` naming the field when the number does not
 * exist. Without a port every forge reference is 409 `forge_unavailable`.
 */
export interface ForgePort {
  issue(project: Project, n: number): Promise<{ issue: ForgeIssue; repo: ForgeRepo }>;
  pull(project: Project, n: number): Promise<{ pull: ForgePull; repo: ForgeRepo }>;
}
