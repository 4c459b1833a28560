/**
 * Admission at a steady pace: slot free → the next task's step spawned, when slots free one at a
 * time as they do in use, not all at once. Steps sleep 0.2–0.5 s (four workflows, by task), so
 * after the first fill the eight tasks end at different moments; the queue is kept long so every
 * slot that frees has a task waiting. Only admissions caused by a slot freeing count — the first
 * eight fill free slots and measure creation, not admission. Baseline: the same units by hand
 * (worktree add queued per repository as svc does, then the sleep; worktrees kept, as svc keeps a
 * done task's), from a unit's end to the next unit's `sh` in the same worker.
 *
 * The throughput section's `true` steps instead keep all eight slots waiting on the repository's
 * worktree queue at once; its slot-free → spawned figure measures that queue (docs/performance.md).
 */
import { join } from 'node:path';
import { cappedRun } from './lib/capped.js';
import { cleanup, commandWorkflow, makeRepo, tempRoot } from './lib/env.js';
import { handWork } from './lib/hand.js';

const CAP = 8;
const SLEEPS = ['0.2', '0.3', '0.4', '0.5'];

export interface AdmissionResult {
  tasks: number;
  /** Slot freed (a task left running) → the next admitted task's step started. */
  spawnMs: number[];
  /** Baseline: a unit ended → the next unit's `sh` started, in the same worker. */
  baselineSpawnMs: number[];
  maxRunning: number;
  failed: number;
}

export async function steadyAdmission(n: number): Promise<AdmissionResult> {
  const root = tempRoot();
  const run = await cappedRun({
    root,
    cap: CAP,
    workflows: Object.fromEntries(
      SLEEPS.map((s, i) => [`sleep${i}`, commandWorkflow(`sleep${i}`, `sleep ${s}`)]),
    ),
    fills: 'skip',
    create: async (post) => {
      const ids: number[] = [];
      for (let i = 0; i < n; i++) ids.push(await post(`steady ${i}`, `sleep${i % SLEEPS.length}`));
      return ids;
    },
  });
  const baselineSpawnMs = await baseline(root, n);
  cleanup();
  return {
    tasks: n,
    spawnMs: run.admissions.spawnMs,
    baselineSpawnMs,
    maxRunning: run.admissions.maxRunning,
    failed: run.failed,
  };
}

async function baseline(root: string, n: number): Promise<number[]> {
  const run = await handWork({
    repo: makeRepo(root, 'baseline-repo'),
    dir: join(root, 'baseline-wt'),
    units: n,
    workers: CAP,
    script: (i) => `sleep ${SLEEPS[i % SLEEPS.length]}`,
    keepWorktrees: true,
  });
  return run.spawnMs;
}
