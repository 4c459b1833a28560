// Issue 20 point 5: `svc chat --help` (and every other group's) lists the group's commands instead
// of calling the group an unknown command; a bare group prints the same list as a usage error; a
// mistyped command of a group is named with the group's list; `svc help <command>` is its --help.
import { describe, expect, it } from 'vitest';
import { commands } from '../../../cli/index.js';
import { cli } from '../../support/cli.js';
import { daemonEnv } from '../../support/daemon.js';

const GROUPS = [
  ...new Set(commands.filter((c) => c.name.includes(' ')).map((c) => c.name.split(' ')[0])),
] as string[];

describe('svc <group> --help', () => {
  it('covers the groups a user meets', () => {
    expect(GROUPS).toEqual(
      expect.arrayContaining(['chat', 'task', 'project', 'daemon', 'config', 'trigger', 'mcp']),
    );
  });

  it.each(GROUPS)('%s --help, -h and help list every command of the group', async (group) => {
    const env = daemonEnv();
    const members = commands.filter((c) => c.name.startsWith(`${group} `));
    for (const flag of ['--help', '-h', 'help']) {
      const r = await cli(env, group, flag);
      expect(r.code, `${group} ${flag}: ${r.err}`).toBe(0);
      expect(r.out).toContain(`Usage: svc ${group} <command> [options]`);
      for (const c of members) expect(r.out).toContain(`${c.name}  `.trimEnd());
      expect(r.out).not.toContain('unknown command');
    }
  });

  it('a bare group prints its commands as a usage error; a typo names the group', async () => {
    const env = daemonEnv();
    const bare = await cli(env, 'chat');
    expect(bare.code).toBe(2);
    expect(bare.out).toContain('chat attach');
    const typo = await cli(env, 'chat', 'sned', '1');
    expect(typo.code).toBe(2);
    expect(typo.err).toContain('svc: unknown command "chat sned 1"');
    expect(typo.err).toContain('Usage: svc chat <command> [options]');
    expect(typo.err).not.toContain('task create');
  });

  it('svc help <command> is the command’s --help; svc help alone the overview', async () => {
    const env = daemonEnv();
    const help = await cli(env, 'help', 'chat', 'send');
    expect(help.code).toBe(0);
    expect(help.out).toBe((await cli(env, 'chat', 'send', '--help')).out);
    expect((await cli(env, 'help', 'chat')).out).toContain('Usage: svc chat <command>');
    expect((await cli(env, 'help')).out).toContain('Usage: svc <command> [options]');
  });
});
