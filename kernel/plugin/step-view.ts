/**
 * The attempt as data: the task and the step an attempt belongs to. Apart from the step context
 * (step-run.ts) so the hosts a context carries (agent-host.ts, step-host.ts) can name the attempt
 * they serve without importing the context that carries them (no import circle, issue 21).
 */

export interface TaskView {
  id: number;
  title: string;
  description: string;
  workflow: string;
  fields: Record<string, string>;
  branch: string;
  base_branch: string;
  worktree: string;
  project: { id: number; name: string; path: string; default_branch: string };
  restricted: boolean;
  /** Task-level agent overrides (SPEC §4.4 create), null when unset. */
  agent_override: string | null;
  model_override: string | null;
  effort_override: string | null;
  /** The task's own prompt (create body `prompt`), empty when unset. */
  prompt: string;
}

export interface StepView {
  id: string;
  name: string;
  type: string;
  index: number;
  attempt: number;
  iteration: number;
  item: string | null;
  run_id: number;
}

/** What a host may read of the attempt it serves: its task, its step and the step's settings. */
export interface AttemptView {
  readonly task: TaskView;
  readonly step: StepView;
  /** A step setting as it resolves below the task (StepContext.setting). */
  setting(key: string): unknown;
}
