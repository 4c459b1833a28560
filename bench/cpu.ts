/**
 * svc's own CPU per one-step task (issue 22 point 2): the daemon in its own process, 500 one-step
 * tasks (`run: "true"`) created by four clients at once under `max_parallel_tasks: 4`, each waited
 * on through the event stream; the daemon's `process.cpuUsage()` (user + system of its threads,
 * plus its spawner's, decision 247 — not the git and shell processes they start) from the first
 * create to the last task done, divided by the tasks. No list polling.
 *
 * The baseline (bench/hand-supervisor.ts): a bare Node process doing the same process work — the
 * worktree add, the shell, the status — for as many units, four at a time, after the same warm-up.
 * Forking is the largest cost of both on some hosts; the difference is what svc itself adds.
 *
 * The budget: the same load again in a daemon running the plain tsc output (so a profile names
 * each module), with a CPU profile of the main thread over the tasks, cut into parts
 * (bench/lib/budget.ts) and divided by the tasks.
 */
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { budget, type CpuProfile, type Part } from './lib/budget.js';
import {
  type ChildDaemon,
  commandWorkflow,
  makeRepo,
  prepare,
  QUIET_CONFIG,
  spawnDaemon,
  tempRoot,
} from './lib/env.js';
import { RemoteWatcher } from './lib/remote-watch.js';
import { now } from './lib/stats.js';

const CAP = 4;
const CREATORS = 4;

export interface CpuResult {
  tasks: number;
  /** Daemon CPU (user + system) per task, milliseconds. */
  cpuPerTaskMs: number;
  userPerTaskMs: number;
  systemPerTaskMs: number;
  /** Of the CPU per task, the spawner's (decision 247): the forks of the task's programs. */
  spawnerPerTaskMs: number;
  seconds: number;
  failed: number;
  /** Main-thread milliseconds per task by part, from the profiled run. */
  budget: Record<Part, number>;
  /** CPU per task of the profiled run (the profiler's own cost included). */
  profiledCpuPerTaskMs: number;
  /** The bare Node supervisor's CPU per unit of the same process work (bench/hand-supervisor.ts). */
  baselineCpuPerUnitMs: number;
  baselineUserPerUnitMs: number;
  baselineSystemPerUnitMs: number;
}

const WARM = 20;

/** The hand supervisor's CPU over `n` units after the warm-up, in a process of its own. */
function handCpu(n: number): Promise<{ user: number; system: number }> {
  const root = tempRoot();
  const repo = makeRepo(root);
  const dir = join(root, 'wt');
  mkdirSync(dir);
  const script = join(dirname(fileURLToPath(import.meta.url)), 'hand-supervisor.js');
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [script, repo, dir, String(n), String(CAP), String(WARM)],
      (err, stdout) => {
        if (err) return reject(err);
        try {
          const r = JSON.parse(stdout) as { user: number; system: number };
          resolve({ user: r.user / 1000 / n, system: r.system / 1000 / n });
        } catch (e) {
          // A throw in this callback would end the whole bench instead of this section.
          reject(e);
        }
      },
    );
  });
}

async function load(
  n: number,
  unbundled: boolean,
  during?: (d: ChildDaemon) => Promise<void>,
  after?: (d: ChildDaemon) => Promise<void>,
) {
  const root = tempRoot();
  const repo = makeRepo(root);
  const paths = prepare(root, `${QUIET_CONFIG}max_parallel_tasks: ${CAP}\n`, {
    one: commandWorkflow('one', 'true'),
  });
  const daemon = await spawnDaemon(paths, { probe: true, unbundled });
  const watch = await RemoteWatcher.open(daemon.api);
  let failed = 0;
  try {
    const project = await daemon.api.call<{ id: number }>('POST', '/v1/projects', { path: repo });
    const post = async (title: string) =>
      (
        await daemon.api.call<{ id: number }>('POST', '/v1/tasks', {
          project_id: project.id,
          title,
          workflow: 'one',
        })
      ).id;
    for (let i = 0; i < WARM; i++) await watch.until(await post(`warm ${i}`));
    await during?.(daemon);
    const m0 = await daemon.probe({ cmd: 'mark' });
    const t0 = now();
    let next = 0;
    const ids: number[] = [];
    await Promise.all(
      Array.from({ length: CREATORS }, async () => {
        for (let i = next++; i < n; i = next++) ids.push(await post(`cpu ${i}`));
      }),
    );
    for (const id of ids) if ((await watch.until(id)).to !== 'done') failed++;
    const m1 = await daemon.probe({ cmd: 'mark' });
    const seconds = (now() - t0) / 1000;
    await after?.(daemon);
    return {
      user: (m1.user - m0.user) / 1000 / n,
      system: (m1.system - m0.system) / 1000 / n,
      spawner: (m1.spawnerCpu - m0.spawnerCpu) / 1000 / n,
      seconds,
      failed,
      root,
    };
  } finally {
    await watch.close();
    await daemon.stop();
  }
}

/** `keep`: where to leave the profile (`npm run bench -- --only cpu --profile x.cpuprofile`). */
export async function cpuPerTask(n: number, keep?: string): Promise<CpuResult> {
  // The baseline first and right after svc's plain run: the two CPU figures share the host's state.
  const hand = await handCpu(n);
  const plain = await load(n, false);
  let profile: CpuProfile | null = null;
  const file = keep ?? join(tempRoot(), 'daemon.cpuprofile');
  const profiled = await load(
    n,
    true,
    async (d) => {
      await d.probe({ cmd: 'profile-start', intervalUs: 250 });
    },
    async (d) => {
      await d.probe({ cmd: 'profile-stop', file });
      profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
    },
  );
  const parts = budget(profile as unknown as CpuProfile);
  for (const k of Object.keys(parts) as Part[]) parts[k] /= n;
  return {
    tasks: n,
    cpuPerTaskMs: plain.user + plain.system,
    userPerTaskMs: plain.user,
    systemPerTaskMs: plain.system,
    spawnerPerTaskMs: plain.spawner,
    seconds: plain.seconds,
    failed: plain.failed + profiled.failed,
    budget: parts,
    profiledCpuPerTaskMs: profiled.user + profiled.system,
    baselineCpuPerUnitMs: hand.user + hand.system,
    baselineUserPerUnitMs: hand.user,
    baselineSystemPerUnitMs: hand.system,
  };
}
