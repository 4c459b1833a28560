/**
 * The workflow file's own keys (SPEC §2.8 top level and `defaults`): strict zod schemas, the
 * platform tokens, and the types the engine reads. Steps are left as raw values here; the
 * validator checks each against its step type from the plugin registry.
 */
import { z } from 'zod';
import {
  AGENT_KEY_SCHEMAS,
  COMMON_KEY_SCHEMAS,
  commitSchema,
  durationSchema,
  type PathSegment,
} from '../plugin/index.js';

/** SPEC §2.8 `platforms`: matched exactly; `posix` admits every non-Windows host. */
export const PLATFORM_TOKENS = ['linux', 'darwin', 'windows', 'posix'] as const;
export type PlatformToken = (typeof PLATFORM_TOKENS)[number];

/** Workflow names in files: no whitespace, `/` or `\` (the registry key; files from the earlier system keep working). */
export const WORKFLOW_NAME_PATTERN = /^[^\s/\\]+$/;

/** Names `POST /v1/workflows` creates (SPEC §4.3): also safe as a file name. */
export const CREATE_NAME_PATTERN = /^[a-z0-9][a-z0-9_.-]*$/;

/**
 * `defaults.container`: merged per field over the daemon's `container` block (SPEC §2.8). Only the
 * workflow level may set it: a task's steps share one container.
 */
export const ContainerDefaultsSchema = z.strictObject({
  image: z.string({ error: 'must be a string' }).optional(),
  runtime: z.enum(['docker', 'podman'], { error: 'must be docker or podman' }).optional(),
  mount_agent_config: z.boolean({ error: 'must be true or false' }).optional(),
  network: z.boolean({ error: 'must be true or false' }).optional(),
  extra_mounts: z
    .array(
      z
        .string()
        .regex(
          /^\/[^:]*:\/[^:]*(:ro)?$/,
          'extra_mounts entries are host:container or host:container:ro with absolute paths',
        ),
    )
    .optional(),
});

export const DefaultsSchema = z.strictObject({
  agent: AGENT_KEY_SCHEMAS.agent.optional(),
  model: AGENT_KEY_SCHEMAS.model.optional(),
  effort: AGENT_KEY_SCHEMAS.effort.optional(),
  permission_mode: AGENT_KEY_SCHEMAS.permission_mode.optional(),
  on_input: AGENT_KEY_SCHEMAS.on_input.optional(),
  input_timeout: AGENT_KEY_SCHEMAS.input_timeout.optional(),
  max_retries: COMMON_KEY_SCHEMAS.max_retries.optional(),
  retry_backoff: durationSchema({ positive: false }).optional(),
  timeout: COMMON_KEY_SCHEMAS.timeout.optional(),
  container: ContainerDefaultsSchema.optional(),
  commit: commitSchema.optional(),
});

export type WorkflowDefaults = z.infer<typeof DefaultsSchema>;
export type ContainerDefaults = z.infer<typeof ContainerDefaultsSchema>;

/** The top level, with `fields` and `steps` items checked one by one afterwards. */
export const TopLevelSchema = z.strictObject({
  name: z
    .string({ error: 'name is required and must be a string' })
    .min(1, 'name must not be empty')
    .regex(WORKFLOW_NAME_PATTERN, 'name has no whitespace, "/" or "\\"'),
  description: z.string({ error: 'must be a string' }).optional(),
  platforms: z
    .array(
      z.string().refine((t) => (PLATFORM_TOKENS as readonly string[]).includes(t), {
        error: (issue) =>
          `unknown platform ${JSON.stringify(issue.input)}: use ${PLATFORM_TOKENS.join(', ')}${issue.input === 'macos' ? ' (macOS is darwin)' : ''}`,
        params: { code: 'platform_token' },
      }),
      { error: 'must be a list of platform tokens' },
    )
    .optional(),
  fields: z.array(z.unknown(), { error: 'must be a list of field declarations' }).optional(),
  defaults: z.unknown().optional(),
  steps: z
    .array(z.unknown(), { error: 'steps is required and must be a list' })
    .min(1, 'steps must not be empty'),
});

/** One authored step as the engine reads it: its type and whatever keys its step type accepts. */
export interface StepDef {
  id?: string;
  name?: string;
  type: string;
  [key: string]: unknown;
}

/** A workflow as authored (after validation): what `definition` serves and a snapshot starts from. */
export interface WorkflowDef {
  name: string;
  description?: string;
  platforms?: PlatformToken[];
  fields?: Array<Record<string, unknown>>;
  defaults?: WorkflowDefaults;
  steps: StepDef[];
}

/** The host as workflow platforms see it. */
export interface HostPlatform {
  /** `linux`, `darwin`, `windows`, or another `process.platform` value. */
  os: string;
}

export function currentHost(): HostPlatform {
  return { os: process.platform === 'win32' ? 'windows' : process.platform };
}

/** Whether a platforms list admits the host (empty admits anywhere). */
export function platformAdmits(
  platforms: readonly string[] | undefined,
  host: HostPlatform,
): boolean {
  if (!platforms || platforms.length === 0) return true;
  return platforms.some((t) => t === host.os || (t === 'posix' && host.os !== 'windows'));
}

/** `steps[2].lanes[0].workflow` from `['steps', 2, 'lanes', 0, 'workflow']`. */
export function formatWorkflowPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out === '' ? seg : `.${seg}`;
  }
  return out;
}
