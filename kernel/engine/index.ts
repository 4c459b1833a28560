/**
 * engine: the task runner (SPEC §2.1, §2.2, §3.1, §3.2, §4.4, §6). Owns every task state write
 * (one transition table, compare-and-swap writes, events in the same transaction), the runner
 * that executes steps in worktrees, the worktrees cut ahead for tasks waiting for a slot, crash
 * recovery and the human actions.
 * Uses: store, events, clock, config, git, proc, plugin registry, projects, scheduler, workflows.
 * Used by: http routes, chats, triggers, MCP. Decisions: 009, 010, 011, 014, 015, 159.
 */

export { branchFor, branchTemplateProblem } from './branch.js';
export {
  bodyDigest,
  type CreateOptions,
  canonicalJson,
  type HandoffSpec,
} from './create.js';
export { Engine, type EngineDeps } from './engine.js';
export type { ListQuery } from './list.js';
export {
  type FollowUpSpec,
  jsonOr,
  type StepDef,
  type WorkflowOrigin,
  type WorkflowSnapshot,
} from './model.js';
export type {
  AgentOverrides,
  AgentPort,
  FieldCheck,
  ForgePort,
  TaskWorkflow,
  WorkflowPort,
} from './ports.js';
export { type PullLink, pullLinkOf } from './pull.js';
export { branchNameProblem, builtinBranch } from './refname.js';
export {
  AnswerSchema,
  ArchiveSchema,
  type CreateTask,
  CreateTaskSchema,
  FollowUpSchema,
  LIST_PAGE_DEFAULT,
  LIST_PAGE_MAX,
  PatchTaskSchema,
  RepairSchema,
  RetrySchema,
  TaskListQuerySchema,
} from './schema.js';
export { type LoggedSpawn, spawnLogged } from './spawn.js';
export {
  ACTION_FROM,
  availableActions,
  HUMAN_ACTIONS,
  type HumanAction,
  type TaskEvent,
  TRANSITIONS,
  transitionTarget,
} from './transitions.js';
