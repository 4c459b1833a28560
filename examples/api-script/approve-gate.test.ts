// Issue 12 point 2: the API script example, run against a real daemon started as `svc daemon`
// does (daemon.json and token in the data dir): it creates a task, follows its events and
// approves its gate with nothing but fetch — in-process, and as the built script a user runs.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { daemonEnv, startDaemon } from '../../test/support/daemon.js';
import { gitRepo } from '../../test/support/git.js';
import { withWorkflows } from '../../test/support/tasks.js';
import { approveGate } from './approve-gate.js';

const BUILT = fileURLToPath(
  new URL('../../dist/examples/api-script/approve-gate.js', import.meta.url),
);
const GATED =
  'name: gated\nsteps:\n  - id: build\n    type: command\n    run: echo building\n  - id: review\n    type: manual\n    instructions: look at the build\n  - id: ship\n    type: command\n    run: echo shipped\n';

async function start() {
  const env = daemonEnv();
  const daemon = await startDaemon(env);
  const repo = gitRepo();
  withWorkflows(repo, {
    gated: GATED,
    broken:
      'name: broken\nsteps:\n  - id: fail\n    type: command\n    run: exit 3\n    max_retries: 0\n',
  });
  const res = await fetch(`${daemon.url}/v1/projects`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${daemon.kernel.services.daemon.token}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ path: repo.path }),
  });
  const project = (await res.json()) as { id: number };
  return { env, project };
}

describe('examples/api-script', () => {
  it('creates a task, follows its events, approves the gate and sees it done', async () => {
    const { env, project } = await start();
    const lines: string[] = [];
    const r = await approveGate({
      projectId: project.id,
      workflow: 'gated',
      title: 'Ship it',
      env,
      log: (l) => lines.push(l),
    });
    expect(r.state).toBe('done');
    expect(lines).toEqual([
      `created task ${r.taskId} (queued)`,
      `task ${r.taskId}: running`,
      'step build',
      '  | building',
      'step review',
      `task ${r.taskId}: awaiting_gate`,
      `approved (now queued)`,
      `task ${r.taskId}: queued`,
      `task ${r.taskId}: running`,
      'step ship',
      '  | shipped',
      `task ${r.taskId}: done`,
    ]);
  });

  it('reports a task that stops without reaching done', async () => {
    const { env, project } = await start();
    const r = await approveGate({
      projectId: project.id,
      workflow: 'broken',
      title: 'Fails',
      env,
      log: () => {},
    });
    expect(r.state).toBe('blocked');
  });

  it.skipIf(!existsSync(BUILT))('runs as the built script, exiting 0 when done', async () => {
    const { env, project } = await start();
    // The daemon runs in this process, so the script must not block it: spawn asynchronously.
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [BUILT, String(project.id), 'gated', 'From a script'], {
      env: { ...process.env, ...env },
    });
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
    });
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    expect(code).toBe(0);
    expect(out).toContain('approved (now queued)');
    expect(out).toMatch(/task \d+: done/);
    const usage = spawnSync(process.execPath, [BUILT], { encoding: 'utf8' });
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain('usage: approve-gate');
  });
});
