// Issue 20 point 4 from the command line, against a local fake GitHub: `svc task create --issue N`
// and `--pull N`, `task show` printing the issue or pull request with its link and state, and an
// issue/pull request mix-up refused as the request's mistake (exit 6), naming the flag that fits.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../support/app.js';
import { cli } from '../../support/cli.js';
import { daemonEnv, startDaemon } from '../../support/daemon.js';
import { fakeGithub, forgeEnvironment } from '../../support/fake-github.js';
import { commandWorkflow, withWorkflows } from '../../support/tasks.js';

async function world() {
  const fake = await fakeGithub();
  const env = daemonEnv();
  mkdirSync(env.SVC_CONFIG_DIR, { recursive: true, mode: 0o700 });
  writeFileSync(
    join(env.SVC_CONFIG_DIR, 'config.yaml'),
    `${forgeEnvironment(fake, 'token')}forge:\n  poll_interval: 1s\n`,
    { mode: 0o600 },
  );
  await startDaemon(env);
  const repo = fake.clone('acme/widgets');
  withWorkflows(repo, { ok: commandWorkflow('ok', 'true') });
  repo.git('push', '-q', 'origin', 'main');
  const added = await cli(env, 'project', 'add', repo.path, '--json');
  expect(added.code, added.err).toBe(0);
  fake.issue('acme/widgets', { number: 5, title: 'Crash on start' });
  fake.pull('acme/widgets', { number: 7, title: 'Fix the crash', head_ref: 'fix/crash' });
  const show = async (id: number) => (await cli(env, 'task', 'show', String(id))).out;
  return { env, show };
}

describe('svc task create --issue / --pull', () => {
  it('creates from an issue and from a pull request; task show prints the link and state', async () => {
    const { env, show } = await world();
    const fromIssue = await cli(
      env,
      'task',
      'create',
      '--project',
      '1',
      '--issue',
      '5',
      '--workflow',
      'ok',
      '--paused',
      '--json',
    );
    expect(fromIssue.code, fromIssue.err).toBe(0);
    const issueTask = JSON.parse(fromIssue.out) as { id: number; title: string };
    expect(issueTask.title).toBe('Crash on start');
    expect(await show(issueTask.id)).toContain(
      '  issue     #5 open  https://github.com/acme/widgets/issues/5',
    );

    const fromPull = await cli(
      env,
      'task',
      'create',
      '--project',
      '1',
      '--pull',
      '7',
      '--workflow',
      'ok',
      '--json',
    );
    expect(fromPull.code, fromPull.err).toBe(0);
    const pullTask = JSON.parse(fromPull.out) as { id: number; branch_name: string };
    expect(pullTask.branch_name).toBe('fix/crash');
    // The reconciler (every second here) records the pull request's state beside the task.
    const shown = await waitFor(async () => {
      const out = await show(pullTask.id);
      return out.includes('  pull      #7 open') ? out : null;
    }, 20_000);
    expect(shown).toContain('  pull      #7 open  https://github.com/acme/widgets/pull/7');
  }, 120_000);

  it('refuses a pull request given as an issue, an issue given as a pull request, and both', async () => {
    const { env } = await world();
    const asIssue = await cli(
      env,
      'task',
      'create',
      '--project',
      '1',
      '--issue',
      '7',
      '--workflow',
      'ok',
    );
    expect(asIssue.code).toBe(6);
    expect(asIssue.err).toContain(
      '#7 of acme/widgets is a pull request, not an issue: send it as forge_pull (svc task create --pull 7)',
    );
    // The field is named as the command line's flag (errors as sentences, decision 203).
    expect(asIssue.err).toContain('give another with --issue <n>');
    const asPull = await cli(
      env,
      'task',
      'create',
      '--project',
      '1',
      '--pull',
      '5',
      '--workflow',
      'ok',
    );
    expect(asPull.code).toBe(6);
    expect(asPull.err).toContain(
      '#5 of acme/widgets is an issue, not a pull request: send it as forge_issue (svc task create --issue 5)',
    );
    const both = await cli(env, 'task', 'create', '--project', '1', '--issue', '5', '--pull', '7');
    expect(both.code).toBe(2);
    expect(both.err).toContain('give --issue or --pull, not both');
    expect(JSON.parse((await cli(env, 'task', 'list', '--json')).out)).toEqual([]);
  }, 120_000);
});
