/**
 * What the step loop needs from the engine: the attempt's needs and the task, project and lane
 * views around them. Apart from runner.ts so flow.ts (which the runner calls) can name it without
 * importing the runner back.
 */
import type { Logger } from 'pino';
import type { Registry } from '../plugin/index.js';
import type { ProjectsTable, TasksTable } from '../store/index.js';
import type { AttemptDeps } from './attempt.js';
import type { WorkflowPort } from './ports.js';
import type { Precutter } from './precut.js';
import type { TaskStates } from './state.js';

export interface RunnerDeps extends AttemptDeps {
  tasks: TasksTable;
  projects: ProjectsTable;
  states: TaskStates;
  registry: Registry;
  logger: Logger;
  worktreesDir: string;
  /** Worktrees cut while their tasks waited for a slot (decision 159). */
  precut: Precutter;
  /** Tree spend (task plus every lane, at any depth), for max_tree_cost_usd. */
  treeCost(rootId: number): number | null;
  /** How many lanes spawned by the step at `index` have settled. */
  settledLanes(taskId: number, index: number): number;
  /** Lanes name workflows; the registry resolves them at spawn. */
  workflows: WorkflowPort;
}

/** What the step loop does after a step: go on to the next one, or stop (the task left `running`). */
export type Next = 'next' | 'stop';

/** A task the runner is running: its abort switch and why it was pulled, if it was. */
export interface Active {
  ac: AbortController;
  reason: 'cancel' | 'shutdown' | null;
  /** The failure reason an interrupted attempt records, when not `canceled` (decision 183). */
  failure?: string;
  done: Promise<void>;
}
