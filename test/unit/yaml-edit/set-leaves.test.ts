import { describe, expect, it } from 'vitest';
import { setLeaves } from '../../../lib/yaml-edit/index.js';
import { lines } from './support/edit.js';

const config = lines(
  '# svc configuration',
  'listen: 127.0.0.1:0',
  'max_parallel_tasks: 3 # slots',
  '',
  'defaults:',
  '  # how long one agent attempt may run',
  '  agent_timeout: 60m',
  '  command_timeout: 15m',
  '',
  'notify:',
  '  on: [blocked]',
  'tui:',
  '  board:',
  '    group_by: [project, workflow]',
);

describe('setLeaves', () => {
  it('sets only the leaves of a nested partial object', () => {
    const result = setLeaves(config, { max_parallel_tasks: 5, defaults: { agent_timeout: '90m' } });
    expect(result).toEqual({
      ok: true,
      text: config
        .replace('max_parallel_tasks: 3 # slots', 'max_parallel_tasks: 5 # slots')
        .replace('agent_timeout: 60m', 'agent_timeout: 90m'),
    });
  });

  it('sets arrays whole and objects whole where the file has no mapping for them', () => {
    const result = setLeaves(config, {
      notify: { on: ['blocked', 'done'], command: ['notify-send', 'svc'] },
      tui: { board: { group_by: [] }, keys: { archive: 'A' } },
      backup: { interval: '24h', keep: 7 },
    });
    expect(result).toEqual({
      ok: true,
      text:
        config
          .replace(
            '  on: [blocked]',
            '  on:\n    - blocked\n    - done\n  command:\n    - notify-send\n    - svc',
          )
          .replace(
            '    group_by: [project, workflow]',
            '    group_by: []\n  keys:\n    archive: A',
          ) + lines('backup:', '  interval: 24h', '  keep: 7'),
    });
  });

  it('replaces a scalar the patch turns into an object', () => {
    const result = setLeaves(lines('update: false'), { update: { check: false } });
    expect(result).toEqual({ ok: true, text: lines('update:', '  check: false') });
  });

  it('writes null as a value, or drops the key when asked to', () => {
    expect(setLeaves(config, { defaults: { command_timeout: null } })).toEqual({
      ok: true,
      text: config.replace('command_timeout: 15m', 'command_timeout: null'),
    });
    const dropped = setLeaves(
      config,
      {
        max_parallel_tasks: null,
        defaults: { agent_timeout: null, input_timeout: null },
        backup: null,
      },
      { nullRemoves: true },
    );
    expect(dropped).toEqual({
      ok: true,
      text: config
        .replace('max_parallel_tasks: 3 # slots\n', '')
        .replace(
          '  # how long one agent attempt may run\n  agent_timeout: 60m\n',
          '  # how long one agent attempt may run\n',
        ),
    });
  });

  it('writes nothing new for an empty patch', () => {
    expect(setLeaves(config, {})).toEqual({ ok: true, text: config });
  });

  it('reports findings for a file it cannot edit', () => {
    const result = setLeaves('listen: [\n', { listen: 'x' });
    expect(result).toMatchObject({ ok: false, findings: [{ code: 'source_unparseable' }] });
  });
});
