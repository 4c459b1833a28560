/**
 * One process of a step attempt or a chat turn, logged: the environment (policy, then the owner's
 * variables, then the request's), the `command_started` annotation, output lines into the
 * transcript (raw for an agent's own stream, `svc.output` lines otherwise), the container wrapper
 * when the owner runs containerized (SPEC §2.10), the process-group kill on cancel and timeout, and
 * a handle for interactive stdin. Shared by attempts (attempt.ts) and chat turns (decision 160),
 * so a turn runs under exactly the rules a step does.
 */
import { writeFileSync } from 'node:fs';
import type { Clock } from '../clock/index.js';
import type { Config } from '../config/index.js';
import { type ContainerSettings, killContainer, wrapInContainer } from '../container/index.js';
import type { SpawnOutcome, SpawnRequest } from '../plugin/index.js';
import {
  LineSplitter,
  resolveEnvironment,
  startProcess,
  type TranscriptWriter,
} from '../proc/index.js';

export interface LoggedSpawn {
  transcript: TranscriptWriter;
  /** Timestamps for transcript lines (the daemon clock, nanoseconds). */
  ts(): string;
  clock: Clock;
  config: Config;
  cwd: string;
  /** The owner's variables (a step's SVC_*), between the policy and the request's own. */
  vars: Record<string, string>;
  /** Non-null: run inside a container of these settings, named `containerName()`. */
  container: ContainerSettings | null;
  containerName(): string;
  /** Host paths mounted at their own path (the project repository and the worktree). */
  mounts: string[];
  /** Host paths mounted read-only at their own path (the scratch directory with the MCP config). */
  readOnlyMounts?: string[];
  /** Aborts the process (cancel, shutdown, transcript latch). */
  signal: AbortSignal;
  /** True when the abort was a cancel or shutdown, not a latch: the outcome says `cancelled`. */
  cancelled(): boolean;
  /** Each `svc.output` line written (lines mode), with the transcript offset after it. */
  onOutput?(line: { phase: string; stream: string; text: string; offset: number }): void;
  onSpawn?(pid: number, startTicks: string | null): void;
  /** The owner's attempt marker (decision 182): cancel, timeout and stop reach every descendant. */
  mark?: string;
  /** The running process, or null once it ended (pause the timeout around an input wait). */
  onProcess?(proc: { pauseTimeout(): void; resumeTimeout(): void } | null): void;
}

const tailLines = (text: string, lines: number, maxBytes = 16 * 1024): string => {
  let out = text.split('\n').slice(-lines).join('\n');
  if (Buffer.byteLength(out) > maxBytes) out = out.slice(-maxBytes);
  return out;
};

export async function spawnLogged(s: LoggedSpawn, req: SpawnRequest): Promise<SpawnOutcome> {
  const { config, transcript, ts } = s;
  const baseEnv = resolveEnvironment(config.environment);
  const env = { ...baseEnv, ...s.vars, ...(req.env ?? {}) };
  for (const f of req.files ?? []) writeFileSync(f.path, f.content, { mode: 0o600 });
  transcript.annotate(
    'command_started',
    { phase: req.phase, command: req.display ?? [req.file, ...req.args].join(' '), cwd: s.cwd },
    ts(),
  );
  const raw = req.stdoutMode === 'raw';
  const split = { stdout: new LineSplitter(), stderr: new LineSplitter() };
  let combined = '';
  let stderrTail = '';
  const onLine = (stream: 'stdout' | 'stderr') => (text: string) => {
    if (stream === 'stderr') stderrTail = `${stderrTail}${text}\n`.slice(-64 * 1024);
    if (raw && stream === 'stdout') {
      transcript.write(text);
      req.onStdoutLine?.(text);
      return;
    }
    if (raw && stream === 'stderr') {
      transcript.write({ type: 'svc.stderr', ts: ts(), text });
      return;
    }
    combined += `${text}\n`;
    if (combined.length > 256 * 1024) combined = combined.slice(-128 * 1024);
    const offset = transcript.write({
      type: 'svc.output',
      ts: ts(),
      phase: req.phase,
      stream,
      text,
    });
    if (offset !== null) s.onOutput?.({ phase: req.phase, stream, text, offset });
  };
  let launch = { file: req.file, args: req.args, env };
  let onTerminate: (() => void) | undefined;
  if (s.container) {
    // A containerized process reads `environment.inherit: all` as none (SPEC §2.10).
    const inside = {
      ...resolveEnvironment({
        ...config.environment,
        inherit: config.environment.inherit === 'all' ? 'none' : config.environment.inherit,
      }),
      ...s.vars,
      ...(req.env ?? {}),
    };
    const name = s.containerName();
    launch = wrapInContainer({
      settings: s.container,
      name,
      file: req.containerFile ?? req.file,
      args: req.args,
      cwd: s.cwd,
      env: inside,
      clientEnv: baseEnv,
      mounts: s.mounts,
      ...(s.readOnlyMounts && s.readOnlyMounts.length > 0
        ? { readOnlyMounts: s.readOnlyMounts }
        : {}),
      interactive: req.interactive === true,
    });
    const runtime = s.container.runtime;
    onTerminate = () => killContainer(runtime, name);
  }
  const proc = startProcess({
    file: launch.file,
    args: launch.args,
    cwd: s.cwd,
    env: launch.env,
    onTerminate,
    stdin: req.interactive ? 'keep-open' : req.stdin,
    initialStdin: req.interactive ? req.stdin : undefined,
    timeoutMs: req.timeoutMs,
    signal: s.signal,
    clock: s.clock,
    onStdout: (c) => split.stdout.push(c, onLine('stdout')),
    onStderr: (c) => split.stderr.push(c, onLine('stderr')),
    mark: s.mark,
  });
  try {
    if (proc.pid !== undefined) s.onSpawn?.(proc.pid, proc.startTicks);
  } catch (err) {
    // The pid could not be journaled (a full disk): a process nobody could find after a crash is
    // not left running (decision 180).
    proc.terminate();
    await proc.done;
    throw err;
  }
  s.onProcess?.(proc);
  req.onStart?.({
    write: (text) => {
      proc.stdin?.write(text);
    },
    closeStdin: () => {
      proc.stdin?.end();
    },
    terminate: () => proc.terminate(),
    pauseTimeout: () => proc.pauseTimeout(),
    resumeTimeout: () => proc.resumeTimeout(),
  });
  const r = await proc.done;
  s.onProcess?.(null);
  split.stdout.flush(onLine('stdout'));
  split.stderr.flush(onLine('stderr'));
  return {
    exit_code: r.exitCode,
    signal: r.signal,
    timed_out: r.timedOut,
    cancelled: r.aborted && s.cancelled(),
    transcript_limited: transcript.latched,
    spawn_error: r.spawnError ? `${r.spawnError.code ?? 'error'}: ${r.spawnError.message}` : null,
    tail: tailLines(combined.replace(/\n$/, ''), 200),
    stderr_tail: stderrTail,
  };
}
