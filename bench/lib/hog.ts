/**
 * A CPU hog beside a measurement, as a user's busy laptop is (issue 22): busy loops on every core
 * but one, started and stopped by the bench itself so the contended runs need no setup.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { cpus } from 'node:os';

export interface Hog {
  /** Busy processes running. */
  readonly size: number;
  stop(): Promise<void>;
}

export function startHog(loops = Math.max(1, cpus().length - 1)): Hog {
  const children: ChildProcess[] = [];
  for (let i = 0; i < loops; i++)
    children.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  return {
    size: loops,
    stop: async () => {
      await Promise.all(
        children.map(
          (c) =>
            new Promise<void>((resolve) => {
              if (c.exitCode !== null || c.signalCode !== null) return resolve();
              c.once('exit', () => resolve());
              c.kill('SIGKILL');
            }),
        ),
      );
    },
  };
}
