// A command given more arguments than its usage line names refuses them (exit 2, naming them and
// the usage) before it reaches the daemon: `svc task approve 1 2` approved task 1 and said nothing
// of task 2. The count comes from the usage line `--help` prints, so the two cannot disagree.
import { describe, expect, it } from 'vitest';
import { commands } from '../../../cli/index.js';
import { maxPositionals } from '../../../cli/usage-args.js';
import { cli } from '../../support/cli.js';
import { daemonEnv } from '../../support/daemon.js';

const usageOf = (name: string) => {
  const c = commands.find((x) => x.name === name);
  if (!c) throw new Error(`no command ${name}`);
  return c.usage ?? `svc ${c.name}`;
};

describe('the positionals a usage line allows', () => {
  it.each([
    ['task approve', 1],
    ['task priority', 2],
    ['task logs', 1], // `--run <run id>` is an option's value, not an argument
    ['task diff', 2],
    ['task repair', 1], // `--prompt <text>` likewise
    ['task answer', 1], // `[--answer "<question>=<value>" ...]` repeats an option, not an argument
    ['task create', 0], // `(--title <t> | …)` and `[options]`
    ['task follow-up', 1],
    ['chat new', 0],
    ['config get', 1],
    ['config set', 2],
    ['trigger test', 2],
    ['project add', 1],
    ['project edit', 1],
    ['doctor', 0], // `[--fix [--force]]`
    ['workflow edit', 1], // `[--set 'path=value']...`
    ['daemon start', 0],
    ['chat send', Number.POSITIVE_INFINITY],
    ['workflow validate', Number.POSITIVE_INFINITY],
  ])('svc %s: %d', (name, max) => {
    expect(maxPositionals(usageOf(name), name)).toBe(max);
  });

  it('reads every command’s usage line as a whole number or any number', () => {
    for (const c of commands) {
      const max = maxPositionals(c.usage ?? `svc ${c.name}`, c.name);
      expect(Number.isInteger(max) || max === Number.POSITIVE_INFINITY, c.name).toBe(true);
    }
  });
});

describe('svc given an argument too many', () => {
  it('refuses it by name with the usage, before asking the daemon anything', async () => {
    // No daemon runs here: a command that went on would exit 3 (daemon unreachable), not 2.
    const env = daemonEnv();
    const r = await cli(env, 'task', 'approve', '1', '2');
    expect(r.code).toBe(2);
    expect(r.err).toBe('svc task approve: unexpected argument "2"\n\nUsage: svc task approve <id>');
    const many = await cli(env, 'status', 'now', 'please');
    expect(many.code).toBe(2);
    expect(many.err).toContain('svc status: unexpected arguments "now" "please"');
  });

  it('lets a command that takes any number of them have them', async () => {
    const env = daemonEnv();
    expect((await cli(env, 'chat', 'send', '1', 'hello', 'there', 'you')).code).toBe(3);
    expect((await cli(env, 'task', 'priority', '1', '5')).code).toBe(3);
  });
});
