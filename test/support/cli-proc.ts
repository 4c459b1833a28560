/**
 * The built CLI (`node dist/bin/svc.js …`) as its own process, awaited without blocking this one:
 * a daemon run in the test's process must keep answering while the CLI talks to it, which
 * spawnSync would prevent. A process still running at `timeoutMs` is killed and reported as such,
 * so a command that hangs fails its test instead of the run.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { SVC_BIN } from './daemon-proc.js';

export interface CliRun {
  code: number | null;
  out: string;
  err: string;
  /** True when the process did not end by itself within the timeout. */
  timedOut: boolean;
}

export interface CliProc {
  child: ChildProcess;
  /** Everything printed so far. */
  out(): string;
  err(): string;
  done: Promise<CliRun>;
}

export function startSvc(
  env: NodeJS.ProcessEnv,
  args: string[],
  opts: { timeoutMs?: number; input?: string } = {},
): CliProc {
  const child = spawn(process.execPath, [SVC_BIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (b: Buffer) => {
    out += b.toString('utf8');
  });
  child.stderr?.on('data', (b: Buffer) => {
    err += b.toString('utf8');
  });
  if (opts.input !== undefined) child.stdin?.end(opts.input);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, opts.timeoutMs ?? 20_000);
  const done = new Promise<CliRun>((resolve) => {
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out: out.trim(), err: err.trim(), timedOut });
    });
  });
  return { child, out: () => out, err: () => err, done };
}

/** Runs the built CLI to its end (or the timeout). */
export function svcAsync(
  env: NodeJS.ProcessEnv,
  args: string[],
  opts: { timeoutMs?: number; input?: string } = {},
): Promise<CliRun> {
  return startSvc(env, args, opts).done;
}
