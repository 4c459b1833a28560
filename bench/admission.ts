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
import { spawn } from 'node:child_process';
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
  const repo = makeRepo(root);
  const workflows = Object.fromEntries(
    SLEEPS.map((s, i) => [`sleep${i}`, commandWorkflow(`sleep${i}`, `sleep ${s}`)]),
  );
  const paths = prepare(root, `${QUIET_CONFIG}max_parallel_tasks: ${CAP}\n`, workflows);
  const { daemon, api } = await startInProcess(paths);
  const { events } = daemon.kernel.services;
  const watch = new TaskWatcher(events);
  const project = await api.call<{ id: number }>('POST', '/v1/projects', { path: repo });

  const freed: number[] = [];
  const pending = new Map<number, number>();
  const spawnMs: number[] = [];
  let running = 0;
  let maxRunning = 0;
  let fills = 0;
  const unsubscribe = events.subscribe((e) => {
    const t = now();
    if (e.task_id === null) return;
    if (e.kind === 'task.state_changed') {
      if (e.payload.to === 'running') {
        running++;
        maxRunning = Math.max(maxRunning, running);
        if (fills < CAP) fills++;
        else {
          const slot = freed.shift();
          if (slot !== undefined) pending.set(e.task_id, slot);
        }
      } else if (e.payload.from === 'running') {
        running--;
        freed.push(t);
      }
    } else if (e.kind === 'step.started') {
      const from = pending.get(e.task_id);
      if (from !== undefined) {
        spawnMs.push(t - from);
        pending.delete(e.task_id);
      }
    }
  });

  let failed = 0;
  try {
    const ids: number[] = [];
    for (let i = 0; i < n; i++) {
      const task = await api.call<{ id: number }>('POST', '/v1/tasks', {
        project_id: project.id,
        title: `steady ${i}`,
        workflow: `sleep${i % SLEEPS.length}`,
      });
      ids.push(task.id);
    }
    for (const id of ids) if ((await watch.settle(id)).payload.to !== 'done') failed++;
  } finally {
    unsubscribe();
    watch.close();
    await daemon.stop();
  }
  const baselineSpawnMs = await baseline(root, n);
  cleanup();
  return { tasks: n, spawnMs, baselineSpawnMs, maxRunning, failed };
}

async function baseline(root: string, n: number): Promise<number[]> {
  const repo = makeRepo(root, 'baseline-repo');
  const dir = join(root, 'baseline-wt');
  // git's worktree bookkeeping is not safe to run concurrently in one repository; svc queues it.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn, fn);
    queue = run.catch(() => {});
    return run;
  };
  const out: number[] = [];
  let next = 0;
  const worker = async () => {
    let endedAt: number | null = null;
    for (;;) {
      const i = next++;
      if (i >= n) return;
      const path = join(dir, `s${i}`);
      await serial(() =>
        gitAsync(repo, ['worktree', 'add', '--quiet', '-b', `bench/s${i}`, path, 'main']),
      );
      if (endedAt !== null) out.push(now() - endedAt);
      await sh(path, `sleep ${SLEEPS[i % SLEEPS.length]}`);
      endedAt = now();
      made.push(path);
    }
  };
  // svc keeps a done task's worktree until it is archived; the hand work keeps its own as long.
  const made: string[] = [];
  await Promise.all(Array.from({ length: CAP }, worker));
  for (const path of made) await gitAsync(repo, ['worktree', 'remove', path]);
  return out;
}

function sh(cwd: string, script: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', script], { cwd, stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', () => resolve());
  });
}
