/**
 * Step overhead, like with like (issue 22 point 1, decision 231): one-step tasks (`run: "true"`)
 * against the same unavoidable work done by hand, interleaved task by task in one run:
 *
 * - create → done against `git worktree add` + `sh -c true` + `git status` (a unit);
 * - create → archived (done, then the archive call, which removes the worktree) against the same
 *   unit plus `git worktree remove`.
 *
 * The daemon runs in its own process, as `svc daemon start` runs it, and the bench waits on its
 * event stream as a client would. A run gives one ratio of medians for each pair; the section
 * repeats the run (5 times at full size) quiet and again beside a CPU hog (busy loops on every
 * core but one, started and stopped here), and reports the median and the worst ratio of each.
 */
import { join } from 'node:path';
import {
  commandWorkflow,
  gitAsync,
  makeRepo,
  prepare,
  QUIET_CONFIG,
  spawnDaemon,
  tempRoot,
} from './lib/env.js';
import { sh } from './lib/hand.js';
import { startHog } from './lib/hog.js';
import { RemoteWatcher } from './lib/remote-watch.js';
import { median, now } from './lib/stats.js';

export interface OverheadRun {
  /** create → done. */
  svcDoneMs: number[];
  /** create → archived: the done time plus the archive call. */
  svcArchivedMs: number[];
  /** worktree add + sh + status. */
  unitMs: number[];
  /** worktree add + sh + status + worktree remove. */
  unitRemovedMs: number[];
  failed: number;
  /** The daemon's own CPU over the run (user + system), per task, archive included. */
  cpuPerTaskMs: number;
}

export interface OverheadResult {
  quiet: OverheadRun[];
  contended: OverheadRun[];
  /** Busy loops beside the contended runs. */
  hogs: number;
}

/** The work svc cannot avoid for one one-step task, done by hand; returns its parts' times. */
export async function handUnit(
  repo: string,
  dir: string,
  i: number,
): Promise<{ unitMs: number; removeMs: number }> {
  const path = join(dir, `b${i}`);
  const t0 = now();
  await gitAsync(repo, ['worktree', 'add', '--quiet', '-b', `bench/b${i}`, path, 'main']);
  await sh(path);
  await gitAsync(path, ['status', '--porcelain']);
  const t1 = now();
  await gitAsync(repo, ['worktree', 'remove', path]);
  return { unitMs: t1 - t0, removeMs: now() - t1 };
}

/** One run: `n` timed rounds (after a few untimed ones) against a fresh daemon. */
export async function overheadRun(n: number): Promise<OverheadRun> {
  const root = tempRoot();
  const repo = makeRepo(root);
  const handRepo = makeRepo(root, 'baseline-repo');
  const paths = prepare(root, QUIET_CONFIG, { one: commandWorkflow('one', 'true') });
  const daemon = await spawnDaemon(paths, { probe: true });
  const { api } = daemon;
  const watch = await RemoteWatcher.open(api);
  const out: OverheadRun = {
    svcDoneMs: [],
    svcArchivedMs: [],
    unitMs: [],
    unitRemovedMs: [],
    failed: 0,
    cpuPerTaskMs: 0,
  };
  try {
    const project = await api.call<{ id: number }>('POST', '/v1/projects', { path: repo });
    let cpu0 = 0;
    // A few untimed rounds warm both sides (JIT, page cache, git's own caches).
    for (let i = -5; i < n; i++) {
      if (i === 0) {
        const m = await daemon.probe({ cmd: 'mark' });
        cpu0 = m.user + m.system;
      }
      const t0 = now();
      const task = await api.call<{ id: number }>('POST', '/v1/tasks', {
        project_id: project.id,
        title: `overhead ${i}`,
        workflow: 'one',
      });
      const settled = await watch.until(task.id);
      const t1 = now();
      if (settled.to !== 'done') out.failed++;
      const unit = await handUnit(handRepo, join(root, 'wt'), i + 5);
      const t2 = now();
      await api.call('POST', `/v1/tasks/${task.id}/archive`);
      const archiveMs = now() - t2;
      if (i >= 0) {
        out.svcDoneMs.push(t1 - t0);
        out.svcArchivedMs.push(t1 - t0 + archiveMs);
        out.unitMs.push(unit.unitMs);
        out.unitRemovedMs.push(unit.unitMs + unit.removeMs);
      }
    }
    const m = await daemon.probe({ cmd: 'mark' });
    out.cpuPerTaskMs = (m.user + m.system - cpu0) / 1000 / n;
  } finally {
    await watch.close();
    await daemon.stop();
  }
  return out;
}

export async function overhead(n: number, runs: number): Promise<OverheadResult> {
  const quiet: OverheadRun[] = [];
  for (let r = 0; r < runs; r++) quiet.push(await overheadRun(n));
  const hog = startHog();
  const contended: OverheadRun[] = [];
  try {
    for (let r = 0; r < runs; r++) contended.push(await overheadRun(n));
  } finally {
    await hog.stop();
  }
  return { quiet, contended, hogs: hog.size };
}

export interface RunRatios {
  done: number;
  archived: number;
  svcDone: number;
  unit: number;
  svcArchived: number;
  unitRemoved: number;
}

/** The ratios of medians of one run. */
export function ratiosOf(r: OverheadRun): RunRatios {
  const svcDone = median(r.svcDoneMs);
  const unit = median(r.unitMs);
  const svcArchived = median(r.svcArchivedMs);
  const unitRemoved = median(r.unitRemovedMs);
  return {
    done: svcDone / unit,
    archived: svcArchived / unitRemoved,
    svcDone,
    unit,
    svcArchived,
    unitRemoved,
  };
}
