import { describe, expect, it } from 'vitest';
import { ConfigSchema, defaultConfig } from '../../../kernel/config/schema.js';
import { findingsFromZod } from '../../../kernel/input/index.js';

function findings(input: unknown) {
  const r = ConfigSchema.safeParse(input);
  return r.success ? [] : findingsFromZod(r.error);
}

describe('config schema (SPEC §2.10)', () => {
  it('fills every default from an empty file', () => {
    const c = defaultConfig();
    expect(c.listen).toBe('127.0.0.1:0');
    expect(c.max_parallel_tasks).toBe(3);
    expect(c.max_parallel_chats).toBe(3);
    expect(c.defaults).toEqual({
      agent_timeout: '60m',
      command_timeout: '15m',
      input_timeout: '24h',
    });
    expect(c.transcript_max_bytes).toBe('512MB');
    expect(c.environment).toEqual({ inherit: 'all', unset: [], set: {} });
    expect(c.agents).toEqual({ claude: { path: '' }, codex: { path: '' }, cursor: { path: '' } });
    expect(c.parallel.max_parallel).toBe(4);
    expect(c.fan_out).toEqual({ max_depth: 3, max_tasks: 64 });
    expect(c.loop.max_iterations).toBe(10);
    expect(c.include.max_depth).toBe(5);
    expect(c.mcp).toEqual({ wire_steps: true, max_depth: 3, max_tasks: 32 });
    expect(c.forge).toEqual({ enabled: true, poll_interval: '5m' });
    expect(c.update).toEqual({ check: true, poll_interval: '24h' });
    expect(c.backup).toEqual({ interval: '0', keep: 7, dir: '' });
    expect(c.usage_limit_auto_continue).toBe('always');
    expect(c.triggers.enabled).toBe(false);
    expect(c.tui).toEqual({
      board: { group_by: ['project', 'workflow'] },
      hyperlinks: false,
      keys: {},
    });
  });

  it('keeps omitted nested keys at their defaults', () => {
    const c = ConfigSchema.parse({ defaults: { agent_timeout: '2h' } });
    expect(c.defaults).toEqual({
      agent_timeout: '2h',
      command_timeout: '15m',
      input_timeout: '24h',
    });
  });

  it.each([
    [{ bogus: 1 }, 'bogus'],
    [{ tui: { board: { group: [] } } }, 'tui.board.group'],
    [{ agents: { claude: { path: '', x: 1 } } }, 'agents.claude.x'],
    [{ defaults: { agent_timeout: '1h', retry: 1 } }, 'defaults.retry'],
  ])('rejects an unknown key by name: %j', (input, key) => {
    const f = findings(input);
    expect(f.map((x) => x.path)).toContain(key);
    expect(f.find((x) => x.path === key)?.message).toContain(key);
  });

  it.each([
    [{ listen: '0.0.0.0:8080' }, 'listen'],
    [{ listen: '192.168.1.2:0' }, 'listen'],
    [{ listen: 'localhost' }, 'listen'],
    [{ listen: '127.0.0.1:70000' }, 'listen'],
    [{ max_parallel_tasks: 0 }, 'max_parallel_tasks'],
    [{ max_parallel_chats: 0 }, 'max_parallel_chats'],
    [{ max_parallel_tasks: 1.5 }, 'max_parallel_tasks'],
    [{ defaults: { agent_timeout: '0s' } }, 'defaults.agent_timeout'],
    [{ defaults: { input_timeout: 'soon' } }, 'defaults.input_timeout'],
    [{ transcript_retention_days: -1 }, 'transcript_retention_days'],
    [{ transcript_max_bytes: '12 parsecs' }, 'transcript_max_bytes'],
    [{ max_task_cost_usd: -1 }, 'max_task_cost_usd'],
    [{ max_tree_cost_usd: -0.5 }, 'max_tree_cost_usd'],
    [{ usage_limit_recheck_interval: '0' }, 'usage_limit_recheck_interval'],
    [{ usage_limit_auto_continue: 'sometimes' }, 'usage_limit_auto_continue'],
    [{ log_level: 'trace' }, 'log_level'],
    [{ environment: { inherit: 'some' } }, 'environment.inherit'],
    [{ parallel: { max_parallel: 0 } }, 'parallel.max_parallel'],
    [{ fan_out: { max_depth: 0 } }, 'fan_out.max_depth'],
    [{ loop: { max_iterations: 0 } }, 'loop.max_iterations'],
    [{ include: { max_depth: 0 } }, 'include.max_depth'],
    [{ mcp: { max_tasks: 0 } }, 'mcp.max_tasks'],
    [{ backup: { interval: '30m' } }, 'backup.interval'],
    [{ backup: { interval: '-1h' } }, 'backup.interval'],
    [{ backup: { keep: -1 } }, 'backup.keep'],
    [{ backup: { dir: 'relative/dir' } }, 'backup.dir'],
    [{ update: { poll_interval: '-5m' } }, 'update.poll_interval'],
    [{ notify: { on: ['finished'] } }, 'notify.on[0]'],
    [{ container: { extra_mounts: ['rel:/x'] } }, 'container.extra_mounts[0]'],
    [{ tui: { board: { group_by: ['project', 'project'] } } }, 'tui.board.group_by'],
    [{ tui: { board: { group_by: ['owner'] } } }, 'tui.board.group_by[0]'],
    [{ tui: { keys: { approve: 'a', reject: 'a' } } }, 'tui.keys'],
    [{ tui: { keys: { launch: 'l' } } }, 'tui.keys.launch'],
    // decision 142: a rebind onto a key another operation still uses by default is a clash
    [{ tui: { keys: { approve: 'x' } } }, 'tui.keys'],
    [{ tui: { keys: { approve: 'up' } } }, 'tui.keys.approve'],
    [{ tui: { keys: { approve: 'j' } } }, 'tui.keys.approve'],
    [{ tui: { keys: { approve: 'ctrl+shift+x' } } }, 'tui.keys.approve'],
    [{ tui: { keys: { approve: ' ' } } }, 'tui.keys.approve'],
    // decision 174: the diff view's keys clash with the gate's actions it also takes
    [{ tui: { keys: { comment: 'a' } } }, 'tui.keys'],
  ])('refuses %j naming %s', (input, key) => {
    const f = findings(input);
    expect(f.length).toBeGreaterThan(0);
    expect(f.map((x) => x.path)).toContain(key);
  });

  it.each([
    { listen: '127.0.0.1:7070' },
    { listen: '[::1]:0' },
    { listen: 'localhost:0' },
    { backup: { interval: '1h', keep: 0, dir: '/var/backups/svc' } },
    { backup: { interval: '0' } },
    { update: { poll_interval: '0' }, forge: { poll_interval: '0' } },
    { environment: { inherit: ['PATH', 'HOME'], unset: ['AWS_SECRET'], set: { CI: '1' } } },
    { agents: { claude: { path: '/opt/claude' } } },
    { notify: { on: ['blocked', 'done'], command: ['notify-send', 'svc'] } },
    { tui: { keys: { approve: 'y', reject: 'n', new_task: 'N' }, board: { group_by: [] } } },
    { tui: { keys: { approve: 'x', reject: 'X', refresh: 'ctrl+l', open: 'space' } } },
    // decision 174: a board-only key is free in the diff view, and the other way round
    { tui: { keys: { next_file: 'r', prev_file: 'f', diff: 'D' } } },
    { transcript_max_bytes: 0 },
    { plugins: ['./my-plugin.js'] },
  ])('accepts %j', (input) => expect(findings(input)).toEqual([]));
});
