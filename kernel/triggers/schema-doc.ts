/**
 * `GET /v1/triggers/schema` (SPEC §4.6): the trigger format as data for editors. Top-level rows,
 * one variant per registered source (its own rows, help, event kinds and trusted keys), one per
 * action, the `limits` and `signature` blocks. Values a user should think twice about carry
 * `dangerous[]` rows: `enabled: true`, `on_fire: create`, `permission: workflow`,
 * `overrun: cancel_previous`. Built from the registry, so a plugin's source appears unchanged.
 */
import type { TriggerFieldRow, TriggerSource } from '../plugin/index.js';
import { DEFAULT_DEDUPE_KEY, ON_FIRE_VALUES, OVERRUN_MODES, PERMISSIONS } from './definition.js';

export interface TriggerVariant {
  type: string;
  fields: TriggerFieldRow[];
  help?: string;
  events?: string[];
  trusted?: string[];
}

export interface TriggerSchemaDoc {
  top_level: TriggerFieldRow[];
  sources: TriggerVariant[];
  actions: TriggerVariant[];
  limits: TriggerFieldRow[];
  signature: TriggerFieldRow[];
}

export const TOP_LEVEL_ROWS: TriggerFieldRow[] = [
  {
    name: 'id',
    control: 'string',
    required: true,
    help: 'Equals the file name without .yaml: lowercase letters, digits, -, _ or ., starting with a letter or digit.',
  },
  {
    name: 'enabled',
    control: 'bool',
    default: false,
    help: 'Armed only when enabled and triggers.enabled is on in config.yaml.',
    dangerous: [
      {
        value: true,
        warning:
          'The trigger starts polling or accepting events and acts on the project without asking.',
      },
    ],
  },
  {
    name: 'project_id',
    control: 'project',
    required: true,
    help: 'The project the trigger acts on.',
  },
  { name: 'description', control: 'text', help: 'What the trigger is for.' },
  { name: 'source', control: 'source', required: true, help: 'Where events come from.' },
  {
    name: 'match',
    control: 'match',
    help: 'Event key (dotted) to a value or list of values; every key must match. A list-valued event key matches when any item does.',
  },
  {
    name: 'allowed_actors',
    control: 'list',
    help: "Logins whose events may fire (the event's actor, case-insensitive). Leave out to allow everyone.",
  },
  {
    name: 'if',
    control: 'template',
    help: 'Renders true or false with .Event, .Trigger and .Project; false filters the event.',
  },
  {
    name: 'dedupe_key',
    control: 'template',
    default: DEFAULT_DEDUPE_KEY,
    help: 'An event whose key a fired or seeded delivery already holds is deduped.',
  },
  {
    name: 'concurrency_key',
    control: 'template',
    help: 'Groups fired tasks; overrun decides what happens while one of the group is unsettled.',
  },
  {
    name: 'overrun',
    control: 'enum',
    values: OVERRUN_MODES,
    default: 'parallel',
    help: 'With a task of the same concurrency key in flight: fire anyway, skip the event, queue it until that task settles, or cancel that task and fire.',
    dangerous: [
      {
        value: 'cancel_previous',
        warning:
          'A new event cancels the running task of the same concurrency key, losing its work in progress.',
      },
    ],
  },
  { name: 'limits', control: 'limits', help: 'Rate limits.' },
  {
    name: 'on_fire',
    control: 'enum',
    values: ON_FIRE_VALUES,
    default: 'propose',
    help: 'propose creates tasks paused (and holds follow-ups and retries) for a human to resume; create lets them run. A cancel must say create.',
    dangerous: [
      {
        value: 'create',
        warning:
          'Tasks start without a human looking at them first, spending agent time on outside input.',
      },
    ],
  },
  { name: 'action', control: 'action', required: true, help: 'What a fired event does.' },
];

export const LIMITS_ROWS: TriggerFieldRow[] = [
  {
    name: 'max_per_hour',
    control: 'number',
    help: 'At most this many fired deliveries in any hour; the rest are dropped as rate_limited, not queued.',
  },
];

const TARGET_ROWS: TriggerFieldRow[] = [
  { name: 'task', control: 'template', help: 'Renders the id of the task to act on.' },
  {
    name: 'branch',
    control: 'template',
    help: 'Renders a branch; the live task of the project on it (one at most) is acted on. Give task or branch.',
  },
];

const MODEL_ROWS: TriggerFieldRow[] = [
  { name: 'agent', control: 'agent' },
  { name: 'model', control: 'model' },
  { name: 'effort', control: 'effort' },
];

export const ACTION_VARIANTS: TriggerVariant[] = [
  {
    type: 'create_task',
    help: 'POST /v1/tasks: paused unless on_fire: create, restricted unless permission: workflow.',
    fields: [
      { name: 'title', control: 'template', required: true },
      { name: 'description', control: 'template' },
      { name: 'workflow', control: 'workflow' },
      {
        name: 'fields',
        control: 'map',
        help: 'Task fields, each a template: the way event values reach commands (as environment variables).',
      },
      { name: 'prompt', control: 'template' },
      { name: 'branch_name', control: 'template' },
      { name: 'base_branch', control: 'string' },
      ...MODEL_ROWS,
      { name: 'priority', control: 'int' },
      { name: 'max_task_cost_usd', control: 'number' },
      {
        name: 'forge_issue',
        control: 'template',
        help: 'Renders an issue number to prefill from.',
      },
      {
        name: 'forge_pull',
        control: 'template',
        help: 'Renders a pull request number to work on.',
      },
      {
        name: 'permission',
        control: 'enum',
        values: PERMISSIONS,
        default: 'restricted',
        help: 'restricted runs every agent step restricted; workflow keeps the workflow’s own modes.',
        dangerous: [
          {
            value: 'workflow',
            warning:
              'Agent steps run with the permissions the workflow grants, on input from outside.',
          },
        ],
      },
    ],
  },
  {
    type: 'follow_up',
    help: 'POST /v1/tasks/{id}/follow_up with exactly one of prompt, run or workflow.',
    fields: [
      ...TARGET_ROWS,
      { name: 'prompt', control: 'template' },
      {
        name: 'run',
        control: 'template',
        help: 'A command line: event values cannot be printed into it.',
      },
      { name: 'workflow', control: 'workflow' },
      ...MODEL_ROWS,
    ],
  },
  {
    type: 'retry',
    help: 'POST /v1/tasks/{id}/retry.',
    fields: [
      ...TARGET_ROWS,
      { name: 'prompt_override', control: 'template' },
      {
        name: 'run_override',
        control: 'template',
        help: 'A command line: event values cannot be printed into it.',
      },
    ],
  },
  {
    type: 'cancel',
    help: 'POST /v1/tasks/{id}/cancel. Needs on_fire: create.',
    fields: TARGET_ROWS,
  },
];

export function triggerSchemaDoc(sources: readonly TriggerSource[]): TriggerSchemaDoc {
  const signature: TriggerFieldRow[] = [];
  for (const s of sources)
    for (const r of s.meta.signature ?? [])
      if (!signature.some((x) => x.name === r.name)) signature.push(r);
  return {
    top_level: TOP_LEVEL_ROWS,
    sources: sources.map((s) => ({
      type: s.type,
      help: s.meta.help,
      fields: [{ name: 'type', control: 'enum', values: [s.type], required: true }, ...s.meta.rows],
      ...(s.meta.events ? { events: [...s.meta.events] } : {}),
      ...(s.meta.trusted ? { trusted: [...s.meta.trusted] } : {}),
    })),
    actions: ACTION_VARIANTS.map((a) => ({
      ...a,
      fields: [{ name: 'type', control: 'enum', values: [a.type], required: true }, ...a.fields],
    })),
    limits: LIMITS_ROWS,
    signature,
  };
}
