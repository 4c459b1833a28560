/**
 * `svc workflow list|show|validate|new|edit` (SPEC §4.3). Every command but `validate` speaks to
 * the daemon; `validate` works offline on files, with the built-in step types (and agent
 * adapters) loaded directly, so CI can check workflow files without a daemon.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { defaultConfig, readConfigFile } from '../../kernel/config/index.js';
import type { Finding } from '../../kernel/input/index.js';
import { loadPlugins, Registry } from '../../kernel/plugin/index.js';
import {
  agentValuesFrom,
  type ValidateOptions,
  validateWorkflowText,
  type WorkflowDefinitionView,
  type WorkflowListRow,
  type WorkflowWriteResult,
} from '../../kernel/workflows/index.js';
import { type Command, type CommandContext, JSON_OPTION, type OptionSpec } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { table } from '../format.js';
import { resolveProject } from '../project-ref.js';
import { setValue } from '../set-value.js';

const PROJECT_OPTION: Record<string, OptionSpec> = {
  project: {
    type: 'string',
    description: 'a project id or name: its view (project files shadow global ones)',
  },
};

/** `--project` by id or name (issue 19 point 5); absent means no project (global, or any task). */
function projectId(ctx: CommandContext, raw: unknown = ctx.options.project, option = '--project') {
  return resolveProject(ctx, { option, raw, required: false, useCwd: false });
}

function findingLine(f: Finding, file?: string): string {
  const where = [file, f.line].filter((x) => x !== undefined).join(':');
  const code = f.code ? ` [${f.code}]` : '';
  return `${where ? `${where}: ` : ''}${f.message}${code}`;
}

export const workflowList: Command = {
  name: 'workflow list',
  summary: 'List the workflows a project (or, without --project, any task) can use',
  usage: 'svc workflow list [--project <id|name>] [--all] [--json]',
  options: {
    ...PROJECT_OPTION,
    all: { type: 'boolean', description: 'also list shadowed and duplicate entries' },
    ...JSON_OPTION,
  },
  async run(ctx) {
    const { workflows } = await ctx
      .client()
      .get<{ workflows: WorkflowListRow[] }>('/v1/workflows', {
        project_id: await projectId(ctx),
      });
    if (ctx.options.json) {
      ctx.out(JSON.stringify(workflows, null, 2));
      return EXIT.ok;
    }
    const shown = ctx.options.all
      ? workflows
      : workflows.filter((w) => w.status !== 'shadowed' && w.status !== 'duplicate');
    ctx.out(
      table([
        ['NAME', 'SCOPE', 'STATUS', 'STEPS', 'DESCRIPTION'],
        ...shown.map((w) => [
          w.name,
          w.scope,
          w.status,
          String(w.steps.length),
          w.errors[0] ? findingLine(w.errors[0]) : w.description,
        ]),
      ]),
    );
    return EXIT.ok;
  },
};

export const workflowShow: Command = {
  name: 'workflow show',
  summary:
    'Show one workflow as its view resolves it: where it comes from, its findings and its steps',
  usage: 'svc workflow show <name> [--project <id|name>] [--json]',
  options: { ...PROJECT_OPTION, ...JSON_OPTION },
  async run(ctx) {
    const name = ctx.args[0];
    if (!name) {
      ctx.err('usage: svc workflow show <name> [--project <id|name>]');
      return EXIT.usage;
    }
    const def = await ctx.client().get<WorkflowDefinitionView>('/v1/workflows/definition', {
      name,
      project_id: await projectId(ctx),
    });
    if (ctx.options.json) {
      ctx.out(JSON.stringify(def, null, 2));
      return EXIT.ok;
    }
    ctx.out(
      `# ${def.name} (${def.scope}${def.file ? ` ${def.file}` : ''}) ${def.status} version ${def.version}`,
    );
    for (const f of def.errors) ctx.out(`# error: ${findingLine(f)}`);
    for (const f of def.warnings) ctx.out(`# warning: ${findingLine(f)}`);
    if (def.definition) ctx.out(stringify(def.definition).trimEnd());
    return def.errors.length > 0 ? EXIT.invalid : EXIT.ok;
  },
};

/** The files a validate argument names: a file, or every workflow file of a directory. */
function filesOf(arg: string): string[] {
  if (existsSync(arg) && statSync(arg).isDirectory()) {
    return readdirSync(arg)
      .filter((f) => /\.ya?ml$/.test(f))
      .sort()
      .map((f) => join(arg, f));
  }
  return [arg];
}

/** Validation options without a daemon: built-in plugins, and the config file's ceilings if any. */
async function offlineOptions(ctx: CommandContext): Promise<ValidateOptions> {
  const registry = new Registry();
  await loadPlugins({ registry, extra: [], configDir: ctx.paths.configDir });
  // The config file's ceilings when it loads; the defaults otherwise (a CI machine has none).
  let c = defaultConfig();
  try {
    const load = readConfigFile(ctx.paths.configFile);
    if (load.ok) c = load.config;
  } catch {}
  return {
    types: registry,
    limits: {
      loop_max_iterations: c.loop.max_iterations,
      parallel_max_parallel: c.parallel.max_parallel,
      fan_out_max_tasks: c.fan_out.max_tasks,
      fan_out_max_depth: c.fan_out.max_depth,
      include_max_depth: c.include.max_depth,
    },
    containerImage: c.container.image,
    agents: agentValuesFrom(registry)(),
  };
}

export const workflowValidate: Command = {
  name: 'workflow validate',
  summary:
    'Validate workflow files offline (no daemon needed): each finding with file, line, path and code',
  usage: 'svc workflow validate <file|dir>... [--json]',
  options: JSON_OPTION,
  async run(ctx) {
    if (ctx.args.length === 0) {
      ctx.err('usage: svc workflow validate <file|dir>...');
      return EXIT.usage;
    }
    const opts = await offlineOptions(ctx);
    const results: Array<{
      file: string;
      valid: boolean;
      name: string | null;
      errors: Finding[];
      warnings: Finding[];
    }> = [];
    for (const file of ctx.args.flatMap(filesOf)) {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (err) {
        results.push({
          file,
          valid: false,
          name: null,
          errors: [{ path: '', code: 'unreadable', message: (err as Error).message }],
          warnings: [],
        });
        continue;
      }
      const r = validateWorkflowText(text, opts);
      results.push({
        file,
        valid: r.errors.length === 0,
        name: r.declaredName,
        errors: r.errors,
        warnings: r.warnings,
      });
    }
    const valid = results.every((r) => r.valid);
    if (ctx.options.json) ctx.out(JSON.stringify({ valid, files: results }, null, 2));
    else {
      for (const r of results) {
        if (r.valid) ctx.out(`${r.file}: ok (${r.name})`);
        for (const f of r.errors) ctx.out(`${findingLine(f, r.file)}`);
        for (const f of r.warnings) ctx.out(`${findingLine(f, r.file)} (warning)`);
      }
    }
    return valid ? EXIT.ok : EXIT.invalid;
  },
};

export const workflowNew: Command = {
  name: 'workflow new',
  summary:
    'Create a workflow file (a starter, or a copy of an entry with --from) in the global or a project scope',
  usage:
    'svc workflow new <name> [--project <id|name>] [--from <name> [--from-project <id|name>]] [--json]',
  options: {
    project: {
      type: 'string',
      description: 'create in this project’s .svc/workflows (else global)',
    },
    from: {
      type: 'string',
      description: 'copy this entry’s bytes (its name: is kept, so it shadows the original)',
    },
    'from-project': { type: 'string', description: 'the project view --from is looked up in' },
    ...JSON_OPTION,
  },
  async run(ctx) {
    const name = ctx.args[0];
    const from = typeof ctx.options.from === 'string' ? ctx.options.from : undefined;
    if (!name && !from) {
      ctx.err('usage: svc workflow new <name> [--project <id|name>] [--from <name>]');
      return EXIT.usage;
    }
    const project = await projectId(ctx);
    const fromProject = ctx.options['from-project'];
    const body: Record<string, unknown> = { scope: project === undefined ? 'global' : 'project' };
    if (name) body.name = name;
    if (project !== undefined) body.project_id = project;
    if (from) body.from = from;
    if (typeof fromProject === 'string')
      body.from_project_id = await projectId(ctx, fromProject, '--from-project');
    const res = await ctx.client().post<WorkflowWriteResult>('/v1/workflows', body);
    if (ctx.options.json) ctx.out(JSON.stringify(res, null, 2));
    else {
      ctx.out(res.file);
      for (const f of res.errors) ctx.err(`error: ${findingLine(f)}`);
    }
    return EXIT.ok;
  },
};

/** Reads `--ops` (a JSON array, a file holding one, or `-` for stdin). */
function readOps(raw: string): unknown[] {
  const text =
    raw === '-' ? readFileSync(0, 'utf8') : existsSync(raw) ? readFileSync(raw, 'utf8') : raw;
  const ops = JSON.parse(text) as unknown;
  if (!Array.isArray(ops)) throw new Error('--ops must be a JSON array of edit operations');
  return ops;
}

export const workflowEdit: Command = {
  name: 'workflow edit',
  summary:
    'Edit a workflow file in place through PATCH /v1/workflows, keeping every untouched byte',
  usage:
    "svc workflow edit <name> [--project <id|name>] [--scope global|project] [--file <path>] [--set 'path=value']... [--remove path]... [--ops <json|file|->] [--version <v>] [--json]",
  options: {
    ...PROJECT_OPTION,
    scope: {
      type: 'string',
      description: 'pick the entry of this scope when the name has several',
    },
    file: { type: 'string', description: 'pick the entry of this file when the name has several' },
    set: {
      type: 'string',
      multiple: true,
      description:
        'set a value: path=value, read as YAML (steps[0].timeout=30m); a {{template}} or a value that is not YAML is text',
    },
    remove: { type: 'string', multiple: true, description: 'remove a key or list item (steps[2])' },
    ops: {
      type: 'string',
      description: 'edit ops as a JSON array, a file holding one, or - for stdin',
    },
    version: {
      type: 'string',
      description: 'the version the edit is based on (default: the current one)',
    },
    ...JSON_OPTION,
  },
  async run(ctx) {
    const name = ctx.args[0];
    if (!name) {
      ctx.err('usage: svc workflow edit <name> --set path=value | --remove path | --ops <json>');
      return EXIT.usage;
    }
    const ops: unknown[] = [];
    for (const s of (ctx.options.set as string[] | undefined) ?? []) {
      const at = s.indexOf('=');
      if (at <= 0) throw new Error(`--set takes path=value, not ${s}`);
      const value = setValue(s.slice(at + 1));
      ops.push({ op: 'set', path: s.slice(0, at), value: value ?? '' });
    }
    for (const path of (ctx.options.remove as string[] | undefined) ?? [])
      ops.push({ op: 'remove', path });
    if (typeof ctx.options.ops === 'string') ops.push(...readOps(ctx.options.ops));
    if (ops.length === 0) {
      ctx.err('svc workflow edit: nothing to do (give --set, --remove or --ops)');
      return EXIT.usage;
    }
    const project = await projectId(ctx);
    const target: Record<string, unknown> = { name };
    if (project !== undefined) target.project_id = project;
    if (typeof ctx.options.scope === 'string') target.scope = ctx.options.scope;
    if (typeof ctx.options.file === 'string') target.file = ctx.options.file;
    let version = typeof ctx.options.version === 'string' ? ctx.options.version : undefined;
    if (version === undefined) {
      const rows = await ctx
        .client()
        .get<{ workflows: WorkflowListRow[] }>('/v1/workflows', { project_id: project });
      const entry = rows.workflows.find(
        (w) =>
          w.name === name &&
          (target.scope === undefined || w.scope === target.scope) &&
          (target.file === undefined || w.file === target.file),
      );
      version = entry?.version ?? '';
    }
    const res = await ctx
      .client()
      .patch<WorkflowWriteResult>('/v1/workflows', { ...target, version, ops });
    if (ctx.options.json) ctx.out(JSON.stringify(res, null, 2));
    else {
      ctx.out(`${res.file} version ${res.version}`);
      for (const f of res.errors) ctx.err(`error: ${findingLine(f)}`);
    }
    return EXIT.ok;
  },
};

export const workflowCommands = [
  workflowList,
  workflowShow,
  workflowValidate,
  workflowNew,
  workflowEdit,
];
