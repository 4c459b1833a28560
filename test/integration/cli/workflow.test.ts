// Issue 3 point 8: `svc workflow list|show|validate|new|edit` with --json; validate works offline.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pathsFor } from '../../../kernel/daemon/paths.js';
import { runDaemon } from '../../../kernel/listener.js';
import { cli } from '../../support/cli.js';
import { tempDir } from '../../support/tmp.js';

function dirs() {
  const root = tempDir();
  const env = { SVC_CONFIG_DIR: join(root, 'config'), SVC_DATA_DIR: join(root, 'data') };
  return { root, env, paths: pathsFor(env.SVC_CONFIG_DIR, env.SVC_DATA_DIR) };
}

describe('svc workflow validate (offline)', () => {
  it('validates files and directories without a daemon, exit 0 or 6', async () => {
    const { root, env } = dirs();
    const dir = join(root, 'wf');
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'good.yaml'),
      'name: good\nsteps:\n  - type: agent\n    prompt: hi\n    agent: claude\n',
    );
    writeFileSync(
      join(dir, 'bad.yaml'),
      'name: bad\nsteps:\n  - type: agent\n    agent: gemini\n    prompt: "{{.X"\n',
    );
    const ok = await cli(env, 'workflow', 'validate', join(dir, 'good.yaml'));
    expect(ok).toMatchObject({ code: 0 });
    expect(ok.out).toContain('good.yaml: ok (good)');
    const bad = await cli(env, 'workflow', 'validate', dir);
    expect(bad.code).toBe(6);
    expect(bad.out).toContain(
      `${join(dir, 'bad.yaml')}:4: agent "gemini" is not one of claude, codex, cursor [unknown_agent]`,
    );
    expect(bad.out).toMatch(
      /bad\.yaml:5: steps\[0\]\.prompt: template error .* \[template_syntax\]/,
    );
    const json = await cli(env, 'workflow', 'validate', '--json', dir);
    const parsed = JSON.parse(json.out) as {
      valid: boolean;
      files: Array<{ file: string; valid: boolean; errors: Array<{ code: string }> }>;
    };
    expect(parsed.valid).toBe(false);
    expect(parsed.files.map((f) => [f.valid, f.errors.map((e) => e.code)])).toEqual([
      [false, ['unknown_agent', 'template_syntax']],
      [true, []],
    ]);
    expect((await cli(env, 'workflow', 'validate', join(dir, 'missing.yaml'))).code).toBe(6);
    expect((await cli(env, 'workflow', 'validate')).code).toBe(2);
  });

  it('judges with the config file ceilings when there is one', async () => {
    const { root, env, paths } = dirs();
    const file = join(root, 'loop.yaml');
    writeFileSync(
      file,
      'name: l\nsteps:\n  - type: loop\n    count: 20\n    steps:\n      - type: command\n        run: x\n',
    );
    expect((await cli(env, 'workflow', 'validate', file)).code).toBe(6);
    mkdirSync(paths.configDir, { recursive: true });
    writeFileSync(paths.configFile, 'loop:\n  max_iterations: 20\n');
    expect((await cli(env, 'workflow', 'validate', file)).code).toBe(0);
  });
});

describe('svc workflow against a daemon', () => {
  it('lists, shows, creates and edits', async () => {
    const { env, paths } = dirs();
    const daemon = await runDaemon(paths, { handleSignals: false });
    try {
      const list = await cli(env, 'workflow', 'list');
      expect(list.code).toBe(0);
      expect(list.out.split('\n')[0]).toMatch(/^NAME\s+SCOPE\s+STATUS\s+STEPS\s+DESCRIPTION$/);
      expect(list.out).toMatch(/adhoc\s+builtin\s+ok\s+1/);

      const created = await cli(env, 'workflow', 'new', 'nightly');
      expect(created).toMatchObject({ code: 0, out: join(paths.workflowsDir, 'nightly.yaml') });
      const copy = await cli(env, 'workflow', 'new', '--from', 'adhoc', '--json');
      expect(JSON.parse(copy.out)).toMatchObject({ name: 'adhoc', scope: 'global' });
      const all = await cli(env, 'workflow', 'list', '--all', '--json');
      expect(
        (JSON.parse(all.out) as Array<{ name: string; status: string }>)
          .filter((w) => w.name === 'adhoc')
          .map((w) => w.status),
      ).toEqual(['ok', 'shadowed']);

      const shown = await cli(env, 'workflow', 'show', 'nightly');
      expect(shown.code).toBe(0);
      expect(shown.out).toContain('# nightly (global');
      expect(shown.out).toContain('id: implement');

      const file = join(paths.workflowsDir, 'nightly.yaml');
      const before = readFileSync(file, 'utf8');
      const edit = await cli(
        env,
        'workflow',
        'edit',
        'nightly',
        '--set',
        'description=Runs every night',
        '--set',
        'steps[0].timeout=30m',
      );
      expect(edit.code).toBe(0);
      const after = readFileSync(file, 'utf8');
      expect(after).toContain('description: Runs every night');
      expect(after).toContain('timeout: 30m');
      // The comments of the starter survive the edit.
      for (const line of before.split('\n').filter((l) => l.trim().startsWith('#')))
        expect(after).toContain(line);

      const stale = await cli(
        env,
        'workflow',
        'edit',
        'nightly',
        '--version',
        'old',
        '--remove',
        'description',
      );
      expect(stale.code).toBe(5);
      const missing = await cli(env, 'workflow', 'show', 'ghost');
      expect(missing.code).toBe(4);
      const json = await cli(env, 'workflow', 'show', 'nightly', '--json');
      expect(JSON.parse(json.out).definition.description).toBe('Runs every night');
    } finally {
      await daemon.stop();
    }
  });
});
