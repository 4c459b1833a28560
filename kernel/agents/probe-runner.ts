/**
 * The one way an adapter's probes run its binary (contract `ProbeRunner`, decision 110): argv only,
 * in its own process group, with the environment policy plus the probe's own variables, stdin
 * written then closed (or kept open until `until` sees the answer), a hard timeout that kills the
 * whole tree, and bounded output. It never throws. Bounds are wall-clock on purpose (decision 041):
 * a probe is a safety net against a hung CLI, not a behaviour tests drive with the fake clock.
 */
import { SystemClock } from '../clock/index.js';
import type { ProbeCommand, ProbeOutcome, ProbeRunner } from '../plugin/index.js';
import { startProcess } from '../proc/index.js';

/** After `until` is satisfied and stdin closed, how long the CLI gets to exit on its own. */
export const UNTIL_EXIT_GRACE_MS = 3_000;
const OUTPUT_CAP = 4 * 1024 * 1024;
const wallClock = new SystemClock();

export function probeRunner(
  binary: string,
  env: Record<string, string>,
  fallbackCwd: string,
): ProbeRunner {
  return (command: ProbeCommand) =>
    new Promise<ProbeOutcome>((resolve) => {
      let stdout = '';
      let stderr = '';
      let satisfied = false;
      const decoder = { out: new TextDecoder(), err: new TextDecoder() };
      const keepOpen = command.until !== undefined;
      const proc = startProcess({
        file: binary,
        args: [...command.args],
        cwd: command.cwd ?? fallbackCwd,
        env: { ...env, ...command.env },
        stdin: keepOpen ? 'keep-open' : (command.stdin ?? ''),
        initialStdin: keepOpen ? command.stdin : undefined,
        timeoutMs: command.timeout_ms,
        clock: wallClock,
        killGraceMs: 1_000,
        onStdout: (c) => {
          if (stdout.length < OUTPUT_CAP) stdout += decoder.out.decode(c, { stream: true });
          if (!satisfied && command.until?.(stdout)) {
            satisfied = true;
            proc.stdin?.end();
            wallClock.setTimer(UNTIL_EXIT_GRACE_MS, () => proc.terminate());
          }
        },
        onStderr: (c) => {
          if (stderr.length < OUTPUT_CAP) stderr += decoder.err.decode(c, { stream: true });
        },
      });
      proc.done.then(
        (r) => {
          if (r.spawnError && r.exitCode === null && r.signal === null)
            resolve({ kind: 'spawn_failed', message: r.spawnError.message });
          else if (r.timedOut && !satisfied) resolve({ kind: 'timed_out', stdout, stderr });
          else resolve({ kind: 'exited', code: r.exitCode, signal: r.signal, stdout, stderr });
        },
        (err: unknown) => resolve({ kind: 'spawn_failed', message: String(err) }),
      );
    });
}
