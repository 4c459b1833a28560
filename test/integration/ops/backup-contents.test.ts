// Issue 18 point 5 (decision 195): an archive holds everything needed to run again — besides the
// database, transcripts and workflows, the trigger files (0600, secrets included) and config.yaml —
// and a restore into fresh directories puts them back, so a trigger meets its cursor and ledger.
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { extract as tarExtract, list as tarList } from 'tar';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../../cli/exit-codes.js';
import { main } from '../../../cli/index.js';
import { pathsFor } from '../../../kernel/daemon/index.js';
import type { BackupManifest, RestoreResult } from '../../../kernel/ops/index.js';
import { buildTestApp, type TestApp } from '../../support/app.js';
import { tempDir } from '../../support/tmp.js';
import { CREATE_OK, triggerWorld } from '../../support/triggers.js';

async function svc(paths: TestApp['paths'], ...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(
    args,
    { ...process.env, SVC_DATA_DIR: paths.dataDir, SVC_CONFIG_DIR: paths.configDir },
    { out: (s) => out.push(s), err: (s) => err.push(s) },
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const SECRET = 'a-webhook-secret-of-some-length';

async function entries(archive: string): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  await tarList({ file: archive, onReadEntry: (e) => found.set(e.path, (e.mode ?? 0) & 0o777) });
  return found;
}

describe('what an archive holds (decision 195)', { timeout: 120_000 }, () => {
  it('keeps trigger files (secrets included, 0600) and config.yaml, and a restore puts them back', async () => {
    const w = await triggerWorld({ config: 'max_parallel_tasks: 5\n' });
    const hook = `id: hook\nenabled: true\nproject_id: ${w.project.id}\nsource:\n  type: http\n  signature:\n    secret: ${SECRET}\naction:\n${CREATE_OK}`;
    await w.put('hook', hook);
    // The ledger and poll state the database keeps for it.
    w.t.kernel.services.triggers.state.upsert('hook', { seeded: 1, last_poll_at: 'x' });
    const configBytes = readFileSync(w.t.paths.configFile, 'utf8');

    const archive = join(tempDir(), 'all.tar.gz');
    await w.t.json('POST', '/v1/daemon/backup', { path: archive });
    const held = await entries(archive);
    expect(held.get('triggers/hook.yaml')).toBe(0o600);
    expect(held.get('config.yaml')).toBe(0o600);
    const unpacked = tempDir();
    await tarExtract({ file: archive, cwd: unpacked });
    const manifest = JSON.parse(
      readFileSync(join(unpacked, 'manifest.json'), 'utf8'),
    ) as BackupManifest;
    expect(manifest.contents).toEqual(
      expect.arrayContaining(['manifest.json', 'svc.db', 'triggers', 'config.yaml']),
    );
    expect(manifest).toMatchObject({
      triggers_dir: w.t.paths.triggersDir,
      config_file: w.t.paths.configFile,
    });
    await w.t.close();

    const fresh = tempDir('svc-restored-');
    const paths = pathsFor(join(fresh, 'config'), join(fresh, 'data'));
    const r = await svc(paths, 'restore', archive, '--json');
    expect(r.err).toBe('');
    expect(r.code).toBe(EXIT.ok);
    expect(JSON.parse(r.out) as RestoreResult).toMatchObject({
      trigger_files: 1,
      config_file: true,
    });
    const restoredHook = join(paths.triggersDir, 'hook.yaml');
    expect(readFileSync(restoredHook, 'utf8')).toBe(hook);
    expect(statSync(restoredHook).mode & 0o777).toBe(0o600);
    expect(readFileSync(paths.configFile, 'utf8')).toBe(configBytes);
    expect(statSync(paths.configFile).mode & 0o777).toBe(0o600);

    const b = await buildTestApp({ root: fresh, kernel: { startEngine: false } });
    const list = await b.json<{
      triggers: Array<{ id: string; armed: boolean; poll: { seeded: boolean } }>;
    }>('GET', '/v1/triggers');
    expect(list.triggers.map((x) => [x.id, x.armed, x.poll.seeded])).toEqual([
      ['hook', true, true],
    ]);
    expect(
      (await b.json<{ max_parallel_tasks: number }>('GET', '/v1/config')).max_parallel_tasks,
    ).toBe(5);
  });

  it('refuses to replace a config file or trigger files unless forced, then moves them aside', async () => {
    const t = await buildTestApp({ config: 'max_parallel_tasks: 4\n' });
    const archive = join(tempDir(), 'a.tar.gz');
    await t.json('POST', '/v1/daemon/backup', { path: archive });

    const fresh = tempDir('svc-target-');
    const paths = pathsFor(join(fresh, 'config'), join(fresh, 'data'));
    mkdirSync(paths.configDir, { recursive: true });
    writeFileSync(paths.configFile, 'max_parallel_tasks: 9\n', { mode: 0o600 });
    const refused = await svc(paths, 'restore', archive);
    expect(refused.code).toBe(EXIT.invalid);
    expect(refused.err).toContain(paths.configFile);
    expect(readFileSync(paths.configFile, 'utf8')).toBe('max_parallel_tasks: 9\n');

    const forced = await svc(paths, 'restore', archive, '--force', '--json');
    expect(forced.code).toBe(EXIT.ok);
    const summary = JSON.parse(forced.out) as RestoreResult;
    expect(readFileSync(join(summary.displaced as string, 'config.yaml'), 'utf8')).toBe(
      'max_parallel_tasks: 9\n',
    );
    expect(readFileSync(paths.configFile, 'utf8')).toContain('max_parallel_tasks: 4');
  });
});
