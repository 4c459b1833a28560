/**
 * plugin: the contracts every plugin implements and the only kernel module a plugin may import.
 * A plugin is one self-describing module (`export default definePlugin({...})`) whose `setup`
 * registers step types, agent adapters, trigger sources or forges through the `PluginApi`.
 * The kernel asks the registry by id (`registry.agent('claude')`) and never imports a plugin by path.
 * Identity is checked on data (`kind`, `code`), never with `instanceof`, because a plugin loaded
 * from a user's path may bundle its own copy of these helpers.
 */

/** Durations as users write them (`45m`, `1h30m`): milliseconds, or null when not a duration. */
export { tryParseDuration } from '../config/duration.js';
/** The nesting bound for JSON a source reads (decision 189). */
export { jsonNestsDeeper, MAX_JSON_DEPTH } from '../input/index.js';
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
/**
 * One agent CLI turn — plan, spawn, parse, answer input requests — shared by the agent step and
 * chat turns (decision 160).
 */
export {
  type AgentTurnResult,
  type AgentTurnSpec,
  inputSummary,
  runAgentTurn,
  type TurnHost,
  type TurnIo,
} from './agent-turn.js';
export { agentValueFindings } from './agent-values.js';
// Kernel-side members of this room (plugins have no use for them).
export { definePlugin, PLUGIN_API_VERSION, type PluginApi, type SvcPlugin } from './define.js';
export { builtinPluginFiles, loadPlugins, pluginCacheDir } from './discover.js';
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
  type LaneSource,
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
export type { StepClock, StepHost, StepMcpHost } from './step-host.js';
export {
  AGENT_KEY_SCHEMAS,
  AGENT_ROWS,
  CHECK_ROWS,
  COMMIT_ROW,
  COMMON_KEY_SCHEMAS,
  COMMON_ROWS,
  commitSchema,
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
  AttemptView,
  ChildVerdict,
  FlowContext,
  FlowOutcome,
  InputOutcome,
  InputWait,
  KernelStepKeys,
  LaneSpec,
  LaneView,
  LoopPosition,
  MergeResult,
  ProcessHandle,
  RenderResult,
  SpawnOutcome,
  SpawnRequest,
  StepContext,
  StepDefOf,
  StepFlow,
  StepOutcome,
  StepRun,
  StepRunView,
  StepUsage,
  StepView,
  TaskView,
} from './step-run.js';
export { KERNEL_STEP_KEYS, templateFailure } from './step-run.js';
export {
  bodyIfRule,
  bodyIfVerdict,
  declaresKey,
  gatePredicate,
  inlinedWorkflow,
  lanesOf,
  metaOf,
  runsAgent,
  type StepTypes,
  spawnsLanes,
  typesWithView,
  viewOf,
  waitsForHuman,
} from './step-traits.js';
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
