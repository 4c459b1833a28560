// Issue 8 point 5: `svc trigger list|show|new|edit|rm|test|poll|deliveries|enable|disable`
// against a running daemon.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Client } from '../../../cli/client.js';
import { pathsFor } from '../../../kernel/daemon/paths.js';
import { runDaemon } from '../../../kernel/listener.js';
import { cli } from '../../support/cli.js';
import { gitRepo } from '../../support/git.js';
import { commandWorkflow, withWorkflows } from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';

describe('svc trigger against a daemon', () => {
  it('creates, inspects, dry-runs, toggles, edits, reads the ledger and removes', async () => {
    const root = tempDir();
    const env = { SVC_CONFIG_DIR: join(root, 'config'), SVC_DATA_DIR: join(root, 'data') };
    const paths = pathsFor(env.SVC_CONFIG_DIR, env.SVC_DATA_DIR);
    const daemon = await runDaemon(paths, { handleSignals: false });
    try {
      const repo = gitRepo();
      withWorkflows(repo, { ok: commandWorkflow('ok', 'true') });
      const project = await Client.discover(paths).post<{ id: number }>('/v1/projects', {
        path: repo.path,
      });

      const created = await cli(
        env,
        'trigger',
        'new',
        'nightly',
        '--project',
        String(project.id),
        '--command',
        'printf',
        '--command',
        '{"id":"a"}\\nnoise\\n',
        '--workflow',
        'ok',
      );
      expect(created.code).toBe(0);
      const file = join(paths.triggersDir, 'nightly.yaml');
      expect(created.out).toMatch(new RegExp(`^${file} version [0-9a-f]{16}$`));
      expect(
        (await cli(env, 'trigger', 'new', 'nightly', '--project', String(project.id))).code,
      ).toBe(5);
      expect((await cli(env, 'trigger', 'new', 'x')).code).toBe(2);

      const list = await cli(env, 'trigger', 'list');
      expect(list.out).toContain('triggers.enabled: off');
      expect(list.out).toMatch(
        /nightly\s+no\s+command\s+create_task\s+\d+\s+propose\s+-\s+disabled/,
      );

      const shown = await cli(env, 'trigger', 'show', 'nightly');
      expect(shown.code).toBe(0);
      expect(shown.out).toContain('# nightly: not armed (disabled)');
      expect(shown.out).toContain('enabled: false');

      const tested = await cli(env, 'trigger', 'test', 'nightly', '{"id": "e1"}');
      expect(tested.out.split('\n')[0]).toBe('e1: fired → POST /v1/tasks');
      const polled = await cli(env, 'trigger', 'poll', 'nightly');
      expect(polled.code).toBe(0);
      expect(polled.out).toContain(
        '# 1 events (a real poll now would seed: nothing would fire), 0 truncated, 1 refused',
      );
      expect(polled.out).toContain('a: seeded');

      const before = readFileSync(file, 'utf8');
      expect((await cli(env, 'trigger', 'enable', 'nightly')).code).toBe(0);
      const enabled = readFileSync(file, 'utf8');
      expect(enabled).toBe(before.replace('enabled: false', 'enabled: true'));
      expect((await cli(env, 'trigger', 'show', 'nightly')).out).toContain(
        'not armed (triggers_disabled)',
      );
      expect((await cli(env, 'trigger', 'disable', 'nightly')).code).toBe(0);
      expect(readFileSync(file, 'utf8')).toBe(before);

      const edit = await cli(
        env,
        'trigger',
        'edit',
        'nightly',
        '--set',
        'source.poll_interval=10m',
        '--set',
        'on_fire=create',
      );
      expect(edit.code).toBe(0);
      expect(readFileSync(file, 'utf8')).toContain('on_fire: create');
      const stale = await cli(
        env,
        'trigger',
        'edit',
        'nightly',
        '--set',
        'description=x',
        '--version',
        'old',
      );
      expect(stale.code).toBe(5);
      const invalid = await cli(env, 'trigger', 'edit', 'nightly', '--set', 'overrun=maybe');
      expect(invalid.code).toBe(6);

      const ledger = await cli(env, 'trigger', 'deliveries', 'nightly', '--json');
      expect(JSON.parse(ledger.out)).toEqual([]);
      expect((await cli(env, 'trigger', 'deliveries', 'nightly', '--limit', '0')).code).toBe(6);

      expect((await cli(env, 'trigger', 'rm', 'nightly')).code).toBe(0);
      expect((await cli(env, 'trigger', 'show', 'nightly')).code).toBe(4);
    } finally {
      await daemon.stop();
    }
  });
});
