/**
 * The building blocks step type schemas share (SPEC §2.8 "Common step keys", defaults table), so
 * every step type spells `id`, `timeout` or `on_input` the same way and a finding reads the same
 * whichever type it came from. Plugins reach these through the plugin door.
 */
import { z } from 'zod';
import type { CommonStepKey, SchemaRow } from './step.js';

/** Step ids, lane ids and field names: lowercase letters, digits, `-`, `_`, `.`; first alphanumeric. */
export const SLUG_PATTERN = /^[a-z0-9][a-z0-9_.-]*$/;

export const slugSchema = z
  .string({ error: 'must be a string' })
  .regex(
    SLUG_PATTERN,
    'must be a slug: lowercase letters, digits, "-", "_" or ".", starting with a letter or digit',
  );

const DURATION_PART = /(\d+(?:\.\d+)?)(ns|us|\u00b5s|ms|h|m|s)/y;
const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * Milliseconds of a Go-style duration (`45m`, `1h30m`, `90s`, `0`), or null. Workflow files keep
 * Go's units (no `d`) so files from the earlier system read the same (decision 021).
 */
export function workflowDurationMs(text: string): number | null {
  const s = text.trim();
  if (s === '0') return 0;
  if (s === '') return null;
  let total = 0;
  DURATION_PART.lastIndex = 0;
  while (DURATION_PART.lastIndex < s.length) {
    const at = DURATION_PART.lastIndex;
    const m = DURATION_PART.exec(s);
    if (!m || m.index !== at) return null;
    total += Number(m[1]) * (UNIT_MS[m[2] as string] ?? 0);
  }
  return Number.isFinite(total) ? total : null;
}

/** A duration string; `positive` refuses `0`. */
export function durationSchema(opts: { positive: boolean }) {
  return z
    .string({ error: 'must be a duration such as 45m, 1h30m or 90s' })
    .superRefine((v, ctx) => {
      const ms = workflowDurationMs(v);
      if (ms === null) {
        ctx.addIssue({
          code: 'custom',
          message: `must be a duration such as 45m, 1h30m or 90s (got ${JSON.stringify(v)})`,
          params: { code: 'invalid_duration' },
        });
      } else if (opts.positive && ms <= 0) {
        ctx.addIssue({
          code: 'custom',
          message: 'must be a positive duration',
          params: { code: 'invalid_duration' },
        });
      }
    });
}

/** A Go text/template string; its syntax is checked by the validator through `meta.templates`. */
export const templateSchema = z.string({ error: 'must be a string (a template)' });

/** A required template: present and not blank. */
export const requiredTemplateSchema = templateSchema.refine((v) => v.trim() !== '', {
  message: 'must not be empty',
  params: { code: 'empty' },
});

export const PERMISSION_MODES = ['full-auto', 'restricted'] as const;
export const ON_INPUT_MODES = ['wait', 'deny', 'require'] as const;
export const SHELLS = ['sh', 'pwsh', 'cmd'] as const;

const retriesSchema = z
  .number({ error: 'must be a whole number' })
  .int('must be a whole number')
  .min(0, 'must be 0 or more');

/** Zod shapes of the common keys, picked by each step type through `commonShape`. */
export const COMMON_KEY_SCHEMAS = {
  id: slugSchema,
  name: z.string({ error: 'must be a string' }).min(1, 'must not be empty'),
  if: requiredTemplateSchema,
  max_retries: retriesSchema,
  retry_backoff: durationSchema({ positive: false }),
  timeout: durationSchema({ positive: true }),
  allow_failure: z.boolean({ error: 'must be true or false' }),
} as const;

type PickedShape<K extends CommonStepKey> = {
  [P in Exclude<K, 'type'> | 'id' | 'name']: z.ZodOptional<
    (typeof COMMON_KEY_SCHEMAS)[P & keyof typeof COMMON_KEY_SCHEMAS]
  >;
};

/**
 * The optional common keys a step type accepts (`id` and `name` always), to spread into its
 * strict schema next to `type: z.literal(...)` and its own keys.
 */
export function commonShape<K extends CommonStepKey>(keys: readonly K[]): PickedShape<K> {
  const out: Record<string, z.ZodType> = {
    id: COMMON_KEY_SCHEMAS.id.optional(),
    name: COMMON_KEY_SCHEMAS.name.optional(),
  };
  for (const k of keys) {
    if (k === 'type') continue;
    out[k] = COMMON_KEY_SCHEMAS[k as Exclude<CommonStepKey, 'type'>].optional();
  }
  return out as PickedShape<K>;
}

/** The agent keys a step may set and the `defaults` block may set for every step (SPEC §2.8). */
export const AGENT_KEY_SCHEMAS = {
  agent: z.string({ error: 'must be an agent name' }).min(1, 'must name an agent'),
  model: z.string({ error: 'must be a string' }),
  effort: z.string({ error: 'must be a string' }),
  permission_mode: z.enum(PERMISSION_MODES, {
    error: `must be one of ${PERMISSION_MODES.join(', ')}`,
  }),
  on_input: z.enum(ON_INPUT_MODES, { error: `must be one of ${ON_INPUT_MODES.join(', ')}` }),
  input_timeout: durationSchema({ positive: true }),
} as const;

/** Schema-route rows of the common keys (`GET /v1/workflows/schema` → `common`). */
export const COMMON_ROWS: readonly (SchemaRow & { key: CommonStepKey })[] = [
  {
    key: 'id',
    control: 'string',
    description:
      'Slug unique in the file, sub-steps included. Needed to read the step from `.Steps`; derived when absent (decision 023).',
  },
  { key: 'name', control: 'string', description: 'Display name.', default: 'the id' },
  { key: 'type', control: 'enum', description: 'The step type.', required: true },
  {
    key: 'if',
    control: 'template',
    description: 'Guard: the step runs only when this renders exactly `true` (decision 026).',
  },
  {
    key: 'max_retries',
    control: 'int',
    description: 'Attempts after the first.',
    default: 1,
  },
  {
    key: 'retry_backoff',
    control: 'duration',
    description: 'Wait before a retry; non-zero re-queues the task and releases its slot.',
    default: '0s',
  },
  {
    key: 'timeout',
    control: 'duration',
    description: 'Longest one attempt may run (a parallel group or loop: the whole).',
    default: '60m agent, 15m command (config)',
  },
  {
    key: 'allow_failure',
    control: 'bool',
    description: 'A failure the step produced itself advances instead of blocking (decision 027).',
    default: false,
  },
];

/** Schema-route rows of the agent keys, shared by agent steps, `defaults` and lanes. */
export const AGENT_ROWS: readonly SchemaRow[] = [
  { key: 'agent', control: 'agent', description: 'Agent CLI to run.', default: 'daemon default' },
  { key: 'model', control: 'model', description: 'Model; empty lets the CLI decide.' },
  { key: 'effort', control: 'effort', description: 'Reasoning effort (ignored by cursor).' },
  {
    key: 'permission_mode',
    control: 'enum',
    values: PERMISSION_MODES,
    description: 'restricted also limits which adapters may run the step.',
    default: 'full-auto',
  },
  {
    key: 'on_input',
    control: 'enum',
    values: ON_INPUT_MODES,
    description:
      'When the agent asks: wait for a human, deny automatically, or require an adapter that can ask.',
    default: 'wait',
  },
  {
    key: 'input_timeout',
    control: 'duration',
    description: 'Longest each wait for an answer may last.',
    default: '24h (config)',
  },
];

/** Rows of `check` and `check_timeout`, shared by agent and command steps. */
export const CHECK_ROWS: readonly SchemaRow[] = [
  {
    key: 'check',
    control: 'template',
    description: 'Shell command run in the worktree after the step; non-zero fails the attempt.',
  },
  {
    key: 'check_timeout',
    control: 'duration',
    description: 'Longest the check may run.',
    default: '15m (config)',
  },
];

/**
 * `commit` (decision 204): svc never commits for the user, unless a step (or the workflow's
 * `defaults`) asks: after an attempt that succeeded, what it left in the worktree is committed on
 * the task's branch, with a message naming the task and the step.
 */
export const commitSchema = z.boolean({ error: 'must be true or false' });

export const COMMIT_ROW: SchemaRow = {
  key: 'commit',
  control: 'bool',
  description:
    'After the step succeeds, commit what it left in the worktree (message names the task and step).',
  default: false,
};
