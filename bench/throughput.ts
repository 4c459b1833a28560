/**
 * Throughput under caps: N one-step tasks created in one burst under `max_parallel_tasks: 8`,
 * tasks per second from the first create to the last done, and admission latency — from the
 * moment a task could take a slot (it is queued and a slot is free) to it being admitted
 * (`running`) and to its step's process being started (`step.started`, written just before the
 * spawn; the worktree is cut in between, or ahead while the task waited: decision 159). Baseline:
 * the same units of hand work (worktree add, sh) run 8 at a time, and the time from one unit
 * ending to the next unit's `sh` starting. The hand work keeps its worktrees as svc keeps a done
 * task's: `git worktree add` reads every registered worktree, so a baseline that removed its own
 * would time adds against eight worktrees where svc's meet up to five hundred.
 */
import { join } from 'node:path';
import { cappedRun } from './lib/capped.js';
import { cleanup, commandWorkflow, makeRepo, tempRoot } from './lib/env.js';
import { handWork } from './lib/hand.js';

export interface ThroughputResult {
  tasks: number;
  seconds: number;
  baselineSeconds: number;
  /** Slot freed → next task running (the scheduler's own latency). */
  admitMs: number[];
  /** Slot freed → next task's step started (admission checks and the worktree included). */
  spawnMs: number[];
  /** Baseline: one unit ended → the next unit's worktree add done and its sh started. */
  baselineSpawnMs: number[];
  maxRunning: number;
  failed: number;
}

const CAP = 8;
const CREATORS = 4;

export async function throughput(n: number): Promise<ThroughputResult> {
  const root = tempRoot();
  const run = await cappedRun({
    root,
    cap: CAP,
    workflows: { one: commandWorkflow('one', 'true') },
    fills: 'count',
    // A burst: a few clients creating at once, as a script or a trigger storm would.
    create: async (post) => {
      const ids: number[] = [];
      let next = 0;
      const creator = async () => {
        for (let i = next++; i < n; i = next++) ids.push(await post(`throughput ${i}`, 'one'));
      };
      await Promise.all(Array.from({ length: CREATORS }, creator));
      return ids;
    },
  });
  const base = await baselineThroughput(root, n);
  cleanup();
  return {
    tasks: n,
    seconds: run.seconds,
    baselineSeconds: base.seconds,
    admitMs: run.admissions.admitMs,
    spawnMs: run.admissions.spawnMs,
    baselineSpawnMs: base.spawnMs,
    maxRunning: run.admissions.maxRunning,
    failed: run.failed,
  };
}

/** The hand-work units, CAP at a time; a worker picks the next unit as soon as one ends. */
function baselineThroughput(root: string, n: number) {
  return handWork({
    repo: makeRepo(root, 'baseline-repo'),
    dir: join(root, 'baseline-wt'),
    units: n,
    workers: CAP,
    script: () => 'true',
    keepWorktrees: true,
  });
}
