// Decision 194's "outside this data directory" is judged on real paths where they exist: a data
// directory reached through a symbolic link (a moved home, a mounted volume) holds rows spelling it
// the other way, and those are still this installation's. Judged on spelling alone, the doctor
// raised foreign_worktree for them, archive left their worktrees behind, and crash recovery left
// their orphaned processes running.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DoctorReport } from '../../../kernel/ops/index.js';
import { processStartTicks } from '../../../kernel/proc/index.js';
import { buildTestApp, waitFor } from '../../support/app.js';
import { gitRepo } from '../../support/git.js';
import { insertProject, insertStepRun, insertTask } from '../../support/rows.js';
import { act } from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';

/** An installation root reached through a link: returns [the link, the real directory]. */
function linkedRoot(): [string, string] {
  const real = tempDir('svc-real-');
  const link = join(tempDir('svc-link-'), 'root');
  symlinkSync(real, link);
  return [link, real];
}

describe('a data directory reached through a link is still this one (decision 194)', () => {
  it('the doctor raises no foreign_worktree and archive removes the worktree', async () => {
    const [link, real] = linkedRoot();
    const t = await buildTestApp({ root: link, kernel: { startEngine: false } });
    const store = t.kernel.services.store;
    const repo = gitRepo();
    const project = insertProject(store, repo.path);
    // The same directory as {worktreesDir}/<id>, written with the real path.
    const worktree = join(real, 'data', 'worktrees', '41');
    mkdirSync(join(real, 'data', 'worktrees'), { recursive: true });
    execFileSync('git', ['worktree', 'add', '-q', '-b', 'svc/41', worktree], { cwd: repo.path });
    const id = insertTask(store, project, {
      state: 'done',
      worktree_path: worktree,
      branch_name: 'svc/41',
    });

    const report = await t.json<DoctorReport>('GET', '/v1/doctor?probe=false');
    expect(report.tasks.foreign_worktrees).toEqual([]);
    expect(report.problems.map((p) => p.code)).not.toContain('foreign_worktree');

    const archived = await act(t, id, 'archive', {});
    expect(archived.statusCode, archived.body).toBe(200);
    expect(existsSync(worktree)).toBe(false);
  });

  it('crash recovery stops the orphaned process of a run whose transcript is spelled the other way', async () => {
    const [link, real] = linkedRoot();
    const before = await buildTestApp({
      root: link,
      keepOpen: true,
      kernel: { startEngine: false },
    });
    const store = before.kernel.services.store;
    const id = insertTask(store, insertProject(store), { state: 'running' });
    // A step's process left behind by a crash: its own process group, as svc starts them.
    const orphan = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' });
    try {
      const pid = orphan.pid as number;
      await waitFor(() => processStartTicks(pid));
      insertStepRun(store, before.paths.transcriptsDir, id, {
        state: 'running',
        finished_at: null,
        pid,
        proc_started_at: processStartTicks(pid),
        transcript_path: join(real, 'data', 'transcripts', String(id), '0-1.jsonl'),
      });
      await before.close();

      const after = await buildTestApp({ root: link });
      await waitFor(() => orphan.exitCode !== null || orphan.signalCode !== null);
      expect(orphan.signalCode).toBe('SIGKILL');
      await after.close();
    } finally {
      if (orphan.exitCode === null && orphan.signalCode === null) orphan.kill('SIGKILL');
    }
  });
});
