/**
 * `svc trigger list|show|new|edit|rm|test|poll|deliveries|enable|disable` (SPEC §4.6), all
 * through the daemon's trigger routes. Edits go through PATCH with edit ops, so a file's comments
 * and layout survive `enable`, `disable` and `edit`; without `--version` a write is based on the
 * version the command just read (a concurrent edit in between is still refused as stale).
 */
import { existsSync, readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type {
  DeliveryView,
  DryPoll,
  PublicJudgement,
  TriggerFinding,
  TriggerRow,
  TriggerWriteResult,
} from '../../kernel/triggers/index.js';
import { type Command, type CommandContext, JSON_OPTION } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { table } from '../format.js';

function findingLine(f: TriggerFinding): string {
  return `${f.line !== undefined ? `line ${f.line}: ` : ''}${f.message}`;
}

function need(ctx: CommandContext, usage: string): string | null {
  const id = ctx.args[0];
  if (!id) ctx.err(`usage: ${usage}`);
  return id ?? null;
}

const path = (id: string) => `/v1/triggers/${encodeURIComponent(id)}`;

/** A JSON argument given inline, as a file name, or `-` for stdin. */
function readJson(raw: string): unknown {
  const text =
    raw === '-' ? readFileSync(0, 'utf8') : existsSync(raw) ? readFileSync(raw, 'utf8') : raw;
  return JSON.parse(text) as unknown;
}

function printWrite(ctx: CommandContext, res: TriggerWriteResult): number {
  if (ctx.options.json) ctx.out(JSON.stringify(res, null, 2));
  else {
    ctx.out(`${res.file} version ${res.version}`);
    for (const f of res.errors) ctx.err(`error: ${findingLine(f)}`);
  }
  return EXIT.ok;
}

async function patch(ctx: CommandContext, id: string, ops: unknown[]): Promise<number> {
  let version = typeof ctx.options.version === 'string' ? ctx.options.version : undefined;
  version ??= (await ctx.client().get<TriggerRow>(path(id))).version;
  return printWrite(ctx, await ctx.client().patch<TriggerWriteResult>(path(id), { version, ops }));
}

const VERSION_OPTION = {
  version: {
    type: 'string' as const,
    description: 'the version the change is based on (default: the current one)',
  },
};

export const triggerList: Command = {
  name: 'trigger list',
  summary: 'List trigger files: armed or why not, source and action, poll health',
  usage: 'svc trigger list [--json]',
  options: JSON_OPTION,
  async run(ctx) {
    const res = await ctx
      .client()
      .get<{ enabled: boolean; dir: string; triggers: TriggerRow[] }>('/v1/triggers');
    if (ctx.options.json) {
      ctx.out(JSON.stringify(res, null, 2));
      return EXIT.ok;
    }
    ctx.out(`# ${res.dir} (triggers.enabled: ${res.enabled ? 'on' : 'off'})`);
    ctx.out(
      table([
        ['ID', 'ARMED', 'SOURCE', 'ACTION', 'PROJECT', 'ON_FIRE', 'LAST POLL', 'NOTE'],
        ...res.triggers.map((t) => [
          t.id,
          t.armed ? 'yes' : 'no',
          t.source_type ?? '-',
          t.action_type ?? '-',
          t.project_id !== undefined ? String(t.project_id) : '-',
          t.on_fire ?? '-',
          t.poll.last_poll_at ?? '-',
          t.disarmed_reason ?? (t.poll.ok === false ? `poll failed: ${t.poll.error}` : ''),
        ]),
      ]),
    );
    return EXIT.ok;
  },
};

export const triggerShow: Command = {
  name: 'trigger show',
  summary: 'Show one trigger: its row, its findings and its file',
  usage: 'svc trigger show <id> [--json]',
  options: JSON_OPTION,
  async run(ctx) {
    const id = need(ctx, 'svc trigger show <id>');
    if (!id) return EXIT.usage;
    const res = await ctx.client().get<TriggerRow & { source: string }>(path(id));
    if (ctx.options.json) {
      ctx.out(JSON.stringify(res, null, 2));
      return EXIT.ok;
    }
    const state = res.armed ? 'armed' : `not armed (${res.disarmed_reason})`;
    ctx.out(`# ${res.id}: ${state}, version ${res.version}, ${res.file}`);
    ctx.out(
      `# poll: seeded ${res.poll.seeded}, last ${res.poll.last_poll_at ?? 'never'}${res.poll.ok === false ? `, failed: ${res.poll.error}` : ''}, last fired ${res.poll.last_fire_at ?? 'never'}`,
    );
    const held = res.poll.held_back ?? 0;
    if (held > 0) {
      const truncated = res.poll.truncated ?? 0;
      ctx.out(
        `# held back at the last poll: ${held} event${held === 1 ? '' : 's'} past the 20-event cap (${truncated} recorded truncated, ${held - truncated} come again at the next poll)`,
      );
    }
    for (const f of res.errors) ctx.out(`# error: ${findingLine(f)}`);
    ctx.out(res.source.trimEnd());
    return res.valid ? EXIT.ok : EXIT.invalid;
  },
};

export const triggerNew: Command = {
  name: 'trigger new',
  summary: 'Write a disabled starter trigger: a command source and a create_task action',
  usage:
    'svc trigger new <id> --project <id> [--command <arg>]... [--poll-interval 5m] [--workflow <name>] [--title <template>] [--json]',
  options: {
    project: { type: 'string', description: 'the project the trigger acts on (required)' },
    command: {
      type: 'string',
      multiple: true,
      description: 'one argv item of the command to poll (repeat for each item; no shell)',
    },
    'poll-interval': { type: 'string', description: 'how often the command runs (default 5m)' },
    workflow: { type: 'string', description: 'the workflow of the tasks it creates' },
    title: { type: 'string', description: 'the title template of the tasks it creates' },
    ...JSON_OPTION,
  },
  async run(ctx) {
    const id = need(ctx, 'svc trigger new <id> --project <id>');
    if (!id) return EXIT.usage;
    const project = ctx.options.project;
    if (typeof project !== 'string' || !/^[1-9]\d*$/.test(project)) {
      ctx.err('svc trigger new: --project <id> is required');
      return EXIT.usage;
    }
    const body: Record<string, unknown> = { id, project_id: Number(project) };
    if (Array.isArray(ctx.options.command)) body.command = ctx.options.command;
    if (typeof ctx.options['poll-interval'] === 'string')
      body.poll_interval = ctx.options['poll-interval'];
    if (typeof ctx.options.workflow === 'string') body.workflow = ctx.options.workflow;
    if (typeof ctx.options.title === 'string') body.title = ctx.options.title;
    return printWrite(ctx, await ctx.client().post<TriggerWriteResult>('/v1/triggers', body));
  },
};

export const triggerEdit: Command = {
  name: 'trigger edit',
  summary: 'Edit a trigger file in place through PATCH, keeping every untouched byte',
  usage:
    "svc trigger edit <id> [--set 'path=value']... [--remove path]... [--ops <json|file|->] [--version <v>] [--json]",
  options: {
    set: {
      type: 'string',
      multiple: true,
      description: 'set a value: path=value, value read as YAML (source.poll_interval=10m)',
    },
    remove: { type: 'string', multiple: true, description: 'remove a key or list item' },
    ops: { type: 'string', description: 'edit ops as a JSON array, a file holding one, or -' },
    ...VERSION_OPTION,
    ...JSON_OPTION,
  },
  async run(ctx) {
    const id = need(ctx, 'svc trigger edit <id> --set path=value | --remove path | --ops <json>');
    if (!id) return EXIT.usage;
    const ops: unknown[] = [];
    for (const s of (ctx.options.set as string[] | undefined) ?? []) {
      const at = s.indexOf('=');
      if (at <= 0) throw new Error(`--set takes path=value, not ${s}`);
      ops.push({ op: 'set', path: s.slice(0, at), value: parseYaml(s.slice(at + 1)) ?? '' });
    }
    for (const p of (ctx.options.remove as string[] | undefined) ?? [])
      ops.push({ op: 'remove', path: p });
    if (typeof ctx.options.ops === 'string') {
      const more = readJson(ctx.options.ops);
      if (!Array.isArray(more)) throw new Error('--ops must be a JSON array of edit operations');
      ops.push(...more);
    }
    if (ops.length === 0) {
      ctx.err('svc trigger edit: nothing to do (give --set, --remove or --ops)');
      return EXIT.usage;
    }
    return patch(ctx, id, ops);
  },
};

function toggle(name: 'enable' | 'disable'): Command {
  return {
    name: `trigger ${name}`,
    summary:
      name === 'enable'
        ? 'Set enabled: true (armed once triggers.enabled is on); the file keeps its layout'
        : 'Set enabled: false; the next arming seeds again',
    usage: `svc trigger ${name} <id> [--version <v>] [--json]`,
    options: { ...VERSION_OPTION, ...JSON_OPTION },
    async run(ctx) {
      const id = need(ctx, `svc trigger ${name} <id>`);
      if (!id) return EXIT.usage;
      return patch(ctx, id, [{ op: 'set', path: 'enabled', value: name === 'enable' }]);
    },
  };
}

export const triggerRm: Command = {
  name: 'trigger rm',
  summary: 'Delete a trigger file and its cursor; its delivery ledger is kept',
  usage: 'svc trigger rm <id> [--version <v>]',
  options: VERSION_OPTION,
  async run(ctx) {
    const id = need(ctx, 'svc trigger rm <id>');
    if (!id) return EXIT.usage;
    let version = typeof ctx.options.version === 'string' ? ctx.options.version : undefined;
    version ??= (await ctx.client().get<TriggerRow>(path(id))).version;
    await ctx.client().delete(path(id), { version });
    ctx.out(`deleted trigger ${id}`);
    return EXIT.ok;
  },
};

function judgementLine(j: PublicJudgement): string {
  const why =
    j.match_miss !== undefined
      ? ` (${j.match_miss})`
      : j.error
        ? ` (${j.error})`
        : j.action
          ? ` → ${j.action.method} ${j.action.path}`
          : '';
  return `${j.event_id}: ${j.outcome}${why}`;
}

export const triggerTest: Command = {
  name: 'trigger test',
  summary: 'Judge one event through the real pipeline without acting or recording anything',
  usage: 'svc trigger test <id> <event-json|file|-> [--json]',
  options: JSON_OPTION,
  async run(ctx) {
    const [id, raw] = ctx.args;
    if (!id || raw === undefined) {
      ctx.err('usage: svc trigger test <id> <event-json|file|->');
      return EXIT.usage;
    }
    const j = await ctx
      .client()
      .post<PublicJudgement>(`${path(id)}/test`, { event: readJson(raw) });
    ctx.out(ctx.options.json ? JSON.stringify(j, null, 2) : judgementLine(j));
    if (!ctx.options.json && j.action) ctx.out(JSON.stringify(j.action.body, null, 2));
    return EXIT.ok;
  },
};

export const triggerPoll: Command = {
  name: 'trigger poll',
  summary: 'Run the source once and judge what it returns, recording nothing',
  usage: 'svc trigger poll <id> [--json]',
  options: JSON_OPTION,
  async run(ctx) {
    const id = need(ctx, 'svc trigger poll <id>');
    if (!id) return EXIT.usage;
    const r = await ctx.client().post<DryPoll>(`${path(id)}/poll`);
    if (ctx.options.json) {
      ctx.out(JSON.stringify(r, null, 2));
      return r.error ? EXIT.failure : EXIT.ok;
    }
    if (r.error) {
      ctx.err(`poll failed: ${r.error}`);
      return EXIT.failure;
    }
    ctx.out(
      `# ${r.events.length} events${r.seed ? ' (a real poll now would seed: nothing would fire)' : ''}, ${r.truncated} truncated, ${r.refused} refused${r.cursor !== undefined ? `, cursor ${r.cursor}` : ''}`,
    );
    for (const j of r.events) ctx.out(judgementLine(j));
    return EXIT.ok;
  },
};

export const triggerDeliveries: Command = {
  name: 'trigger deliveries',
  summary: 'Show the delivery ledger, newest first',
  usage: 'svc trigger deliveries <id> [--limit <1-1000>] [--json]',
  options: {
    limit: { type: 'string', description: 'how many rows (1 to 1000, default 100)' },
    ...JSON_OPTION,
  },
  async run(ctx) {
    const id = need(ctx, 'svc trigger deliveries <id>');
    if (!id) return EXIT.usage;
    const limit = typeof ctx.options.limit === 'string' ? ctx.options.limit : undefined;
    const { deliveries } = await ctx
      .client()
      .get<{ deliveries: DeliveryView[] }>(`${path(id)}/deliveries`, { limit });
    if (ctx.options.json) {
      ctx.out(JSON.stringify(deliveries, null, 2));
      return EXIT.ok;
    }
    ctx.out(
      table([
        ['AT', 'EVENT', 'OUTCOME', 'TASK', 'DETAIL'],
        ...deliveries.map((d) => [
          d.created_at,
          d.event_id,
          d.outcome,
          d.task_id !== null ? String(d.task_id) : '-',
          d.detail ? JSON.stringify(d.detail).slice(0, 120) : '',
        ]),
      ]),
    );
    return EXIT.ok;
  },
};

export const triggerCommands = [
  triggerList,
  triggerShow,
  triggerNew,
  triggerEdit,
  triggerRm,
  triggerTest,
  triggerPoll,
  triggerDeliveries,
  toggle('enable'),
  toggle('disable'),
];
