/**
 * Step overhead: N one-step tasks (`run: "true"`) from create to done, one at a time, against a
 * baseline doing the same unavoidable work by hand — git worktree add, /bin/sh -c true, git
 * worktree remove. Runs interleave (task, baseline, task, …) so machine noise hits both alike.
 * Each done task is archived outside the timed part (decision 157).
 */
import { join } from 'node:path';
import {
  cleanup,
  commandWorkflow,
  gitAsync,
  makeRepo,
  prepare,
  QUIET_CONFIG,
  startInProcess,
  tempRoot,
} from './lib/env.js';
import { sh } from './lib/hand.js';
import { median, now, p99 } from './lib/stats.js';
import { TaskWatcher } from './lib/watch.js';

export interface OverheadResult {
  svcMs: number[];
  /** Create → archived: the task's whole life including its worktree's removal. */
  svcArchivedMs: number[];
  baselineMs: number[];
  failed: number;
}

/** The work svc cannot avoid for one one-step task, done by hand. */
export async function baselineUnit(repo: string, dir: string, i: number): Promise<void> {
  const path = join(dir, `b${i}`);
  await gitAsync(repo, ['worktree', 'add', '--quiet', '-b', `bench/b${i}`, path, 'main']);
  await sh(path);
  await gitAsync(repo, ['worktree', 'remove', path]);
}

export async function overhead(n: number): Promise<OverheadResult> {
  const root = tempRoot();
  const repo = makeRepo(root);
  const baseRepo = makeRepo(root, 'baseline-repo');
  const paths = prepare(root, QUIET_CONFIG, { one: commandWorkflow('one', 'true') });
  const { daemon, api } = await startInProcess(paths);
  const watch = new TaskWatcher(daemon.kernel.services.events);
  const project = await api.call<{ id: number }>('POST', '/v1/projects', { path: repo });
  const out: OverheadResult = { svcMs: [], svcArchivedMs: [], baselineMs: [], failed: 0 };
  try {
    // A few untimed rounds warm both paths (JIT, page cache, git's own caches).
    for (let i = -3; i < n; i++) {
      const t0 = now();
      const task = await api.call<{ id: number }>('POST', '/v1/tasks', {
        project_id: project.id,
        title: `overhead ${i}`,
        workflow: 'one',
      });
      const settled = await watch.settle(task.id);
      const t1 = now();
      if (settled.payload.to !== 'done') out.failed++;
      await baselineUnit(baseRepo, join(root, 'wt'), i + 3);
      const t2 = now();
      if (i >= 0) {
        out.svcMs.push(t1 - t0);
        out.baselineMs.push(t2 - t1);
      }
      // Archiving removes the task's worktree, as the baseline removes its own, so both sides add
      // each worktree next to the same handful of registered ones (decision 157). Timed apart:
      // create→done is the figure, create→archived the like-for-like one.
      const t3 = now();
      await api.call('POST', `/v1/tasks/${task.id}/archive`);
      if (i >= 0) out.svcArchivedMs.push(t1 - t0 + (now() - t3));
    }
  } finally {
    watch.close();
    await daemon.stop();
    cleanup();
  }
  return out;
}

export function summarizeOverhead(r: OverheadResult) {
  const svc = median(r.svcMs);
  const base = median(r.baselineMs);
  const archived = median(r.svcArchivedMs);
  return {
    svc,
    base,
    ratio: svc / base,
    svcP99: p99(r.svcMs),
    baseP99: p99(r.baselineMs),
    archived,
    archivedRatio: archived / base,
  };
}
