/** `svc project add|list|show|edit|rm` (SPEC §4.2). */
import { resolve } from 'node:path';
import { type Command, type CommandContext, JSON_OPTION } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { table, UsageError } from '../format.js';
import { resolveProject } from '../project-ref.js';

interface Project {
  id: number;
  name: string;
  path: string;
  default_branch: string;
  default_workflow: string | null;
  max_parallel_tasks: number | null;
  branch_template: string | null;
}

function show(ctx: CommandContext, p: Project): void {
  if (ctx.options.json) {
    ctx.out(JSON.stringify(p, null, 2));
    return;
  }
  ctx.out(
    [
      `project ${p.id}: ${p.name}`,
      `  path              ${p.path}`,
      `  default branch    ${p.default_branch}`,
      `  default workflow  ${p.default_workflow ?? '(adhoc)'}`,
      `  max parallel      ${p.max_parallel_tasks ?? '(global cap)'}`,
      `  branch template   ${p.branch_template ?? '(config or svc/{id}-{slug})'}`,
    ].join('\n'),
  );
}

const FIELD_OPTIONS = {
  name: { type: 'string' as const, description: 'project name (default: the folder name)' },
  'default-branch': {
    type: 'string' as const,
    description: 'base branch for new tasks (default: detected)',
  },
  'default-workflow': { type: 'string' as const, description: 'workflow for tasks that name none' },
  'max-parallel': {
    type: 'string' as const,
    description: 'the project’s own cap on running tasks',
  },
  'branch-template': {
    type: 'string' as const,
    description: 'branch name template for this project',
  },
};

function fieldsFrom(ctx: CommandContext): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const o = ctx.options;
  if (typeof o.name === 'string') body.name = o.name;
  if (typeof o['default-branch'] === 'string') body.default_branch = o['default-branch'];
  if (typeof o['default-workflow'] === 'string')
    body.default_workflow = o['default-workflow'] === '' ? null : o['default-workflow'];
  if (typeof o['max-parallel'] === 'string') {
    if (o['max-parallel'] === '' || o['max-parallel'] === 'none') body.max_parallel_tasks = null;
    else if (/^[1-9]\d*$/.test(o['max-parallel']))
      body.max_parallel_tasks = Number(o['max-parallel']);
    else throw new UsageError('--max-parallel takes a positive number, or "none"');
  }
  if (typeof o['branch-template'] === 'string')
    body.branch_template = o['branch-template'] === '' ? null : o['branch-template'];
  return body;
}

export const projectAdd: Command = {
  name: 'project add',
  summary: 'Register a git repository (default: the current directory)',
  usage:
    'svc project add [path] [--name n] [--default-branch b] [--default-workflow w] [--max-parallel n] [--branch-template t]',
  options: { ...FIELD_OPTIONS, ...JSON_OPTION },
  async run(ctx) {
    const path = resolve(ctx.args[0] ?? process.cwd());
    const p = await ctx.client().post<Project>('/v1/projects', { path, ...fieldsFrom(ctx) });
    show(ctx, p);
    return EXIT.ok;
  },
};

export const projectList: Command = {
  name: 'project list',
  summary: 'List registered projects',
  options: JSON_OPTION,
  async run(ctx) {
    const list = await ctx.client().get<Project[]>('/v1/projects');
    if (ctx.options.json) ctx.out(JSON.stringify(list, null, 2));
    else if (list.length === 0) ctx.out('no projects; add one with `svc project add <path>`');
    else
      ctx.out(
        table([
          ['ID', 'NAME', 'BRANCH', 'PATH'],
          ...list.map((p) => [String(p.id), p.name, p.default_branch, p.path]),
        ]),
      );
    return EXIT.ok;
  },
};

/** The positional project: an id or a name; absent, the one holding the current directory. */
function projectArg(ctx: CommandContext, required: boolean): Promise<number | undefined> {
  return resolveProject(ctx, { option: 'project', raw: ctx.args[0] ?? undefined, required });
}

export const projectShow: Command = {
  name: 'project show',
  summary: 'Show one project (default: the one holding the current directory)',
  usage: 'svc project show [<id|name>]',
  options: JSON_OPTION,
  async run(ctx) {
    const id = await projectArg(ctx, true);
    show(ctx, await ctx.client().get<Project>(`/v1/projects/${id}`));
    return EXIT.ok;
  },
};

export const projectEdit: Command = {
  name: 'project edit',
  summary:
    'Change a project: re-point its path, name, defaults, cap or branch template ("" clears)',
  usage:
    'svc project edit [<id|name>] [--path p] [--name n] [--default-branch b] [--default-workflow w] [--max-parallel n|none] [--branch-template t]',
  options: {
    path: { type: 'string', description: 'new repository path' },
    ...FIELD_OPTIONS,
    ...JSON_OPTION,
  },
  async run(ctx) {
    const body = fieldsFrom(ctx);
    if (typeof ctx.options.path === 'string') body.path = resolve(ctx.options.path);
    if (Object.keys(body).length === 0) throw new UsageError('nothing to change; see --help');
    const id = await projectArg(ctx, true);
    show(ctx, await ctx.client().patch<Project>(`/v1/projects/${id}`, body));
    return EXIT.ok;
  },
};

export const projectRm: Command = {
  name: 'project rm',
  summary: 'Delete a project (only without unarchived tasks, unless --force archives them first)',
  usage: 'svc project rm <id|name> [--force]',
  options: {
    force: { type: 'boolean', description: 'archive its tasks first (refused while one runs)' },
  },
  async run(ctx) {
    // Never the current directory's project by default: deleting is said out loud.
    if (!ctx.args[0]) throw new UsageError('name the project to delete: svc project rm <id|name>');
    const id = await projectArg(ctx, true);
    await ctx
      .client()
      .delete(`/v1/projects/${id}`, ctx.options.force ? { force: true } : undefined);
    ctx.out(`project ${id} deleted`);
    return EXIT.ok;
  },
};

export const projectCommands = [projectAdd, projectList, projectShow, projectEdit, projectRm];
