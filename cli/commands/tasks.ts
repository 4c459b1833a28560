/**
 * `svc task …` (SPEC §4.4): create, list, show (the step timeline), steps, logs (`-f` follows live
 * output over the task's event stream) and every human action, each with `--json` and exit codes
 * a script can branch on (docs/cli.md).
 */
import type { StepRun, TaskDetail } from '../../shared/wire-types.js';
import { type Command, type CommandContext, JSON_OPTION, type OptionSpec } from '../command.js';
import type { FieldFlags } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { elapsed, positiveId, table, truncate, UsageError } from '../format.js';
import { resolveProject } from '../project-ref.js';
import { stoppedLines, type TaskLike } from '../waiting.js';
import {
  chatLockLines,
  FORGE_CREATE_OPTIONS,
  forgeCreateBody,
  forgeLines,
  type TaskLinks,
} from './task-links.js';
import { taskLogs } from './task-logs.js';

/**
 * A task as `GET /v1/tasks/{id}` answers it: the boards' reading (shared/wire-types.ts) with the
 * shapes this command line's helpers read more exactly (TaskLike, TaskLinks), the fields it
 * prints as present on every answer, and what only it shows.
 */
export interface Task
  extends Omit<TaskDetail, keyof TaskLike | keyof TaskLinks>,
    TaskLike,
    TaskLinks {
  branch_name: string | null;
  base_branch: string;
  worktree_path: string | null;
  block_reason: string | null;
  block_detail: string | null;
  available_actions: string[];
  steps?: StepRun[];
  prompt?: string | null;
  warnings?: string[];
  readmitted?: number;
  branch?: { name: string; result: string; error?: string };
}

/** The state with the reason it carries: `blocked: step_failed`, `queued: usage_limit until …`. */
function stateText(t: Task): string {
  if (t.state === 'blocked' && t.block_reason) return `blocked: ${t.block_reason}`;
  if (t.state === 'queued' && t.queued_reason)
    return `queued: ${t.queued_reason}${t.admit_not_before ? ` until ${t.admit_not_before}` : ''}`;
  if (t.state === 'running' && t.pause_requested) return 'running (pause requested)';
  return t.state;
}

/** `step 2/3 test`, or `follow-up 1` while a follow-up round runs past the workflow's steps. */
export function stepText(
  t: Pick<Task, 'current_step' | 'step_total' | 'step_name' | 'follow_up'>,
): string {
  if (t.follow_up && t.current_step >= t.step_total) return `follow-up ${t.follow_up.round}`;
  const n = Math.min(t.current_step + 1, t.step_total);
  return `step ${n}/${t.step_total}${t.step_name ? ` ${t.step_name}` : ''}`;
}

/** `1/3 settled (running 1, done 1, blocked 1)`: lane counts without JSON. */
export function lanesText(c: NonNullable<Task['children']>): string {
  const by = Object.entries(c.by_state)
    .filter(([, n]) => n > 0)
    .map(([state, n]) => `${state} ${n}`)
    .join(', ');
  return `${c.settled}/${c.total} settled${by ? ` (${by})` : ''}`;
}

function printTask(ctx: CommandContext, t: Task): void {
  if (ctx.options.json) {
    ctx.out(JSON.stringify(t, null, 2));
    return;
  }
  const lines = [`task ${t.id}: ${t.title}`, `  state     ${stateText(t)}`];
  lines.push(`  workflow  ${t.workflow}   ${stepText(t)}`);
  if (t.prompt) {
    const [first = '', ...rest] = t.prompt.trim().split('\n');
    lines.push(
      `  prompt    ${truncate(first, 100)}${rest.length > 0 ? ` (+${rest.length} lines)` : ''}`,
    );
  }
  lines.push(...forgeLines(t));
  if (t.priority) lines.push(`  priority  ${t.priority}`);
  if (t.branch_name) lines.push(`  branch    ${t.branch_name} (from ${t.base_branch})`);
  if (t.worktree_path) lines.push(`  worktree  ${t.worktree_path}`);
  if (t.cost_usd !== undefined && t.cost_usd !== null)
    lines.push(`  cost      $${t.cost_usd.toFixed(4)}`);
  if (t.parent_task_id) lines.push(`  lane      ${t.lane_id} of task ${t.parent_task_id}`);
  if (t.children) {
    const c = t.children;
    const merges =
      c.merged !== undefined ? `, ${c.merged} merged, ${c.unmerged ?? 0} not merged` : '';
    lines.push(`  lanes     ${lanesText(c)}${merges}`);
    for (const l of c.left_out ?? [])
      lines.push(
        `  left out  lane ${l.lane_id} (task ${l.task_id}, ${l.reason}): branch ${l.branch}`,
      );
  }
  if (t.loop)
    lines.push(
      `  loop      ${t.loop.iteration}/${t.loop.total ?? t.loop.max_iterations}${t.loop.item ? ` item=${t.loop.item}` : ''}`,
    );
  if (t.warnings && t.warnings.length > 0) lines.push(`  warnings  ${t.warnings.join('; ')}`);
  if (t.branch)
    lines.push(
      `  branch    ${t.branch.name}: ${t.branch.result}${t.branch.error ? ` (${t.branch.error})` : ''}`,
    );
  lines.push(...chatLockLines(t));
  lines.push(`  actions   ${t.available_actions.join(', ') || '(none)'}`);
  // What the task waits on (the gate's instructions, the question, why it is blocked) and work
  // only its worktree holds.
  const waiting = stoppedLines(t);
  if (waiting.length > 0) lines.push('', ...waiting);
  if (t.steps) {
    lines.push('', timeline(t));
  }
  ctx.out(lines.join('\n'));
}

/** The step timeline: one line per step index, attempts folded, groups and loops indented. */
export function timeline(
  t: Pick<Task, 'steps' | 'workflow_steps' | 'current_step' | 'state' | 'step_total'>,
): string {
  const rows: string[][] = [['#', 'STEP', 'TYPE', 'STATE', 'TRIES', 'TIME', 'NOTE']];
  const byIndex = new Map<number, StepRun[]>();
  for (const s of t.steps ?? [])
    byIndex.set(s.step_index, [...(byIndex.get(s.step_index) ?? []), s]);
  const indices = new Set<number>([
    ...(t.workflow_steps ?? []).map((w) => w.index),
    ...byIndex.keys(),
  ]);
  for (const index of [...indices].sort((a, b) => a - b)) {
    const runs = byIndex.get(index) ?? [];
    const wf = t.workflow_steps?.find((w) => w.index === index);
    const latestBy = new Map<string, StepRun>();
    for (const r of runs) latestBy.set(`${r.step_id}@${r.iteration}`, r);
    const top = wf ?? {
      id: runs[0]?.step_id ?? '?',
      name: runs[0]?.step_name ?? '?',
      type: runs[0]?.step_type ?? '?',
    };
    const grouped =
      runs.some((r) => r.group_id || r.iteration > 0) ||
      (runs.length > 0 && runs.some((r) => r.step_id !== top.id));
    const marker = index === t.current_step && !['done', 'archived'].includes(t.state) ? '>' : ' ';
    if (!grouped) {
      const last = runs.at(-1);
      rows.push([
        `${marker}${index + 1}`,
        runs[0]?.follow_up ? `follow-up ${index - t.step_total + 1}` : top.name,
        top.type,
        last?.state ?? 'pending',
        String(runs.filter((r) => r.step_id === top.id).length || ''),
        last ? elapsed(last.started_at, last.finished_at) : '',
        note(last),
      ]);
      continue;
    }
    rows.push([
      `${marker}${index + 1}`,
      top.name,
      top.type,
      summarize([...latestBy.values()]),
      '',
      '',
      '',
    ]);
    for (const r of latestBy.values()) {
      rows.push([
        '',
        `  ${r.iteration > 0 ? `[${r.iteration}${r.loop_item ? ` ${truncate(r.loop_item, 20)}` : ''}] ` : ''}${r.step_id}`,
        r.step_type,
        r.state,
        String(runs.filter((x) => x.step_id === r.step_id && x.iteration === r.iteration).length),
        elapsed(r.started_at, r.finished_at),
        note(r),
      ]);
    }
  }
  return table(rows);
}

function summarize(runs: StepRun[]): string {
  const counts = new Map<string, number>();
  for (const r of runs) counts.set(r.state, (counts.get(r.state) ?? 0) + 1);
  return [...counts].map(([s, n]) => `${n} ${s}`).join(', ');
}

function note(r: StepRun | undefined): string {
  if (!r) return '';
  if (r.failure_reason)
    return `${r.failure_reason}${r.exit_code !== null ? ` (exit ${r.exit_code})` : ''}`;
  if (r.skip_reason) return `skipped: ${r.skip_reason}`;
  return r.cost_usd !== null ? `$${r.cost_usd.toFixed(4)}` : '';
}

const idArg = (ctx: CommandContext) => positiveId(ctx.args[0], 'task');

export const taskCreate: Command = {
  name: 'task create',
  summary: 'Create a task on a project',
  usage:
    'svc task create [--project <id|name>] (--title <t> | --issue <n> | --pull <n>) [--workflow w] [--field k=v ...] [options]',
  options: {
    project: {
      type: 'string',
      description:
        'project id or name (default: the registered project holding the current directory)',
    },
    title: { type: 'string', description: 'task title (required unless --issue or --pull)' },
    description: { type: 'string', description: 'longer description' },
    workflow: { type: 'string', description: 'workflow name (default: the project’s, else adhoc)' },
    field: {
      type: 'string',
      multiple: true,
      description: 'a workflow field, name=value (repeatable)',
    },
    prompt: {
      type: 'string',
      description:
        'instructions for the agent: templates read .Task.Prompt, else it opens the first agent step',
    },
    branch: { type: 'string', description: 'branch name, used verbatim' },
    base: { type: 'string', description: 'base branch (default: the project’s)' },
    priority: { type: 'string', description: 'higher runs first' },
    paused: { type: 'boolean', description: 'create it held; resume to start' },
    restricted: { type: 'boolean', description: 'every agent step runs restricted' },
    agent: { type: 'string', description: 'agent override' },
    model: { type: 'string', description: 'model override' },
    effort: { type: 'string', description: 'effort override' },
    'max-cost': { type: 'string', description: 'cost cap in USD for this task' },
    'idempotency-key': { type: 'string', description: 'makes retries of this command safe' },
    ...FORGE_CREATE_OPTIONS,
    ...JSON_OPTION,
  },
  fieldFlags: {
    project_id: '--project <id or name>',
    title: '--title <text>',
    description: '--description <text>',
    workflow: '--workflow <name>',
    fields: '--field <name>=<value>',
    'fields.*': '--field {name}=<value>',
    prompt: '--prompt <text>',
    branch_name: '--branch <name>',
    base_branch: '--base <branch>',
    priority: '--priority <n>',
    agent: '--agent <name>',
    model: '--model <name>',
    effort: '--effort <level>',
    max_task_cost_usd: '--max-cost <usd>',
    forge_issue: '--issue <n>',
    forge_pull: '--pull <n>',
  },
  async run(ctx) {
    const o = ctx.options;
    const body: Record<string, unknown> = {};
    forgeCreateBody(o, body);
    for (const [opt, key] of [
      ['title', 'title'],
      ['description', 'description'],
      ['workflow', 'workflow'],
      ['prompt', 'prompt'],
      ['branch', 'branch_name'],
      ['base', 'base_branch'],
      ['agent', 'agent'],
      ['model', 'model'],
      ['effort', 'effort'],
    ] as const) {
      if (typeof o[opt] === 'string') body[key] = o[opt];
    }
    if (typeof o.priority === 'string') {
      if (!/^-?\d+$/.test(o.priority)) throw new UsageError('--priority takes an integer');
      body.priority = Number(o.priority);
    }
    if (typeof o['max-cost'] === 'string') {
      const usd = Number(o['max-cost']);
      if (o['max-cost'].trim() === '' || !Number.isFinite(usd))
        throw new UsageError(`--max-cost takes a number of US dollars, not ${o['max-cost']}`);
      body.max_task_cost_usd = usd;
    }
    if (o.paused) body.paused = true;
    if (o.restricted) body.restricted = true;
    const fields = Array.isArray(o.field) ? o.field : [];
    if (fields.length > 0) {
      body.fields = Object.fromEntries(
        fields.map((f) => {
          const at = f.indexOf('=');
          if (at <= 0) throw new UsageError(`--field takes name=value, not ${f}`);
          return [f.slice(0, at), f.slice(at + 1)];
        }),
      );
    }
    // Arguments first (a usage mistake is exit 2 whether or not the daemon runs), then the project.
    body.project_id = await resolveProject(ctx, { required: true });
    const headers: Record<string, string> = {};
    if (typeof o['idempotency-key'] === 'string') headers['idempotency-key'] = o['idempotency-key'];
    const task = await ctx.client().request<Task>('POST', '/v1/tasks', { body, headers });
    if (ctx.options.json) ctx.out(JSON.stringify(task, null, 2));
    else {
      ctx.out(`task ${task.id} ${task.state} on ${task.branch_name}`);
      for (const w of task.warnings ?? []) ctx.err(`warning: ${w}`);
    }
    return EXIT.ok;
  },
};

export const taskList: Command = {
  name: 'task list',
  summary: 'List tasks (not archived, unless --archived or --all)',
  options: {
    project: { type: 'string', description: 'only this project (id or name)' },
    state: { type: 'string', description: 'only this state' },
    archived: { type: 'boolean', description: 'only archived tasks' },
    all: { type: 'boolean', description: 'archived tasks too' },
    lanes: { type: 'boolean', description: 'include fan-out lanes' },
    limit: { type: 'string', description: 'at most this many (newest first)' },
    ...JSON_OPTION,
  },
  async run(ctx) {
    const o = ctx.options;
    const tasks = await ctx.client().allTasks<Task>(
      {
        archived: o.all ? 'all' : o.archived ? 'true' : undefined,
        project_id: await resolveProject(ctx, { required: false, useCwd: false }),
        state: typeof o.state === 'string' ? o.state : undefined,
        include_children: o.lanes ? 'true' : undefined,
      },
      typeof o.limit === 'string' ? positiveId(o.limit, '--limit') : undefined,
    );
    if (o.json) {
      ctx.out(JSON.stringify(tasks, null, 2));
      return EXIT.ok;
    }
    if (tasks.length === 0) {
      ctx.out('no tasks');
      return EXIT.ok;
    }
    ctx.out(
      table([
        ['ID', 'STATE', 'PROJECT', 'WORKFLOW', 'STEP', 'TIME', 'TITLE'],
        ...tasks.map((t) => [
          String(t.id),
          t.state === 'blocked' && t.block_reason
            ? `blocked:${t.block_reason}`
            : t.state === 'queued' && t.queued_reason
              ? `queued:${t.queued_reason}`
              : t.state,
          t.project_name ?? String(t.project_id),
          t.workflow,
          `${Math.min(t.current_step + 1, t.step_total)}/${t.step_total} ${t.step_name ?? ''}`.trim(),
          elapsed(t.started_at ?? t.created_at, t.finished_at),
          truncate(t.title, 50),
        ]),
      ]),
    );
    return EXIT.ok;
  },
};

export const taskShow: Command = {
  name: 'task show',
  summary: 'Show a task with its step timeline (groups, loop progress, lanes)',
  usage: 'svc task show <id>',
  options: JSON_OPTION,
  async run(ctx) {
    printTask(ctx, await ctx.client().get<Task>(`/v1/tasks/${idArg(ctx)}`));
    return EXIT.ok;
  },
};

export const taskSteps: Command = {
  name: 'task steps',
  summary: 'List every attempt of every step',
  usage: 'svc task steps <id>',
  options: JSON_OPTION,
  async run(ctx) {
    const steps = await ctx.client().get<StepRun[]>(`/v1/tasks/${idArg(ctx)}/steps`);
    if (ctx.options.json) ctx.out(JSON.stringify(steps, null, 2));
    else
      ctx.out(
        table([
          ['RUN', '#', 'STEP', 'TRY', 'STATE', 'EXIT', 'TIME', 'NOTE'],
          ...steps.map((s) => [
            String(s.id),
            String(s.step_index + 1),
            `${s.iteration > 0 ? `[${s.iteration}] ` : ''}${s.step_id}`,
            String(s.attempt),
            s.state,
            s.exit_code === null ? '' : String(s.exit_code),
            elapsed(s.started_at, s.finished_at),
            note(s),
          ]),
        ]),
      );
    return EXIT.ok;
  },
};

export const taskPriority: Command = {
  name: 'task priority',
  summary: 'Change the priority of a queued or paused task (higher is admitted first)',
  usage: 'svc task priority <id> <n>',
  options: JSON_OPTION,
  fieldFlags: { priority: '<n> (an integer)' },
  async run(ctx) {
    const id = idArg(ctx);
    const raw = ctx.args[1];
    if (raw === undefined || !/^-?\d+$/.test(raw))
      throw new UsageError(
        `the priority must be an integer${raw === undefined ? '' : `, not ${raw}`}`,
      );
    const t = await ctx.client().patch<Task>(`/v1/tasks/${id}`, { priority: Number(raw) });
    if (ctx.options.json) ctx.out(JSON.stringify(t, null, 2));
    else ctx.out(`task ${t.id} ${t.state}, priority ${t.priority ?? Number(raw)}`);
    return EXIT.ok;
  },
};

/** The lanes under `id`, drawn as a tree: `├─` before a lane with a sibling below, `└─` before the last. */
async function laneTree(
  ctx: CommandContext,
  id: number,
  prefix: string,
  lines: string[],
): Promise<void> {
  const lanes = await ctx.client().get<Task[]>('/v1/tasks', { parent_id: id, archived: 'all' });
  for (const [i, l] of lanes.entries()) {
    const last = i === lanes.length - 1;
    const note = l.state === 'blocked' && l.block_reason ? ` (${l.block_reason})` : '';
    lines.push(
      `${prefix}${last ? '└─' : '├─'} ${l.id} ${l.lane_id} ${l.state}${note} — ${l.branch_name ?? ''}`,
    );
    await laneTree(ctx, l.id, `${prefix}${last ? '   ' : '│  '}`, lines);
  }
}

export const taskTree: Command = {
  name: 'task tree',
  summary: 'Show a task and its fan-out lanes, at every depth, with their states',
  usage: 'svc task tree <id>',
  options: JSON_OPTION,
  async run(ctx) {
    const id = idArg(ctx);
    const root = await ctx.client().get<Task>(`/v1/tasks/${id}`);
    if (ctx.options.json) {
      const collect = async (t: Task): Promise<unknown> => ({
        id: t.id,
        lane_id: t.lane_id,
        state: t.state,
        lanes: await Promise.all(
          (await ctx.client().get<Task[]>('/v1/tasks', { parent_id: t.id, archived: 'all' })).map(
            collect,
          ),
        ),
      });
      ctx.out(JSON.stringify(await collect(root), null, 2));
      return EXIT.ok;
    }
    const lines = [
      `${root.id} ${root.title} ${root.state}${root.children ? ` — lanes ${root.children.settled}/${root.children.total} settled` : ''}`,
    ];
    await laneTree(ctx, id, '', lines);
    ctx.out(lines.join('\n'));
    return EXIT.ok;
  },
};

function action(
  name: string,
  summary: string,
  path = name,
  options: Record<string, OptionSpec> = {},
  body?: (ctx: CommandContext) => unknown,
  fieldFlags?: FieldFlags,
): Command {
  return {
    name: `task ${name}`,
    summary,
    usage: `svc task ${name} <id>`,
    options: { ...options, ...JSON_OPTION },
    ...(fieldFlags ? { fieldFlags } : {}),
    async run(ctx) {
      // Arguments first: a usage mistake is exit 2 whether or not the daemon runs.
      const url = `/v1/tasks/${idArg(ctx)}/${path}`;
      const payload = body ? body(ctx) : undefined;
      const t = await ctx.client().post<Task>(url, payload);
      if (ctx.options.json) ctx.out(JSON.stringify(t, null, 2));
      else {
        ctx.out(
          `task ${t.id} ${t.state}${t.readmitted !== undefined ? ` (${t.readmitted} lanes re-admitted)` : ''}`,
        );
        if (t.branch)
          ctx.out(
            `branch ${t.branch.name}: ${t.branch.result}${t.branch.error ? ` (${t.branch.error})` : ''}`,
          );
        for (const w of t.warnings ?? []) ctx.err(`warning: ${w}`);
      }
      return EXIT.ok;
    },
  };
}

export const taskCommands: Command[] = [
  taskCreate,
  taskList,
  taskShow,
  taskSteps,
  taskLogs,
  taskTree,
  taskPriority,
  action('cancel', 'Cancel a task (stops its running process tree)'),
  action('pause', 'Pause a task (at the next step boundary if it is running)'),
  action('resume', 'Resume a paused task'),
  action('skip', 'Skip the step a task is blocked or gated at'),
  action('approve', 'Approve the gate a task waits at'),
  action('reject', 'Reject the gate a task waits at'),
  action(
    'merge-finished',
    'At a fan-out join: cancel lanes still working, merge every finished lane, record the rest as left out',
    'merge_finished',
  ),
  action(
    'retry',
    'Retry a blocked task (optionally overriding the step’s prompt or command, or renaming its branch)',
    'retry',
    {
      prompt: { type: 'string', description: 'prompt override for an agent step' },
      run: { type: 'string', description: 'command override for a command step' },
      branch: { type: 'string', description: 'rename the task’s branch (recovers branch_exists)' },
    },
    (ctx) => ({
      ...(typeof ctx.options.prompt === 'string' ? { prompt_override: ctx.options.prompt } : {}),
      ...(typeof ctx.options.run === 'string' ? { run_override: ctx.options.run } : {}),
      ...(typeof ctx.options.branch === 'string' ? { branch_override: ctx.options.branch } : {}),
    }),
    {
      prompt_override: '--prompt <text>',
      run_override: '--run <command>',
      branch_override: '--branch <name>',
    },
  ),
  action(
    'archive',
    'Archive a done or aborted task: remove its worktree, delete its branch if empty',
    'archive',
    { force: { type: 'boolean', description: 'even with uncommitted changes' } },
    (ctx) => (ctx.options.force ? { force: true } : {}),
  ),
  // `task follow-up` lives with the review commands (task-review.ts): it also sends a review.
];
