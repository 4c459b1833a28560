/**
 * The template context (SPEC §2.8 "Templates"; decision 026): the data a workflow template is
 * rendered against. Field names are capitalised as in Go, so files from the earlier system render
 * the same. The engine fills these at run time; every key is always present (empty when it does
 * not apply), and a missing map key (`.Task.Fields.nope`, `.Steps.nope`) is a render error.
 */

export interface TaskContext {
  ID: number;
  Title: string;
  Description: string;
  /** The create body's `prompt` (SPEC §4.4), empty when none was given (decision 198). */
  Prompt: string;
  /** Task fields, declared or not (SPEC §2.1: an open map of strings). */
  Fields: Record<string, string>;
  BaseBranch: string;
  BranchName: string;
}

export interface ProjectContext {
  /** Project id; 0 when the task has none. */
  ID: number;
  Name: string;
  /** Repository root. */
  Path: string;
  DefaultBranch: string;
}

export interface WorkflowContext {
  Name: string;
  Description: string;
}

export interface StepContext {
  ID: string;
  Name: string;
  /** The step's 0-based index in the snapshot (a parallel sub-step or loop body step: its parent's). */
  Index: number;
  /** 1-based; in a guard, the attempt the step would get. */
  Attempt: number;
}

/** Status of a step the run has moved past, as `.Steps.<id>.Status`. */
export type StepStatus = 'succeeded' | 'approved' | 'skipped' | 'failed';

export interface StepResultContext {
  Status: StepStatus;
  /** An agent step's final result text, or the last 200 lines of a command's stdout. */
  Result: string;
  /** The exit code, or -1 when there was no process (a gate, a skip). */
  ExitCode: number;
}

/** Inside a loop body (zero values outside: Index 0, Item "", Iteration 0). */
export interface LoopContext {
  /** 1-based iteration (same as `.Iteration`). */
  Index: number;
  Iteration: number;
  /** The current for_each item; empty for a count loop. */
  Item: string;
  IsFirst: boolean;
  IsLast: boolean;
  /** The count or the rendered list's length; 0 outside a loop. */
  Total: number;
}

export interface HostContext {
  /** `linux`, `darwin`, `windows`. */
  OS: string;
  /** `amd64`, `arm64`, … (Go's names). */
  Arch: string;
}

export interface WorktreeContext {
  Path: string;
}

/** On a retry attempt, why the previous one failed; empty strings on a first attempt. */
export interface LastFailureContext {
  Reason: string;
  /** The tail (last 200 lines) of the failed attempt's output. */
  Output: string;
}

/** The event that fired a trigger, for trigger-created tasks; an empty map otherwise. */
export type EventContext = Record<string, unknown>;

/** The whole context of a step template (`prompt`, `run`, `check`, `instructions`, `env`, `if`, `for_each`). */
export interface TemplateContext {
  Task: TaskContext;
  Project: ProjectContext;
  Workflow: WorkflowContext;
  Step: StepContext;
  /** Steps the run has moved past, by id. Loop step ids are never keys; a body step's id resolves to its latest iteration. */
  Steps: Record<string, StepResultContext>;
  Loop: LoopContext;
  /** Aliases of `.Loop.Item` and `.Loop.Iteration`, for short loop templates. */
  Item: string;
  Iteration: number;
  Host: HostContext;
  Worktree: WorktreeContext;
  LastFailure: LastFailureContext;
  /** Conflicted paths; only non-empty for a merge resolver. */
  Conflicts: string[];
  /**
   * Filled in trigger templates; empty in a step, so a workflow that names `.Event` still renders.
   * Event values reach a task as its fields instead (decision 088).
   */
  Event: EventContext;
}

/** The context of `branch_template` (SPEC §2.10), a different, smaller one. */
export interface BranchTemplateContext {
  ID: number;
  Title: string;
  Slug: string;
  BaseBranch: string;
  /** `.Fields.NAME` on an unset name is a render error. */
  Fields: Record<string, string>;
  Project: { Name: string; Path: string; DefaultBranch: string };
  Path: string;
  DefaultBranch: string;
}

/** A loop context for outside any loop. */
export const NO_LOOP: LoopContext = {
  Index: 0,
  Iteration: 0,
  Item: '',
  IsFirst: false,
  IsLast: false,
  Total: 0,
};

/** Go's GOARCH names for Node's `process.arch`. */
export function goArch(arch: string = process.arch): string {
  return arch === 'x64' ? 'amd64' : arch === 'ia32' ? '386' : arch;
}
