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
import type { SpawnOutcome, SpawnRequest } from '../plugin/index.js';
import {
  LineSplitter,
  type OutputBatch,
  OutputLines,
  OutputQueue,
  OutputTail,
  type RunningProcess,
  resolveEnvironment,
  startProcess,
  TRANSCRIPT_HIGH_WATER,
  type TranscriptWriter,
  tailLines,
} from '../proc/index.js';
import { type ContainerSettings, killContainer, wrapInContainer } from '../sandbox/index.js';

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
  /**
   * The `svc.output` lines of one chunk of output once written (lines mode): their texts joined
   * with `\n`, and the transcript offset after the last (decision 232). `text` is decoded when
   * first read (decision 251): a listener with no stream to feed should not read it.
   */
  onOutput?(line: { phase: string; stream: string; readonly text: string; offset: number }): void;
  onSpawn?(pid: number, startTicks: string | null): void;
  /**
   * Resolves once the transcript's first line is on disk (decision 258): the process starts only
   * then, and not at all when the transcript could not be written.
   */
  ready?(): Promise<void>;
  /** The owner's attempt marker (decision 182): cancel, timeout and stop reach every descendant. */
  mark?: string;
  /** The running process, or null once it ended (pause the timeout around an input wait). */
  onProcess?(proc: { pauseTimeout(): void; resumeTimeout(): void } | null): void;
}

/** The texts of a batch's lines held in its first `taken` bytes (a transcript that latched mid-batch). */
function firstLines(batch: OutputBatch, taken: number): string {
  let n = 0;
  for (let i = batch.bytes.indexOf(0x0a); i >= 0 && i < taken; i = batch.bytes.indexOf(0x0a, i + 1))
    n++;
  return batch.text.split('\n').slice(0, n).join('\n');
}

/** The outcome of a process never started: its transcript refused its first line. */
function notStarted(s: LoggedSpawn, why: string): SpawnOutcome {
  return {
    exit_code: null,
    signal: null,
    timed_out: false,
    cancelled: s.cancelled(),
    transcript_limited: s.transcript.latched,
    spawn_error: why,
    tail: '',
    stderr_tail: '',
  };
}

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
  // Result tails keep bytes, decoded once the process has ended (decision 246): the last 200
  // lines cut to 16 KiB need at most 16 Ki units of text, the stderr tail 64 Ki, and three bytes
  // of output give at least one unit.
  const tail = new OutputTail(128 * 1024);
  const errTail = new OutputTail(3 * 64 * 1024);
  let stderrTail = '';
  // Raw mode (an agent's own stream): stdout lines go to the transcript verbatim, one by one, to
  // the adapter's parser; stderr becomes svc.stderr lines.
  const split = { stdout: new LineSplitter(), stderr: new LineSplitter() };
  const onRawLine = (stream: 'stdout' | 'stderr') => (text: string) => {
    if (stream === 'stderr') {
      stderrTail = `${stderrTail}${text}\n`.slice(-64 * 1024);
      transcript.write({ type: 'svc.stderr', ts: ts(), text });
      return;
    }
    transcript.write(text);
    req.onStdoutLine?.(text);
  };
  // Lines mode: every line an svc.output line, a chunk's lines encoded and written at once, and
  // one live chunk per batch (decision 232).
  const lines = {
    stdout: new OutputLines(req.phase, 'stdout'),
    stderr: new OutputLines(req.phase, 'stderr'),
  };
  const onBatch = (stream: 'stdout' | 'stderr', batch: OutputBatch | null) => {
    if (!batch) return;
    if (stream === 'stderr') errTail.push(batch);
    tail.push(batch);
    const put = transcript.writeLines(batch.bytes);
    if (!put) return;
    const whole = put.taken === batch.bytes.length;
    // The text is made only if the listener reads it: a batch framed from bytes has none yet.
    s.onOutput?.({
      phase: req.phase,
      stream,
      offset: put.offset,
      get text() {
        return whole ? batch.text : firstLines(batch, put.taken);
      },
    });
  };
  let proc: RunningProcess | null = null;
  // Reading stops while either the transcript's disk writes or the queue of chunks read and not
  // yet encoded is behind; it starts again once neither is (decisions 232, 239).
  let holds = 0;
  const hold = (on: boolean) => {
    holds += on ? 1 : -1;
    if (on && holds === 1) proc?.pauseOutput();
    else if (!on && holds === 0) proc?.resumeOutput();
  };
  let diskHeld = false;
  const handle = (stream: 'stdout' | 'stderr', c: Buffer) => {
    if (raw) split[stream].push(c, onRawLine(stream));
    else onBatch(stream, lines[stream].push(c, ts()));
    // The disk is behind: stop reading until it catches up, so the producer waits on its pipe.
    if (!diskHeld && transcript.pending > TRANSCRIPT_HIGH_WATER) {
      diskHeld = true;
      hold(true);
      void transcript.drained().then(() => {
        diskHeld = false;
        hold(false);
      });
    }
  };
  // Chunks are encoded in turns shared with every other running process (output-pump.ts).
  const queue = new OutputQueue(handle, hold);
  const onChunk = (stream: 'stdout' | 'stderr') => (c: Buffer) => queue.push(stream, c);
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
  if (s.ready) {
    await s.ready();
    const refused = transcript.failure;
    if (refused)
      return notStarted(s, `the transcript cannot be written (${refused.code ?? 'error'})`);
  }
  const started = startProcess({
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
    onStdout: onChunk('stdout'),
    onStderr: onChunk('stderr'),
    // Every chunk is consumed or copied before `onChunk` returns (decision 254).
    borrowed: true,
    mark: s.mark,
  });
  proc = started;
  await started.spawned;
  try {
    if (started.pid !== undefined) s.onSpawn?.(started.pid, started.startTicks);
  } catch (err) {
    // The pid could not be journaled (a full disk): a process nobody could find after a crash is
    // not left running (decision 180).
    started.terminate();
    await started.done;
    throw err;
  }
  s.onProcess?.(started);
  req.onStart?.({
    write: (text) => {
      started.stdin?.write(text);
    },
    closeStdin: () => {
      started.stdin?.end();
    },
    terminate: () => started.terminate(),
    pauseTimeout: () => started.pauseTimeout(),
    resumeTimeout: () => started.resumeTimeout(),
  });
  const r = await started.done;
  await queue.idle();
  s.onProcess?.(null);
  if (raw) {
    split.stdout.flush(onRawLine('stdout'));
    split.stderr.flush(onRawLine('stderr'));
  } else {
    onBatch('stdout', lines.stdout.end(ts()));
    onBatch('stderr', lines.stderr.end(ts()));
  }
  return {
    exit_code: r.exitCode,
    signal: r.signal,
    timed_out: r.timedOut,
    cancelled: r.aborted && s.cancelled(),
    transcript_limited: transcript.latched,
    spawn_error: r.spawnError ? `${r.spawnError.code ?? 'error'}: ${r.spawnError.message}` : null,
    tail: tailLines(tail.text(), 200),
    stderr_tail: raw || errTail.empty ? stderrTail : `${errTail.text()}\n`.slice(-64 * 1024),
  };
}
