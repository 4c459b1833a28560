/**
 * workflows: everything about workflow files (SPEC §2.7, §2.8, §4.3): the format and its validator
 * (composed from the step types in the plugin registry), task-field rules, the template context,
 * include resolution into task snapshots, the registry of built-in, global and project workflows
 * with its watch, and the writes behind `POST`/`PATCH /v1/workflows`. The Go text/template engine
 * is the `template/` room. Uses: config, events, plugin registry, a ProjectLookup (the projects
 * store). Used by: http routes, the CLI (offline validate), the engine (snapshots, fields).
 * Decisions: 020–030, 101.
 */
export { agentValuesFrom } from './agent-values.js';
export { BUILTIN_WORKFLOWS, type BuiltinWorkflow, starterWorkflow } from './builtins.js';
export type {
  BranchTemplateContext,
  EventContext,
  HostContext,
  LastFailureContext,
  LoopContext,
  ProjectContext,
  StepContext as StepTemplateContext,
  StepResultContext,
  StepStatus,
  TaskContext,
  TemplateContext,
  WorkflowContext,
  WorktreeContext,
} from './context.js';
export { goArch, NO_LOOP } from './context.js';
export {
  type CreateWorkflowBody,
  CreateWorkflowBodySchema,
  createWorkflow,
  type WorkflowWriteResult,
} from './create.js';
export {
  checkFieldValue,
  FIELD_TYPES,
  type FieldDecl,
  type FieldType,
  type TaskFieldsResult,
  validateTaskFields,
} from './fields.js';
export {
  CREATE_NAME_PATTERN,
  currentHost,
  type HostPlatform,
  PLATFORM_TOKENS,
  type PlatformToken,
  platformAdmits,
  type StepDef,
  type WorkflowDef,
  type WorkflowDefaults,
} from './format.js';
export {
  type PatchWorkflowBody,
  PatchWorkflowBodySchema,
  patchTarget,
  patchWorkflow,
} from './patch.js';
export { WorkflowRegistry } from './registry.js';
export {
  digestOf,
  type EntryStatus,
  NO_PROJECTS,
  type ProjectLookup,
  type ProjectRef,
  type RankedEntry,
  type RegistryView,
  type WorkflowDefinitionView,
  type WorkflowEntry,
  type WorkflowListRow,
} from './registry-entries.js';
export { projectWorkflowsDir } from './registry-loading.js';
export {
  type ValidateWorkflowBody,
  ValidateWorkflowBodySchema,
  validateWorkflowRequest,
  WorkflowDefinitionQuerySchema,
  WorkflowListQuerySchema,
} from './requests.js';
export { type WorkflowSchemaDoc, workflowSchemaDoc } from './schema-doc.js';
export {
  type CarriedDefaults,
  originOf,
  resolveSnapshot,
  type SnapshotOptions,
  type SnapshotResult,
  type SnapshotStep,
  type WorkflowOrigin,
  type WorkflowScope,
  type WorkflowSnapshot,
  type WorkflowSource,
  type WorkflowView,
} from './snapshot.js';
export { MAX_WORKFLOW_BYTES, parseWorkflowSource } from './source.js';
export {
  type TaskFieldCheck,
  type TaskWorkflow,
  type TaskWorkflows,
  taskWorkflowsFrom,
} from './task-port.js';
export { checkWorkflowTemplate, type TemplateChecker } from './templates.js';
export { childrenOf, isRecord, type StepTypeLookup } from './tree.js';
export {
  type StepTypeSource,
  type ValidateOptions,
  validateWorkflowText,
  validateWorkflowValue,
  type WorkflowLimits,
  type WorkflowValidation,
} from './validate.js';
