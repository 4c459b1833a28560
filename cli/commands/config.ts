/** `svc config get [key]` and `svc config set <key> <value>`, through GET/PATCH /v1/config. */
import { parse as parseYaml, stringify } from 'yaml';
import { type Command, type CommandContext, JSON_OPTION } from '../command.js';
import { EXIT } from '../exit-codes.js';

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

export const configSet: Command = {
  name: 'config set',
  summary: 'Set one key (value read as YAML: 5, true, [a, b], 45m) through PATCH /v1/config',
  usage: 'svc config set <key> <value>',
  options: JSON_OPTION,
  async run(ctx) {
    const [key, raw] = ctx.args;
    if (!key || raw === undefined) {
      ctx.err('usage: svc config set <key> <value>');
      return EXIT.usage;
    }
    const value: unknown = raw === 'null' ? null : parseYaml(raw);
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
    return EXIT.ok;
  },
};

export const configCommands = [configGet, configSet];
