// Issue 4 point 9: kill -9 of a real daemon mid-step loses nothing (decision 009); what the step
// started outside its process group is reaped by recovery too (issue 17, decision 182).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../support/app.js';
import { skipUnlessCi } from '../support/ci.js';
import { HAVE_BUILD, svc } from '../support/daemon-proc.js';
import { gitRepo } from '../support/git.js';
import { withWorkflows } from '../support/tasks.js';
import { tempDir } from '../support/tmp.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
}

describe.skipIf(
  skipUnlessCi(!HAVE_BUILD && 'dist/ is not built (npm run build)', 'crash recovery'),
)('crash recovery', () => {
  it('a killed daemon’s running step is closed interrupted, its orphan killed, and the task finishes after restart', {
    timeout: 90_000,
  }, async () => {
    const root = tempDir('svc-crash-');
    const env = { SVC_DATA_DIR: join(root, 'data'), SVC_CONFIG_DIR: join(root, 'config') };
    const marks = tempDir('svc-marks-');
    const repo = gitRepo();
    withWorkflows(repo, {
      crashy: `name: crashy
steps:
  - id: work
    type: command
    max_retries: 0
    run: |
      if [ -f ${marks}/ran-once ]; then echo second; exit 0; fi
      touch ${marks}/ran-once
      setsid sh -c 'echo $$ > ${marks}/escaped; exec sleep 300' &
      sleep 300 &
      echo $! > ${marks}/child
      wait
`,
    });
    const base = svc(env, 'daemon', 'start').out;
    const token = readFileSync(join(root, 'data', 'token'), 'utf8').trim();
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return res.json() as Promise<Record<string, unknown>>;
    };
    const project = await call('POST', '/v1/projects', { path: repo.path });
    const task = await call('POST', '/v1/tasks', {
      project_id: project.id,
      title: 'crash me',
      workflow: 'crashy',
    });
    const child = Number(
      await waitFor(
        () => existsSync(join(marks, 'child')) && readFileSync(join(marks, 'child'), 'utf8').trim(),
      ),
    );
    // A descendant that left the step's process group and session (decision 182).
    const escaped = Number(
      await waitFor(
        () =>
          existsSync(join(marks, 'escaped')) && readFileSync(join(marks, 'escaped'), 'utf8').trim(),
      ),
    );
    const { pid } = JSON.parse(readFileSync(join(root, 'data', 'daemon.json'), 'utf8'));
    process.kill(pid, 'SIGKILL');
    await waitFor(() => !alive(pid));
    expect(alive(child)).toBe(true);
    expect(alive(escaped)).toBe(true);

    const again = svc(env, 'daemon', 'start');
    expect(again.code).toBe(0);
    const base2 = again.out;
    const get = async (path: string) =>
      (
        await fetch(`${base2}${path}`, { headers: { authorization: `Bearer ${token}` } })
      ).json() as Promise<Record<string, unknown>>;
    const done = await waitFor(async () => {
      const t = await get(`/v1/tasks/${task.id}`);
      return t.state === 'done' ? t : null;
    }, 20_000);
    const steps = done.steps as Array<{
      state: string;
      failure_reason: string | null;
      attempt: number;
    }>;
    expect(steps.map((s) => [s.attempt, s.state, s.failure_reason])).toEqual([
      [1, 'interrupted', 'interrupted'],
      [2, 'succeeded', null],
    ]);
    await waitFor(() => !alive(child));
    expect(alive(escaped), 'recovery kills what left the group too').toBe(false);
    expect(svc(env, 'daemon', 'stop').code).toBe(0);
  });
});
