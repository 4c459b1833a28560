/** The hand-work baselines' building blocks: a shell command, and git's worktree steps queued. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { gitAsync } from './env.js';
import { now } from './stats.js';

export function sh(cwd: string, script = 'true'): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', script], { cwd, stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', () => resolve());
  });
}

/**
 * Runs what it is given one at a time, in order. git's worktree bookkeeping is not safe to run
 * concurrently in one repository (an add reads every other entry and fails on one half-written),
 * so the hand work queues it as svc does.
 */
export function serialQueue(): <T>(fn: () => Promise<T>) => Promise<T> {
  let queue: Promise<unknown> = Promise.resolve();
  return <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn, fn);
    queue = run.catch(() => {});
    return run;
  };
}

export interface HandWork {
  repo: string;
  /** Where the worktrees go. */
  dir: string;
  units: number;
  /** Units at a time, as svc's `max_parallel_tasks`. */
  workers: number;
  /** The unit's shell command. */
  script(i: number): string;
  /** Keep each worktree until the end (as svc keeps a done task's), or remove it in the unit. */
  keepWorktrees: boolean;
}

/**
 * Units of hand work (worktree add queued, the command, maybe the worktree remove queued), a few
 * workers at once, each taking the next unit as soon as its last one ends. Returns the wall time
 * and, per worker, each unit's end → the next unit's command starting.
 */
export async function handWork(w: HandWork): Promise<{ seconds: number; spawnMs: number[] }> {
  const serial = serialQueue();
  const spawnMs: number[] = [];
  const kept: string[] = [];
  let next = 0;
  const t0 = now();
  const worker = async () => {
    let endedAt: number | null = null;
    for (;;) {
      const i = next++;
      if (i >= w.units) return;
      const path = join(w.dir, `u${i}`);
      await serial(() =>
        gitAsync(w.repo, ['worktree', 'add', '--quiet', '-b', `bench/u${i}`, path, 'main']),
      );
      if (endedAt !== null) spawnMs.push(now() - endedAt);
      await sh(path, w.script(i));
      if (w.keepWorktrees) kept.push(path);
      else await serial(() => gitAsync(w.repo, ['worktree', 'remove', path]));
      endedAt = now();
    }
  };
  await Promise.all(Array.from({ length: w.workers }, worker));
  const seconds = (now() - t0) / 1000;
  for (const path of kept) await gitAsync(w.repo, ['worktree', 'remove', path]);
  return { seconds, spawnMs };
}
