/**
 * Admission at a steady pace: slot free → the next task's step spawned, when slots free one at a
 * time as they do in use, not all at once. Steps sleep for four lengths in the ratio 2:3:4:5 (four
 * workflows, by task), so after the first fill the eight tasks end at different moments; the queue
 * is kept long so every slot that frees has a task waiting. Only admissions caused by a slot
 * freeing count — the first eight fill free slots and measure creation, not admission. Baseline:
 * the same units by hand (worktree add queued per repository as svc does, then the sleep;
 * worktrees kept, as svc keeps a done task's), from a unit's end to the next unit's `sh` in the
 * same worker.
 *
 * "Steady" means the repository can cut worktrees faster than slots free: one repository runs one
 * `git worktree add` at a time, so when slots free faster than that, every admission waits in
 * git's queue whatever the supervisor does (by hand too) — the throughput section's saturated
 * figure, reported there. The pace is therefore set from this host's git: the run's adds are timed
 * first in a scratch repository (as many as the run has tasks, kept, as the run keeps them), and
 * the steps are long enough that git is busy at most half the run (0.2–0.5 s where git is quick,
 * longer where it is not). The pace chosen is reported beside the figure.
 */
import { join } from 'node:path';
import { cappedRun } from './lib/capped.js';
import { cleanup, commandWorkflow, gitAsync, makeRepo, tempRoot } from './lib/env.js';
import { handWork } from './lib/hand.js';
import { now } from './lib/stats.js';

const CAP = 8;
/** Step lengths where git is quick, seconds; their mean is 0.35 s. */
const SHORTEST = [0.2, 0.3, 0.4, 0.5];
/** The share of the run git may be busy cutting worktrees for the pace to count as steady. */
const GIT_SHARE = 0.5;

export interface AdmissionResult {
  tasks: number;
  /** The steps' lengths, seconds, as chosen from this host's git. */
  sleeps: number[];
  /** This host's `git worktree add` for the run's tasks, one after another, mean ms. */
  addMs: number;
  /** Slot freed (a task left running) → the next admitted task's step started. */
  spawnMs: number[];
  /** Baseline: a unit ended → the next unit's `sh` started, in the same worker. */
  baselineSpawnMs: number[];
  maxRunning: number;
  failed: number;
}

export async function steadyAdmission(n: number): Promise<AdmissionResult> {
  const root = tempRoot();
  const addMs = await meanAddMs(root, n);
  const sleeps = paceFor(addMs);
  const run = await cappedRun({
    root,
    cap: CAP,
    workflows: Object.fromEntries(
      sleeps.map((s, i) => [`sleep${i}`, commandWorkflow(`sleep${i}`, `sleep ${s}`)]),
    ),
    fills: 'skip',
    create: async (post) => {
      const ids: number[] = [];
      for (let i = 0; i < n; i++) ids.push(await post(`steady ${i}`, `sleep${i % sleeps.length}`));
      return ids;
    },
  });
  const baselineSpawnMs = await baseline(root, n, sleeps);
  cleanup();
  return {
    tasks: n,
    sleeps,
    addMs,
    spawnMs: run.admissions.spawnMs,
    baselineSpawnMs,
    maxRunning: run.admissions.maxRunning,
    failed: run.failed,
  };
}

/**
 * Step lengths at which slots free, on average, no faster than every `addMs / GIT_SHARE`: with
 * `CAP` steps running, one frees every mean length / `CAP`.
 */
export function paceFor(addMs: number): number[] {
  const mean = SHORTEST.reduce((a, b) => a + b, 0) / SHORTEST.length;
  const needed = (CAP * addMs) / GIT_SHARE / 1000;
  const scale = Math.max(1, needed / mean);
  return SHORTEST.map((s) => Math.round(s * scale * 100) / 100);
}

/** `n` worktrees added one after another to a fresh repository and kept, as the run will: mean ms. */
async function meanAddMs(root: string, n: number): Promise<number> {
  const repo = makeRepo(root, 'pace-repo');
  const t0 = now();
  for (let i = 0; i < n; i++)
    await gitAsync(repo, [
      'worktree',
      'add',
      '--quiet',
      '-b',
      `pace/u${i}`,
      join(root, 'pace-wt', `u${i}`),
      'main',
    ]);
  return (now() - t0) / n;
}

async function baseline(root: string, n: number, sleeps: number[]): Promise<number[]> {
  const run = await handWork({
    repo: makeRepo(root, 'baseline-repo'),
    dir: join(root, 'baseline-wt'),
    units: n,
    workers: CAP,
    script: (i) => `sleep ${sleeps[i % sleeps.length]}`,
    keepWorktrees: true,
  });
  return run.spawnMs;
}
