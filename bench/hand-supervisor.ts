/**
 * The CPU baseline of bench/cpu.ts: the smallest supervisor that does a one-step task's process
 * work — `git worktree add` (queued, as svc queues it), `sh -c true` in the worktree and
 * `git status` after it — for `units` units, `workers` at a time, in a bare Node process of its
 * own, so its `process.cpuUsage()` is what starting and reaping those processes costs Node with
 * nothing else to do. svc's own CPU per task is read beside it: the difference is what svc adds
 * (HTTP, SQLite, events, transcripts, the engine) over the process starts any supervisor pays.
 *
 * usage: node hand-supervisor.js <repo> <dir> <units> <workers> <warm-up units>
 * prints one JSON line: {"user": µs, "system": µs, "seconds": s} over the units after warm-up.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

function run(file: string, args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    // Read what git prints, as svc does (status output is parsed there).
    child.stdout.on('data', () => {});
    child.stderr.on('data', () => {});
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${file} ${args[0]} exited ${code}`)),
    );
  });
}

async function main(): Promise<void> {
  const [repo, dir, unitsArg, workersArg, warmArg] = process.argv.slice(2);
  if (!repo || !dir)
    throw new Error('usage: hand-supervisor <repo> <dir> <units> <workers> <warm>');
  const units = Number(unitsArg);
  const workers = Number(workersArg);
  const warm = Number(warmArg);
  let queue: Promise<unknown> = Promise.resolve();
  const serial = (fn: () => Promise<void>): Promise<void> => {
    const p = queue.then(fn, fn);
    queue = p.catch(() => {});
    return p;
  };
  const unit = async (i: number): Promise<void> => {
    const path = join(dir, `c${i}`);
    await serial(() =>
      run('git', ['worktree', 'add', '--quiet', '-b', `cpu/c${i}`, path, 'main'], repo),
    );
    await run('/bin/sh', ['-c', 'true'], path);
    await run('git', ['status', '--porcelain=v1', '-z', '--untracked-files=normal'], path);
  };
  for (let i = 0; i < warm; i++) await unit(i);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let next = warm;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      for (let i = next++; i < warm + units; i = next++) await unit(i);
    }),
  );
  const c = process.cpuUsage(c0);
  process.stdout.write(
    `${JSON.stringify({ user: c.user, system: c.system, seconds: (performance.now() - t0) / 1000 })}\n`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(1);
});
