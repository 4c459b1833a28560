/**
 * Throughput under caps: N one-step tasks created in one burst under `max_parallel_tasks: 8`,
 * tasks per second from the first create to the last done, and admission latency — from the
 * moment a task could take a slot (it is queued and a slot is free) to it being admitted
 * (`running`) and to its step's process being started (`step.started`, written just before the
 * spawn; the worktree is cut in between). Baseline: the same units of hand work (worktree add, sh, worktree remove) run 8 at a
 * time, and the time from one unit ending to the next unit's `sh` starting.
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
import { now } from './lib/stats.js';
import { TaskWatcher } from './lib/watch.js';
import { baselineUnit } from './overhead.js';

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
  const repo = makeRepo(root);
  const paths = prepare(root, `${QUIET_CONFIG}max_parallel_tasks: ${CAP}\n`, {
    one: commandWorkflow('one', 'true'),
  });
  const { daemon, api } = await startInProcess(paths);
  const { events } = daemon.kernel.services;
  const watch = new TaskWatcher(events);
  const project = await api.call<{ id: number }>('POST', '/v1/projects', { path: repo });

  // A task becomes admissible when it is queued and a slot is free for it; admissions take slots
  // in the order they freed. Latency counts from the later of the two, so an idle gap between
  // bursts (no task waiting) is not mistaken for scheduler delay.
  const freeSlots: number[] = Array.from({ length: CAP }, () => 0);
  const queuedAt = new Map<number, number>();
  const eligibleAt = new Map<number, number>();
  const admitMs: number[] = [];
  const spawnMs: number[] = [];
  let running = 0;
  let maxRunning = 0;
  const unsubscribe = events.subscribe((e) => {
    const t = now();
    if (e.task_id === null) return;
    if (e.kind === 'task.created') queuedAt.set(e.task_id, t);
    else if (e.kind === 'task.state_changed') {
      if (e.payload.to === 'running') {
        running++;
        maxRunning = Math.max(maxRunning, running);
        const slot = freeSlots.shift() ?? t;
        const from = Math.max(slot, queuedAt.get(e.task_id) ?? t);
        admitMs.push(t - from);
        eligibleAt.set(e.task_id, from);
      } else if (e.payload.from === 'running') {
        running--;
        freeSlots.push(t);
      }
    } else if (e.kind === 'step.started') {
      const from = eligibleAt.get(e.task_id);
      if (from !== undefined) {
        spawnMs.push(t - from);
        eligibleAt.delete(e.task_id);
      }
    }
  });

  let failed = 0;
  let seconds = 0;
  try {
    const t0 = now();
    const ids: number[] = [];
    let next = 0;
    // A burst: a few clients creating at once, as a script or a trigger storm would.
    const creator = async () => {
      for (let i = next++; i < n; i = next++) {
        const task = await api.call<{ id: number }>('POST', '/v1/tasks', {
          project_id: project.id,
          title: `throughput ${i}`,
          workflow: 'one',
        });
        ids.push(task.id);
      }
    };
    await Promise.all(Array.from({ length: CREATORS }, creator));
    for (const id of ids) if ((await watch.settle(id)).payload.to !== 'done') failed++;
    seconds = (now() - t0) / 1000;
  } finally {
    unsubscribe();
    watch.close();
    await daemon.stop();
  }

  const base = await baselineThroughput(root, n);
  cleanup();
  return {
    tasks: n,
    seconds,
    baselineSeconds: base.seconds,
    admitMs,
    spawnMs,
    baselineSpawnMs: base.spawnMs,
    maxRunning,
    failed,
  };
}

/** The hand-work units, CAP at a time; a worker picks the next unit as soon as one ends. */
async function baselineThroughput(root: string, n: number) {
  const repo = makeRepo(root, 'baseline-repo');
  const dir = join(root, 'baseline-wt');
  let next = 0;
  // git's worktree administration is not safe to run concurrently in one repository (an add
  // reads every other entry and fails on one half-written), so the hand work queues it too.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn, fn);
    queue = run.catch(() => {});
    return run;
  };
  const spawnMs: number[] = [];
  const t0 = now();
  const worker = async () => {
    let endedAt: number | null = null;
    for (;;) {
      const i = next++;
      if (i >= n) return;
      const path = join(dir, `b${i}`);
      await serial(() =>
        gitAsync(repo, ['worktree', 'add', '--quiet', '-b', `bench/b${i}`, path, 'main']),
      );
      if (endedAt !== null) spawnMs.push(now() - endedAt);
      await baselineSh(path);
      await serial(() => gitAsync(repo, ['worktree', 'remove', path]));
      endedAt = now();
    }
  };
  await Promise.all(Array.from({ length: CAP }, worker));
  return { seconds: (now() - t0) / 1000, spawnMs };
}

async function baselineSh(cwd: string): Promise<void> {
  const { spawn } = await import('node:child_process');
  await new Promise<void>((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', 'true'], { cwd, stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', () => resolve());
  });
}

export { baselineUnit };
