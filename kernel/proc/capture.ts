/**
 * Runs a short-lived program to completion and captures its output (trigger commands, the forge
 * CLI): argv only, the process group killed on timeout or abort, output bounded so a runaway
 * program cannot fill the daemon's memory. Every outcome is a value; nothing here throws.
 */
import type { Clock } from '../clock/index.js';
import { startProcess } from './spawn.js';

export interface CaptureSpec {
  argv: readonly string[];
  cwd: string;
  env: Record<string, string>;
  clock: Clock;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Bytes kept of stdout (and separately of stderr); past it the process is terminated. */
  maxOutputBytes?: number;
  stdin?: string;
}

export interface CaptureResult {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Why the program could not start (`ENOENT: …`), or null. */
  spawnError: string | null;
  /** Output went past `maxOutputBytes` and the process was stopped. */
  overflow: boolean;
}

export const DEFAULT_CAPTURE_BYTES = 4 * 1024 * 1024;

export async function capture(spec: CaptureSpec): Promise<CaptureResult> {
  const [file, ...args] = spec.argv;
  if (!file)
    return {
      code: null,
      stdout: '',
      stderr: '',
      timedOut: false,
      spawnError: 'empty argv',
      overflow: false,
    };
  const max = spec.maxOutputBytes ?? DEFAULT_CAPTURE_BYTES;
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  let outBytes = 0;
  let errBytes = 0;
  let overflow = false;
  const proc = startProcess({
    file,
    args,
    cwd: spec.cwd,
    env: spec.env,
    clock: spec.clock,
    timeoutMs: spec.timeoutMs,
    signal: spec.signal,
    stdin: spec.stdin ?? '',
    killGraceMs: 2000,
    onStdout: (c) => {
      if (outBytes + c.length > max) {
        overflow = true;
        proc.terminate();
        return;
      }
      outBytes += c.length;
      out.push(c);
    },
    onStderr: (c) => {
      if (errBytes + c.length > 64 * 1024) return;
      errBytes += c.length;
      err.push(c);
    },
  });
  const r = await proc.done;
  return {
    code: r.exitCode,
    stdout: Buffer.concat(out).toString('utf8'),
    stderr: Buffer.concat(err).toString('utf8'),
    timedOut: r.timedOut,
    spawnError: r.spawnError ? `${r.spawnError.code ?? 'error'}: ${r.spawnError.message}` : null,
    overflow,
  };
}
