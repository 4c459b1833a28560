/** `svc config get [key]` and `svc config set <key> <value>`, through GET/PATCH /v1/config. */
import { stringify } from 'yaml';
import { type Command, type CommandContext, JSON_OPTION } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { setValue } from '../set-value.js';
import type { AgentRecord } from './agents.js';

function lookup(obj: unknown, key: string): { found: boolean; value: unknown } {
  let cur: unknown = obj;
  for (const part of key.split('.')) {
    if (cur === null || typeof cur !== 'object' || !(part in (cur as object)))
      return { found: false, value: undefined };
    cur = (cur as Record<string, unknown>)[part];
  }
  return { found: true, value: cur };
}

function show(value: unknown, json: boolean): string {
  if (json) return JSON.stringify(value, null, 2);
  if (value !== null && typeof value === 'object') return stringify(value).trimEnd();
  return String(value);
}

interface FileState {
  file: string;
  rejected: { at: string; message: string } | null;
}

/**
 * The values printed are the ones in force, which are not the file's when the daemon refused its
 * last edit (issue 19 point 14): say so, with why, where the person reads it. A daemon too old for
 * the route says nothing.
 */
async function warnRejectedFile(ctx: CommandContext): Promise<void> {
  let state: FileState;
  try {
    state = await ctx.client().get<FileState>('/v1/config/file');
  } catch {
    return;
  }
  const r = state.rejected;
  if (!r) return;
  ctx.err(
    `warning: ${state.file} was edited, and the daemon rejected the edit (${r.at}): ${r.message}\n` +
      'warning: the values shown are the last good configuration, still in force; fix the file ' +
      'and it applies as soon as it is saved',
  );
}

/**
 * A key that applies at the next daemon start (`listen`) is written but not in force: the answer
 * shows the value in force, so say on stderr what was written and when it takes effect.
 */
function noteRestart(ctx: CommandContext, headers: Headers, key: string, value?: unknown): void {
  const pending = (headers.get('x-svc-pending-restart') ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k !== '' && (k === key || k.startsWith(`${key}.`) || key === ''));
  for (const k of pending)
    ctx.err(
      `note: ${k}${value !== undefined && k === key ? ` ${JSON.stringify(value)}` : ''} is written to config.yaml and takes effect at the next daemon start (svc daemon stop, then svc daemon start); the value above is the one in force`,
    );
}

export const configGet: Command = {
  name: 'config get',
  summary: 'Print the configuration in force, or one key (dotted, e.g. defaults.agent_timeout)',
  usage: 'svc config get [key]',
  options: JSON_OPTION,
  async run(ctx) {
    const { data: config, headers } = await ctx.client().exchange('GET', '/v1/config');
    await warnRejectedFile(ctx);
    const key = ctx.args[0];
    if (!key) {
      ctx.out(show(config, Boolean(ctx.options.json)));
      noteRestart(ctx, headers, '');
      return EXIT.ok;
    }
    const { found, value } = lookup(config, key);
    if (!found) {
      ctx.err(`svc: no config key ${key}`);
      return EXIT.not_found;
    }
    ctx.out(show(value, Boolean(ctx.options.json)));
    noteRestart(ctx, headers, key);
    return EXIT.ok;
  },
};

/**
 * A path set for an agent CLI that the daemon cannot run is accepted (it may be installed later)
 * but said out loud: the daemon's own record of the agent tells (issue 19 point 2).
 */
async function warnAgentPath(ctx: CommandContext, key: string, value: unknown): Promise<void> {
  const name = /^agents\.([^.]+)\.path$/.exec(key)?.[1];
  if (!name || typeof value !== 'string' || value === '') return;
  const { agents } = await ctx.client().get<{ agents: AgentRecord[] }>('/v1/agents');
  const a = agents.find((x) => x.name === name);
  if (!a || a.available) return;
  const why =
    a.path_problem === 'not_executable'
      ? 'is not an executable file'
      : a.path_problem === 'missing'
        ? 'does not exist'
        : 'cannot be run';
  ctx.err(`warning: ${key} is ${value}, which ${why}; ${name} steps will fail agent_unavailable`);
}

export const configSet: Command = {
  name: 'config set',
  summary:
    'Set one key (value read as YAML: 5, true, [a, b], 45m; a {{template}} or non-YAML as text) through PATCH /v1/config',
  usage: 'svc config set <key> <value>',
  options: JSON_OPTION,
  async run(ctx) {
    const [key, raw] = ctx.args;
    if (!key || raw === undefined) {
      ctx.err('usage: svc config set <key> <value>');
      return EXIT.usage;
    }
    const value = setValue(raw);
    const body: Record<string, unknown> = {};
    const parts = key.split('.');
    let cur = body;
    for (const p of parts.slice(0, -1)) {
      const next: Record<string, unknown> = {};
      cur[p] = next;
      cur = next;
    }
    cur[parts[parts.length - 1] as string] = value;
    const { data: config, headers } = await ctx.client().exchange('PATCH', '/v1/config', { body });
    ctx.out(show(lookup(config, key).value, Boolean(ctx.options.json)));
    noteRestart(ctx, headers, key, value);
    await warnAgentPath(ctx, key, value);
    return EXIT.ok;
  },
};

export const configCommands = [configGet, configSet];
