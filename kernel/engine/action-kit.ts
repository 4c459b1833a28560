/**
 * What every human action needs: the engine's parts (`ActionDeps`) and the shared moves of
 * actions.ts (`ActionKit`: load a task, refuse while a chat holds it, apply a move as a
 * compare-and-swap retried once from the state found). The actions that need more than a few
 * lines live beside actions.ts in files of their own and take the kit.
 */
import type { Clock } from '../clock/index.js';
import type { ConfigService } from '../config/index.js';
import type { EventLog } from '../events/index.js';
import type { StepTypes } from '../plugin/index.js';
import type { ProjectService } from '../projects/index.js';
import type { StepRunsTable, Store, TaskRow, TasksTable } from '../store/index.js';
import type { AgentPort, WorkflowPort } from './ports.js';
import type { Runner } from './runner.js';
import type { TaskStates } from './state.js';
import type { HumanAction } from './transitions.js';

export interface ActionDeps {
  store: Store;
  tasks: TasksTable;
  runs: StepRunsTable;
  projects: ProjectService;
  states: TaskStates;
  events: EventLog;
  clock: Clock;
  config: ConfigService;
  runner: Runner;
  workflows: WorkflowPort;
  agents: AgentPort;
  /** The step types, asked for their declared behaviour (decision 225). */
  registry: StepTypes;
  transcriptsDir: string;
  /** This installation's worktrees: another's are never removed (decision 194). */
  worktreesDir?: string;
  /** The open chat linked to a task (SPEC §3.2 rule 4); chats wire this up. */
  openChat(taskId: number): number | null;
  /** Stops and closes a task's linked chat when the task is cancelled. */
  closeChatForCancel?(taskId: number): void;
  /** Answers a live agent's pending input; absent until agents are wired. */
  answerInput?(
    task: TaskRow,
    body: { answers?: Record<string, string | string[]>; allow?: boolean },
  ): void;
}

/** A follow-up's body (SPEC §4.4): a prompt, a command, or a workflow, with the agent's values. */
export interface FollowUpBody {
  prompt?: string;
  run?: string;
  workflow?: string;
  agent?: string;
  model?: string;
  effort?: string;
}

export interface ActionKit {
  readonly d: ActionDeps;
  load(id: number): TaskRow;
  locked(task: TaskRow, action: HumanAction | 'priority'): void;
  act(id: number, action: HumanAction, apply: (task: TaskRow) => TaskRow | null): TaskRow;
  now(): string;
}
