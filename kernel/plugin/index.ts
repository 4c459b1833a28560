/**
 * plugin: the contracts every plugin implements and the only kernel module a plugin may import.
 * A plugin is one self-describing module (`export default definePlugin({...})`) whose `setup`
 * registers step types, agent adapters, trigger sources or forges through the `PluginApi`.
 * The kernel asks the registry by id (`registry.agent('claude')`) and never imports a plugin by path.
 * Identity is checked on data (`kind`, `code`), never with `instanceof`, because a plugin loaded
 * from a user's path may bundle its own copy of these helpers.
 */

/**
 * One agent CLI turn — plan, spawn, parse, answer input requests — shared by the agent step and
 * chat turns (decision 160); the kernel's agents room owns it, plugins reach it here.
 */
export {
  type AgentTurnResult,
  type AgentTurnSpec,
  inputSummary,
  runAgentTurn,
  type TurnHost,
  type TurnIo,
} from '../agents/turn.js';
/** Durations as users write them (`45m`, `1h30m`): milliseconds, or null when not a duration. */
export { tryParseDuration } from '../config/duration.js';
/** The nesting bound for JSON a source reads (decision 189). */
export { jsonNestsDeeper, MAX_JSON_DEPTH } from '../http/json-depth.js';
export {
  compareSemver,
  inWindow,
  isRecord,
  type Json,
  num,
  oneLine,
  parseLine,
  plausibleReset,
  semver,
  str,
  tail,
  toolSummary,
} from './adapter-kit.js';
export type {
  AgentAdapter,
  AgentCatalogue,
  AgentEvent,
  AgentFailureReason,
  AgentInputProtocol,
  AgentProbe,
  AgentQuotaSource,
  AgentRunPlan,
  AgentRunPlanResult,
  AgentRunSpec,
  AgentSkill,
  AgentStreamParser,
  AgentTraits,
  AgentVerdict,
  AnswerIssue,
  HostPlatform,
  InputAnswer,
  InputRequest,
  InputVerdict,
  OnInput,
  ParserOptions,
  PendingInput,
  PermissionMode,
  ProbeCommand,
  ProbeContext,
  ProbeOutcome,
  ProbeRunner,
  QuotaPush,
  QuotaReading,
  QuotaWindow,
  RestrictedVerdict,
  RunExit,
  RunRefusalReason,
  RunUsage,
  StdinPlan,
  ToolResult,
  ToolUse,
  UsageTotals,
  VersionWindow,
} from './agent.js';
export type {
  AgentHost,
  AgentValueSource,
  ContinuableSession,
  LocatedAgent,
  ResolvedAgentValues,
  StepMcpEndpoint,
} from './agent-host.js';
export { agentValueFindings } from './agent-values.js';
// Kernel-side members of this room (plugins have no use for them).
export { builtinPluginFiles, loadPlugins } from './discover.js';
export {
  defineForge,
  type Forge,
  type ForgeConnection,
  type ForgeContext,
  type ForgeFailureReason,
  type ForgeIssue,
  type ForgePull,
  type ForgeRepo,
  type ForgeResult,
  type IssueQuery,
  type PullQuery,
} from './forge.js';
export { requireInputFindings } from './nesting.js';
export { type LoadedPlugin, PluginError, type PluginKind, Registry } from './registry.js';
export {
  diffSnapshot,
  readSnapshot,
  type SnapshotChange,
  type SnapshotDiff,
} from './snapshot.js';
export {
  type AgentValueSets,
  COMMON_STEP_KEYS,
  type CommonStepKey,
  type DefaultsKey,
  defineStepType,
  type PathSegment,
  type ResolvedValue,
  type SchemaControl,
  type SchemaRow,
  STEP_CONTEXTS,
  type StepChildren,
  type StepContextName,
  type StepFinding,
  type StepType,
  type StepTypeMeta,
  type StepValidationContext,
} from './step.js';
export {
  AGENT_KEY_SCHEMAS,
  AGENT_ROWS,
  CHECK_ROWS,
  COMMON_KEY_SCHEMAS,
  COMMON_ROWS,
  commonShape,
  durationSchema,
  ON_INPUT_MODES,
  PERMISSION_MODES,
  requiredTemplateSchema,
  SHELLS,
  SLUG_PATTERN,
  slugSchema,
  templateSchema,
  workflowDurationMs,
} from './step-keys.js';
export type {
  ChildVerdict,
  FlowContext,
  FlowOutcome,
  InputOutcome,
  InputWait,
  LaneSpec,
  LaneView,
  LoopPosition,
  MergeResult,
  ProcessHandle,
  RenderResult,
  SpawnOutcome,
  SpawnRequest,
  StepContext,
  StepFlow,
  StepOutcome,
  StepRun,
  StepRunView,
  StepUsage,
  StepView,
  TaskView,
} from './step-run.js';
export { templateFailure } from './step-run.js';
export {
  type AcceptResult,
  type DangerousValue,
  defineTriggerSource,
  durationField,
  durationMs,
  type IngressRequest,
  type PollResult,
  type TriggerControl,
  type TriggerEvent,
  type TriggerFieldRow,
  type TriggerPollContext,
  type TriggerSchedule,
  type TriggerSource,
  type TriggerSourceMeta,
} from './trigger.js';

/** The plugin API's own version; a plugin declares the range it was written for in `svc`. */
export const PLUGIN_API_VERSION = '1.0.0';

export interface PluginApi {
  /** Registers an agent adapter under `adapter.name`. A second adapter of the same name stops start-up. */
  registerAgent(adapter: import('./agent.js').AgentAdapter): void;
  /** Registers a step type under `meta.type`. A second step type of the same id stops start-up. */
  registerStepType(stepType: import('./step.js').StepType): void;
  /** Registers a trigger source under `type`. */
  registerTriggerSource(source: import('./trigger.js').TriggerSource): void;
  /** Registers a code-host integration under `name`. */
  registerForge(forge: import('./forge.js').Forge): void;
}

export interface SvcPlugin {
  /** Unique plugin name. Built-ins are `svc:<kind>/<id>` (`svc:agents/claude`); user plugins pick their own. */
  name: string;
  /** Semver range of the plugin API this plugin was written for, e.g. `^1.0.0`. */
  svc: string;
  /** Called once at start-up, before the daemon listens. Throwing stops start-up with a message naming the plugin. */
  setup(api: PluginApi): void | Promise<void>;
}

/** Identity helper that gives plugin authors type checking; the kernel validates the shape at load. */
export function definePlugin(plugin: SvcPlugin): SvcPlugin {
  return plugin;
}
