/**
 * The configuration file's schema (SPEC §2.10): the single source of truth for keys, defaults,
 * rules, the generated first-start file and the configuration reference in docs/. Every object is
 * strict so an unknown key is rejected by name. Values keep the shape users write (`45m`, `512MB`)
 * so `GET /v1/config` mirrors the file and `PATCH /v1/config` takes the same shape back.
 */
import { z } from 'zod';
import { keyClashes, keyProblem, TUI_OPERATIONS } from '../../shared/tui-keys.js';
import { TASK_STATES } from '../task-states.js';
import { tryParseDuration } from './duration.js';
import { tryParseSize } from './size.js';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** Splits `host:port` (IPv6 in brackets or bare `::1:port`); null when malformed. */
export function parseListen(value: string): { host: string; port: number } | null {
  const m = /^(\[[^\]]+\]|[^:]+|::1):(\d{1,5})$/.exec(value.trim());
  if (!m) return null;
  const port = Number(m[2]);
  if (port > 65535) return null;
  const host = (m[1] as string).replace(/^\[(.*)\]$/, '$1');
  return { host, port };
}

const duration = (what: string, opts: { positive?: boolean; min?: number } = {}) =>
  z.string().superRefine((v, ctx) => {
    const ms = tryParseDuration(v);
    if (ms === null) {
      ctx.addIssue({
        code: 'custom',
        message: `${what} must be a duration such as 45m, 1h30m or 90s (got ${JSON.stringify(v)})`,
      });
      return;
    }
    if (opts.positive && ms <= 0)
      ctx.addIssue({ code: 'custom', message: `${what} must be positive` });
    if (opts.min !== undefined && ms !== 0 && ms < opts.min) {
      ctx.addIssue({ code: 'custom', message: `${what} must be 0 (off) or at least 1h` });
    }
  });

const intAtLeast = (min: number) =>
  z
    .number({ error: 'must be a number' })
    .int('must be a whole number')
    .min(min, `must be at least ${min}`);

const slugName = z.string().regex(/^[a-z0-9][a-z0-9_-]*$/);

const AgentPathSchema = z
  .strictObject({
    path: z
      .string()
      .default('')
      .describe(
        'Absolute path of the CLI binary; empty resolves it from PATH. Ignored inside a container.',
      ),
  })
  .prefault({});

export const ConfigSchema = z
  .strictObject({
    listen: z
      .string()
      .default('127.0.0.1:0')
      .superRefine((v, ctx) => {
        const parsed = parseListen(v);
        if (!parsed) {
          ctx.addIssue({
            code: 'custom',
            message: `listen must be host:port (got ${JSON.stringify(v)})`,
          });
        } else if (!LOOPBACK_HOSTS.has(parsed.host)) {
          ctx.addIssue({
            code: 'custom',
            message: `listen must be a loopback address (127.0.0.1, ::1 or localhost), not ${parsed.host}`,
          });
        }
      })
      .describe(
        'Loopback address and port of the API. Port 0 picks a free port, published in {data_dir}/daemon.json. Changes need a restart.',
      ),
    max_parallel_tasks: intAtLeast(1)
      .default(3)
      .describe('Tasks that may hold a slot at once (running or awaiting_input).'),
    max_parallel_chats: intAtLeast(1)
      .default(3)
      .describe('Chats that may hold a live agent process at once. Separate from the task cap.'),
    branch_template: z
      .string()
      .default('')
      .describe(
        'Template for new task branches (.ID, .Title, .Slug, .BaseBranch, .Fields.NAME, .Project.Name, .Path, .DefaultBranch, slug). Empty uses svc/{id}-{slug}.',
      ),
    defaults: z
      .strictObject({
        agent_timeout: duration('defaults.agent_timeout', { positive: true })
          .default('60m')
          .describe('Longest one agent attempt or chat turn may run.'),
        command_timeout: duration('defaults.command_timeout', { positive: true })
          .default('15m')
          .describe('Longest one command attempt, or one check, may run.'),
        input_timeout: duration('defaults.input_timeout', { positive: true })
          .default('24h')
          .describe('Longest each wait for an answer in awaiting_input may last.'),
      })
      .prefault({})
      .describe('Timeouts used when a workflow sets none.'),
    delete_empty_branch_on_archive: z
      .boolean()
      .default(true)
      .describe(
        'On archive, delete the task branch when it has no commits past its base (never forced).',
      ),
    delete_remote_branch_on_archive: z
      .boolean()
      .default(false)
      .describe(
        "On a human archive, also delete the branch's configured upstream once the local delete succeeded.",
      ),
    fetch_base_branch: z
      .boolean()
      .default(true)
      .describe(
        'Refresh the base branch from its upstream before cutting a worktree; falls back to the local base.',
      ),
    transcript_retention_days: intAtLeast(0)
      .default(90)
      .describe(
        "Days after archive before an archived task's transcripts are pruned. 0 keeps them forever.",
      ),
    transcript_max_bytes: z
      .union([z.string(), z.number()])
      .default('512MB')
      .superRefine((v, ctx) => {
        if (tryParseSize(v) === null) {
          ctx.addIssue({
            code: 'custom',
            message: `transcript_max_bytes must be a size such as 512MB or a byte count`,
          });
        }
      })
      .describe(
        'Per-attempt transcript cap (binary suffixes: KB, MB, GB). Past it the step fails transcript_limit. 0 disables.',
      ),
    max_task_cost_usd: z
      .number()
      .min(0)
      .default(0)
      .describe('Lifetime spend cap per task in USD, checked after each attempt. 0 is no cap.'),
    max_tree_cost_usd: z
      .number()
      .min(0)
      .default(0)
      .describe('Spend cap for one fan_out tree (root and every lane). 0 is no cap.'),
    usage_limit_recheck_interval: duration('usage_limit_recheck_interval', { positive: true })
      .default('15m')
      .describe('Wait before retrying after a usage limit that named no reset time.'),
    usage_limit_auto_continue: z
      .enum(['always', 'reported_only', 'never'])
      .default('always')
      .describe(
        'After a usage limit: always wait and continue, reported_only when the reset was named, never (block).',
      ),
    log_level: z
      .enum(['debug', 'info', 'warn', 'error'])
      .default('info')
      .describe('Daemon log level.'),
    debug: z
      .boolean()
      .default(false)
      .describe(
        'Record resolved agent, model, effort, permission mode, working directory and argv in each transcript.',
      ),
    environment: z
      .strictObject({
        inherit: z
          .union([z.enum(['all', 'none']), z.array(z.string().min(1))])
          .default('all')
          .describe(
            'Variables child processes inherit from the daemon: all, none, or a list of names.',
          ),
        unset: z
          .array(z.string().min(1))
          .default([])
          .describe('Variables removed after inheriting.'),
        set: z
          .record(z.string().min(1), z.string())
          .default({})
          .describe('Literal values set last (no expansion).'),
      })
      .prefault({})
      .describe('Environment of every child process: inherit, then unset, then set.'),
    agents: z
      .object({
        claude: AgentPathSchema,
        codex: AgentPathSchema,
        cursor: AgentPathSchema,
      })
      .catchall(z.strictObject({ path: z.string().default('') }))
      .prefault({})
      .describe('Where each agent CLI lives.'),
    parallel: z
      .strictObject({
        max_parallel: intAtLeast(1)
          .default(4)
          .describe('Sub-steps of a parallel group running at once, read at group start.'),
      })
      .prefault({}),
    fan_out: z
      .strictObject({
        max_depth: intAtLeast(1)
          .default(3)
          .describe('Deepest nesting of fan_out lanes, checked at task creation.'),
        max_tasks: intAtLeast(1)
          .default(64)
          .describe('Most descendants one task may create through fan_out.'),
      })
      .prefault({}),
    loop: z
      .strictObject({
        max_iterations: intAtLeast(1)
          .default(10)
          .describe('Ceiling for loop count and for_each lists.'),
      })
      .prefault({}),
    include: z
      .strictObject({
        max_depth: intAtLeast(1)
          .default(5)
          .describe('Deepest include nesting, checked at task creation.'),
      })
      .prefault({}),
    mcp: z
      .strictObject({
        wire_steps: z
          .boolean()
          .default(true)
          .describe('Give each agent step an MCP server pointing back at svc.'),
        max_depth: intAtLeast(1)
          .default(3)
          .describe('Deepest chain of tasks created through agent steps’ MCP endpoints.'),
        max_tasks: intAtLeast(1)
          .default(32)
          .describe(
            'Most tasks created through MCP in one chain, at every depth, below the task that started it.',
          ),
      })
      .prefault({}),
    forge: z
      .strictObject({
        enabled: z
          .boolean()
          .default(true)
          .describe('Use the GitHub integration for projects whose origin is on GitHub.'),
        poll_interval: duration('forge.poll_interval')
          .default('5m')
          .describe('How often the forge reconciler runs. 0 switches it off.'),
      })
      .prefault({}),
    update: z
      .strictObject({
        check: z
          .boolean()
          .default(true)
          .describe('Check for new releases. false means no outbound request.'),
        poll_interval: duration('update.poll_interval')
          .default('24h')
          .describe('Time between release checks. 0 means no outbound request.'),
      })
      .prefault({}),
    backup: z
      .strictObject({
        interval: duration('backup.interval', { min: 3_600_000 })
          .default('0')
          .describe('Time between scheduled backups. 0 is off, otherwise at least 1h.'),
        keep: intAtLeast(0).default(7).describe('Scheduled archives kept. 0 keeps everything.'),
        dir: z
          .string()
          .default('')
          .refine(
            (v) => v === '' || v.startsWith('/'),
            'backup.dir must be empty or an absolute path',
          )
          .describe('Where scheduled archives go. Empty means {data_dir}/backups.'),
      })
      .prefault({}),
    container: z
      .strictObject({
        image: z
          .string()
          .default('')
          .describe('Run command, check and agent steps in this image. Empty runs on the host.'),
        runtime: z.enum(['docker', 'podman']).default('docker').describe('Container CLI to drive.'),
        mount_agent_config: z
          .boolean()
          .default(true)
          .describe('Mount the agent config directories under a writable /svc-home used as HOME.'),
        network: z.boolean().default(true).describe('Give containers network access.'),
        extra_mounts: z
          .array(
            z
              .string()
              .regex(
                /^\/[^:]*:\/[^:]*(:ro)?$/,
                'extra_mounts entries are host:container or host:container:ro with absolute paths',
              ),
          )
          .default([])
          .describe('Extra bind mounts, host:container or host:container:ro.'),
      })
      .prefault({}),
    notify: z
      .strictObject({
        on: z
          .array(z.enum(TASK_STATES))
          .default([])
          .describe('Task states that run the notify command.'),
        command: z
          .array(z.string())
          .default([])
          .describe('argv run (no shell) with the transition as JSON on stdin.'),
      })
      .prefault({}),
    triggers: z
      .strictObject({
        enabled: z.boolean().default(false).describe('Global switch for trigger files.'),
      })
      .prefault({}),
    tui: z
      .strictObject({
        board: z
          .strictObject({
            group_by: z
              .array(z.enum(['project', 'workflow']))
              .default(['project', 'workflow'])
              .refine((v) => new Set(v).size === v.length, 'tui.board.group_by lists a level twice')
              .describe('Board grouping levels; [] is flat.'),
          })
          .prefault({}),
        hyperlinks: z.boolean().default(false).describe('Render terminal hyperlinks.'),
        keys: z
          .partialRecord(z.enum(TUI_OPERATIONS), z.string().min(1).max(16))
          .default({})
          .superRefine((v, ctx) => {
            for (const [op, key] of Object.entries(v)) {
              const problem = key === undefined ? null : keyProblem(key);
              if (problem) ctx.addIssue({ code: 'custom', path: [op], message: problem });
            }
            for (const c of keyClashes(v))
              ctx.addIssue({
                code: 'custom',
                message: `tui.keys binds ${JSON.stringify(c.key)} to ${c.operations.join(' and ')} (rebind one of them as well)`,
              });
          })
          .describe(
            'Key rebinding for the terminal board: operation id to key (one character, ctrl+<letter>, or enter, escape, tab, space, backspace, delete, left, right). Operations and default keys are listed in docs/tui.md; a key another operation still uses is refused.',
          ),
      })
      .prefault({})
      .describe('Relayed to terminal clients.'),
    plugins: z
      .array(z.string().min(1))
      .default([])
      .describe(
        'Extra plugin modules to load at start-up (absolute paths, or relative to the config directory).',
      ),
  })
  .describe('svc configuration');

export type Config = z.infer<typeof ConfigSchema>;
export type ConfigInput = z.input<typeof ConfigSchema>;

/** Every default, as the daemon runs with an empty or missing file. */
export function defaultConfig(): Config {
  return ConfigSchema.parse({});
}

/** Keys the generated first-start file leaves out (SPEC §2.10: max_parallel_chats). */
export const KEYS_OMITTED_FROM_TEMPLATE = new Set(['max_parallel_chats']);

export { slugName };
