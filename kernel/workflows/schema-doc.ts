/**
 * `GET /v1/workflows/schema` (SPEC §4.3): the workflow format as data for editors. Top level,
 * `defaults`, `fields[]`, lane and merge rows, each step type's own rows and accepted common keys,
 * the common rows, which types may stand in each context (body, parallel, loop, merge), and the
 * value sets of agent, model and effort. Built from the registered step types, so a plugin's step
 * type appears without kernel changes. Clients draw an unknown `control` as text (§9.4).
 */
import {
  AGENT_ROWS,
  type AgentValueSets,
  COMMON_ROWS,
  ON_INPUT_MODES,
  PERMISSION_MODES,
  type SchemaRow,
  STEP_CONTEXTS,
  type StepContextName,
} from '../plugin/index.js';
import { FIELD_TYPES } from './fields.js';
import { PLATFORM_TOKENS } from './format.js';
import type { StepTypeSource } from './validate.js';

export interface StepTypeDoc {
  type: string;
  summary: string;
  docs_url: string;
  /** Common keys it accepts beyond id, name and type. */
  common: string[];
  contexts: StepContextName[];
  rows: SchemaRow[];
}

export interface TemplateVariable {
  name: string;
  description: string;
}

const BODY_VARIABLES: TemplateVariable[] = [
  {
    name: '.Task',
    description: 'ID, Title, Description, Prompt, Fields (map), BaseBranch, BranchName',
  },
  { name: '.Project', description: 'ID, Name, Path (repository root), DefaultBranch' },
  { name: '.Workflow', description: 'Name, Description' },
  { name: '.Step', description: 'ID, Name, Index, Attempt (1-based)' },
  {
    name: '.Steps',
    description: 'steps the run has moved past, by id: Status, Result, ExitCode',
  },
  { name: '.Host', description: 'OS (linux, darwin, windows), Arch' },
  { name: '.Worktree', description: 'Path' },
  { name: '.LastFailure', description: 'on a retry: Reason, Output (last 200 lines)' },
  { name: '.Event', description: 'the event that created the task (trigger-created tasks)' },
];

const LOOP_VARIABLES: TemplateVariable[] = [
  { name: '.Loop', description: 'Index/Iteration (1-based), Item, IsFirst, IsLast, Total' },
  { name: '.Item', description: 'the current for_each item (.Loop.Item)' },
  { name: '.Iteration', description: 'the current pass, 1-based (.Loop.Iteration)' },
];

export interface WorkflowSchemaDoc {
  top_level: SchemaRow[];
  defaults: SchemaRow[];
  fields: SchemaRow[];
  lane: SchemaRow[];
  merge: SchemaRow[];
  /** Nested shapes step types declare, by name (lane and merge among them). */
  sections: Record<string, SchemaRow[]>;
  common: SchemaRow[];
  step_types: StepTypeDoc[];
  /** Step types that may stand in each context. */
  contexts: Record<StepContextName, string[]>;
  /** Template variables a step's templates can use in each context (decision 026). */
  template_context: Record<StepContextName, TemplateVariable[]>;
  values: {
    agents: string[];
    models: Record<string, string[]>;
    efforts: Record<string, string[]>;
    platforms: string[];
    field_types: string[];
    permission_modes: string[];
    on_input: string[];
  };
}

const TOP_LEVEL_ROWS: SchemaRow[] = [
  { key: 'name', control: 'string', required: true, description: 'Unique per scope.' },
  { key: 'description', control: 'text', description: 'What the workflow is for.' },
  {
    key: 'platforms',
    control: 'list',
    values: PLATFORM_TOKENS,
    description: 'Hosts it runs on (posix: every non-Windows host); empty means anywhere.',
  },
  { key: 'fields', control: 'fields', description: 'Task inputs, in form order.' },
  { key: 'defaults', control: 'map', description: 'Values every step inherits.' },
  { key: 'steps', control: 'steps', required: true, description: 'Run top to bottom.' },
];

const DEFAULTS_ROWS: SchemaRow[] = [
  ...AGENT_ROWS,
  ...COMMON_ROWS.filter((r) => ['max_retries', 'retry_backoff', 'timeout'].includes(r.key)),
  {
    key: 'container',
    control: 'map',
    description:
      'Merged per field over the daemon container block (image, runtime, mount_agent_config, network, extra_mounts); image "" forces the host.',
  },
];

const FIELD_ROWS: SchemaRow[] = [
  { key: 'name', control: 'string', required: true, description: 'Key in .Task.Fields; a slug.' },
  { key: 'label', control: 'string', description: 'Shown in forms.', default: 'the name' },
  { key: 'description', control: 'text', description: 'Help text.' },
  {
    key: 'type',
    control: 'enum',
    values: FIELD_TYPES,
    description: 'Which strings are accepted (the value is always stored as a string).',
    default: 'string',
  },
  {
    key: 'required',
    control: 'bool',
    description: 'Missing or blank is refused.',
    default: false,
  },
  {
    key: 'pattern',
    control: 'string',
    description: 'Regular expression a string value must match; not with enum.',
  },
  {
    key: 'values',
    control: 'list',
    description: 'The enum members: non-empty, unique, no empty member, no commas.',
  },
  {
    key: 'multiple',
    control: 'bool',
    description: 'An enum value may hold several members, comma-separated.',
    default: false,
  },
  {
    key: 'default',
    control: 'string',
    description: 'Substituted when a required field is omitted; checked at load.',
  },
];

export function workflowSchemaDoc(
  types: StepTypeSource,
  agents: AgentValueSets,
): WorkflowSchemaDoc {
  const stepTypes = types.listStepTypes();
  const sections: Record<string, SchemaRow[]> = {};
  for (const t of stepTypes)
    for (const [k, rows] of Object.entries(t.meta.sections ?? {})) sections[k] = [...rows];
  const contexts = Object.fromEntries(
    STEP_CONTEXTS.map((c) => [
      c,
      stepTypes.filter((t) => t.meta.contexts.includes(c)).map((t) => t.meta.type),
    ]),
  ) as Record<StepContextName, string[]>;
  const typeIds = stepTypes.map((t) => t.meta.type);
  return {
    top_level: TOP_LEVEL_ROWS,
    defaults: DEFAULTS_ROWS,
    fields: FIELD_ROWS,
    lane: sections.lane ?? [],
    merge: sections.merge ?? [],
    sections,
    common: COMMON_ROWS.map((r) => (r.key === 'type' ? { ...r, values: typeIds } : { ...r })),
    step_types: stepTypes.map((t) => ({
      type: t.meta.type,
      summary: t.meta.docs.summary,
      docs_url: t.meta.docs.url,
      common: [...t.meta.common],
      contexts: [...t.meta.contexts],
      rows: [...t.meta.rows],
    })),
    contexts,
    template_context: {
      body: BODY_VARIABLES,
      // Sub-steps of a group are blind to each other: .Steps holds what ran before the group.
      parallel: BODY_VARIABLES,
      loop: [...BODY_VARIABLES, ...LOOP_VARIABLES],
      merge: [
        ...BODY_VARIABLES,
        { name: '.Conflicts', description: 'the conflicted paths the resolver must fix' },
      ],
    },
    values: {
      agents: [...agents.agents],
      models: Object.fromEntries(Object.entries(agents.models).map(([k, v]) => [k, [...v]])),
      efforts: Object.fromEntries(Object.entries(agents.efforts).map(([k, v]) => [k, [...v]])),
      platforms: [...PLATFORM_TOKENS],
      field_types: [...FIELD_TYPES],
      permission_modes: [...PERMISSION_MODES],
      on_input: [...ON_INPUT_MODES],
    },
  };
}
