/**
 * The daemon's side of the spawner (decision 247; the spawner's own side is spawner-main.ts).
 * Started on the first launch, not at boot: a daemon that never runs a program never pays for it.
 * If it cannot start, launches fall back to forking here for a minute, then the next launch
 * tries again; if it dies, the programs it was watching are killed (their exit status is lost with
 * it) and end with an error, and the next launch starts a new one. If its socket cannot be reached
 * (a temp cleaner removed it, decision 248), the launch that found out forks here, new launches go
 * to a new spawner, and the old one stays until the programs it watches have ended.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import {
  type LaunchEnd,
  type Launched,
  type Launcher,
  type LaunchSpec,
  localLauncher,
  setLauncher,
  signalGroup,
  spawnErrorOf,
} from './launch.js';
import { type SpawnerMessage, SpawnerProcess } from './spawner-process.js';

/** The spawner's program: beside this module once built, or the checkout's build when run from source. */
export function spawnerScript(): string | null {
  const candidates = [
    fileURLToPath(new URL('./spawner-main.js', import.meta.url)),
    fileURLToPath(new URL('../../dist/kernel/launch/spawner-main.js', import.meta.url)),
  ];
  return candidates.find((f) => existsSync(f)) ?? null;
}

interface Live {
  id: string;
  /** The spawner it went to (a launch forked here has none). */
  proc: SpawnerProcess | null;
  pid: number | undefined;
  ticks: string | null;
  exit: { code: number | null; signal: NodeJS.Signals | null } | null;
  error: NodeJS.ErrnoException | null;
  streams: number;
  sockets: Socket[];
  queued: NodeJS.Signals[];
  /** A launch read whole (decision 255): its output arrives with its exit, for these. */
  kept: Pick<LaunchSpec, 'onStdout' | 'onStderr'> | null;
  onSpawned: () => void;
  onClosed: (end: LaunchEnd) => void;
}

export interface SpawnerOptions {
  /** How often the spawner touches its socket and directory, so temp cleaners leave them (1 h). */
  touchEveryMs?: number;
  /** After a spawner failed to start, launches fork here this long before another is tried (60 s). */
  retryAfterMs?: number;
  /** The clock for that wait (milliseconds). */
  now?: () => number;
}

/**
 * The one buffer every borrowed output stream is read into (decision 254): each read is handed
 * to its callback and consumed before the next read of any stream, so one buffer serves them all
 * and no read allocates.
 */
const READ_INTO = Buffer.allocUnsafe(64 * 1024);

export class SpawnerLauncher implements Launcher {
  /** The spawner new launches go to. */
  private current: SpawnerProcess | null = null;
  /**
   * Every spawner still running: the current one, and earlier ones let go of (their socket could
   * not be reached) whose programs have not all ended yet — their exits still come through them.
   */
  private readonly procs = new Set<SpawnerProcess>();
  /** When a spawner last failed to start: until `retryAfterMs` later, launches fork here. */
  private failedAt: number | null = null;
  /** close() was called while programs still ran: the spawner goes once the last one ends. */
  private closing = false;
  private readonly live = new Map<string, Live>();
  /** Launches waiting for the spawner to be ready: they keep this process alive too. */
  private waiting = 0;

  private readonly touchEveryMs: number;
  private readonly retryAfterMs: number;
  private readonly now: () => number;

  constructor(
    private readonly script: string,
    /** Forks here when the spawner cannot start or cannot be reached. */
    private readonly fallback: Launcher,
    private readonly onTrouble: (message: string) => void = () => {},
    opts: SpawnerOptions = {},
  ) {
    this.touchEveryMs = opts.touchEveryMs ?? 3_600_000;
    this.retryAfterMs = opts.retryAfterMs ?? 60_000;
    this.now = opts.now ?? Date.now;
  }

  /** The current spawner's pid while it runs (the bench counts its CPU as svc's own). */
  pid(): number | undefined {
    return this.current?.pid;
  }

  /** The spawner for a new launch, started if need be; null: fork here. */
  private start(): SpawnerProcess | null {
    if (this.current) return this.current;
    // Not on every launch in a tight loop: a spawner that cannot start costs a process each time.
    if (this.failedAt !== null && this.now() - this.failedAt < this.retryAfterMs) return null;
    let proc: SpawnerProcess;
    try {
      proc = new SpawnerProcess(
        this.script,
        this.touchEveryMs,
        (m) => this.onMessage(m),
        (p, why, wasReady) => this.ended(p, why, wasReady),
      );
    } catch (err) {
      this.cannotStart((err as Error).message);
      return null;
    }
    this.current = proc;
    this.procs.add(proc);
    void proc.ready.then((ok) => {
      if (ok) this.failedAt = null;
    });
    return proc;
  }

  private cannotStart(why: string): void {
    this.failedAt = this.now();
    const s = Math.round(this.retryAfterMs / 1000);
    this.onTrouble(
      `the spawner cannot start (${why}); forking in the daemon, another is tried after ${s} s`,
    );
  }

  /** A spawner exited (or never started): what it watched ends with an error. */
  private ended(proc: SpawnerProcess, why: string, wasReady: boolean): void {
    this.procs.delete(proc);
    if (this.current === proc) this.current = null;
    if (proc.letGo) return; // let go by us: it ends quietly, with nothing left to watch
    if (!wasReady) {
      this.cannotStart(why);
      return;
    }
    const message = `the spawner process ended (${why})`;
    this.onTrouble(message);
    const err = spawnErrorOf({ message, code: 'ESPAWNER' });
    for (const l of [...this.live.values()]) {
      // A program whose exit was heard ends as it did; its last output still arrives on its own.
      if (l.proc !== proc || l.exit) continue;
      if (l.pid !== undefined) signalGroup(l.pid, 'SIGKILL');
      l.error = err;
      l.exit = { code: null, signal: null };
      l.onSpawned();
      this.maybeClose(l);
      for (const s of l.sockets) s.destroy();
    }
    this.settle();
  }

  /**
   * A launch's output stream could not connect to this spawner's socket (a temp cleaner removed
   * it, decision 248): new launches go to a new spawner; this one goes once its programs end.
   */
  private retire(proc: SpawnerProcess, err: NodeJS.ErrnoException): void {
    if (this.current !== proc) return; // already retired by a sibling stream or launch
    this.current = null;
    proc.removeDir();
    const why = `its socket ${proc.socket} cannot be reached (${err.code ?? err.message})`;
    // One that never reached a program would likely fail the same way again: wait before the next.
    if (!proc.served) this.cannotStart(why);
    else this.onTrouble(`the spawner is let go: ${why}; the launch forks in the daemon`);
    this.settle();
  }

  private onMessage(m: SpawnerMessage): void {
    if (m.t === 'swept') {
      this.onTrouble(`removed directories spawners left behind: ${m.dirs.join(', ')}`);
      return;
    }
    const l = this.live.get(m.id);
    if (!l) return;
    if (m.t === 'spawned') {
      l.pid = m.pid;
      l.ticks = m.ticks;
      for (const sig of l.queued) signalGroup(m.pid, sig);
      l.queued = [];
      l.onSpawned();
    } else if (m.t === 'failed') {
      l.error = spawnErrorOf(m);
      l.exit = { code: null, signal: null };
      l.onSpawned();
      this.maybeClose(l);
    } else {
      if (m.out && m.out.length > 0)
        l.kept?.onStdout?.(Buffer.from(m.out.buffer, m.out.byteOffset, m.out.length));
      if (m.err && m.err.length > 0)
        l.kept?.onStderr?.(Buffer.from(m.err.buffer, m.err.byteOffset, m.err.length));
      l.exit = { code: m.code, signal: m.signal };
      this.maybeClose(l);
    }
  }

  private maybeClose(l: Live): void {
    if (!l.exit || (l.streams > 0 && !l.error)) return;
    // Only once: a launch leaves the map when it closes.
    if (!this.live.delete(l.id)) return;
    this.settle();
    l.onClosed({ code: l.exit.code, signal: l.exit.signal, error: l.error });
  }

  /**
   * After a launch ends, starts or moves: each spawner's hold on this process, an earlier spawner
   * let go of once its last program ended, and a close() that waited for this.
   */
  private settle(): void {
    for (const proc of this.procs) {
      let needed = proc === this.current ? this.waiting : 0;
      for (const l of this.live.values()) if (l.proc === proc) needed++;
      if (proc !== this.current && needed === 0) {
        this.procs.delete(proc);
        proc.letItGo();
      } else proc.hold(needed > 0);
    }
    if (this.closing && this.live.size === 0 && this.waiting === 0) this.shutdown();
  }

  launch(spec: LaunchSpec): Launched {
    const idBytes = randomBytes(16);
    const id = idBytes.toString('hex');
    let onSpawned = () => {};
    let onClosed: (end: LaunchEnd) => void = () => {};
    const spawned = new Promise<void>((r) => {
      onSpawned = r;
    });
    const closed = new Promise<LaunchEnd>((r) => {
      onClosed = r;
    });
    const l: Live = {
      id,
      proc: null,
      pid: undefined,
      ticks: null,
      exit: null,
      error: null,
      streams: 0,
      sockets: [],
      queued: [],
      kept: null,
      onSpawned,
      onClosed,
    };
    let local: Launched | null = null;
    const stdin =
      spec.stdin === 'keep-open'
        ? new Writable({
            write: (chunk: Buffer, _enc, cb) => {
              void spawned.then(() => {
                if (local) local.stdin?.write(chunk);
                else l.proc?.send({ t: 'stdin', id, data: chunk });
                cb();
              });
            },
            final: (cb) => {
              void spawned.then(() => {
                if (local) local.stdin?.end();
                else l.proc?.send({ t: 'stdin-end', id });
                cb();
              });
            },
          })
        : null;
    stdin?.on('error', () => {});
    let paused = false;
    /** No spawner for this launch: it forks here, as every launch did before decision 247. */
    const forkHere = () => {
      local = this.fallback.launch(spec);
      if (paused) local.pauseOutput();
      void local.spawned.then(() => {
        l.pid = local?.pid;
        l.ticks = local?.startTicks ?? null;
        for (const sig of l.queued) local?.signal(sig);
        onSpawned();
      });
      void local.closed.then(onClosed);
    };
    const go = (proc: SpawnerProcess | null) => {
      this.waiting--;
      // Let go in the meantime (close() in the same turn as this launch, or its socket found
      // gone by another launch): fork here instead.
      if (!proc || proc !== this.current || !proc.connected) {
        this.settle();
        forkHere();
        return;
      }
      l.proc = proc;
      this.live.set(id, l);
      this.settle();
      const open = (fd: 1 | 2, onData: (c: Buffer) => void) => {
        const s = spec.borrowed
          ? connect({
              path: proc.socket,
              onread: {
                buffer: READ_INTO,
                callback: (n) => {
                  onData(READ_INTO.subarray(0, n));
                  return true;
                },
              },
            })
          : connect(proc.socket);
        let connected = false;
        l.streams++;
        l.sockets.push(s);
        s.write(Buffer.concat([Buffer.from([fd]), idBytes]));
        if (!spec.borrowed) s.on('data', onData);
        if (paused) s.pause();
        s.once('connect', () => {
          connected = true;
          proc.served = true;
        });
        s.on('error', (err: NodeJS.ErrnoException) => {
          if (local || l.pid !== undefined || l.exit) return;
          // Not connected, so the spawner never had this stream and cannot have started the
          // program: it runs here instead, and the spawner drops what it holds of it.
          if (!connected) {
            moveHere(proc, err);
            return;
          }
          l.error = err;
          l.exit = { code: null, signal: null };
          proc.send({ t: 'drop', id });
          onSpawned();
          this.maybeClose(l);
        });
        s.on('close', () => {
          if (local) return;
          l.streams--;
          this.maybeClose(l);
        });
      };
      const keep = spec.keepUpTo;
      // Read whole: the spawner gathers it, and no connection is made for it (decision 255).
      if (keep !== undefined) l.kept = { onStdout: spec.onStdout, onStderr: spec.onStderr };
      else {
        if (spec.onStdout) open(1, spec.onStdout);
        if (spec.onStderr) open(2, spec.onStderr);
      }
      proc.send({
        t: 'spawn',
        id,
        file: spec.file,
        args: [...spec.args],
        cwd: spec.cwd,
        env: spec.env,
        stdin: spec.stdin === 'keep-open' ? 'keep-open' : Buffer.from(spec.stdin),
        out: spec.onStdout !== undefined,
        err: spec.onStderr !== undefined,
        ...(keep !== undefined ? { keep } : {}),
      });
    };
    const moveHere = (proc: SpawnerProcess, err: NodeJS.ErrnoException) => {
      proc.send({ t: 'drop', id });
      this.live.delete(id);
      l.proc = null;
      for (const s of l.sockets) s.destroy();
      l.sockets = [];
      forkHere();
      this.retire(proc, err);
    };
    this.closing = false;
    const proc = this.start();
    if (proc) {
      this.waiting++;
      this.settle();
      void proc.ready.then((ok) => go(ok ? proc : null));
    } else forkHere();
    return {
      get pid() {
        return l.pid;
      },
      get startTicks() {
        return l.ticks;
      },
      spawned,
      stdin,
      closed,
      signal: (sig) => {
        if (l.pid !== undefined) signalGroup(l.pid, sig);
        else if (!l.exit) l.queued.push(sig);
      },
      pauseOutput: () => {
        paused = true;
        if (local) local.pauseOutput();
        for (const s of l.sockets) s.pause();
      },
      resumeOutput: () => {
        if (!paused) return;
        paused = false;
        if (local) local.resumeOutput();
        for (const s of l.sockets) s.resume();
      },
    };
  }

  /**
   * Lets the spawner go once no launch waits on it (it exits when its channel closes). Programs
   * still running then keep running, as they would after the daemon's own exit.
   */
  close(): void {
    this.closing = true;
    this.settle();
  }

  private shutdown(): void {
    this.closing = false;
    const proc = this.current;
    this.current = null;
    if (proc) {
      this.procs.delete(proc);
      proc.letItGo();
    }
  }
}

let shared: SpawnerLauncher | null = null;
let users = 0;

/**
 * Routes every launch of this process through a spawner until the returned release is called
 * (each daemon kernel holds one while it runs; several kernels in one process share it).
 * `SVC_SPAWNER=off` keeps forking here (for measuring one against the other).
 */
export function useSpawner(onTrouble: (message: string) => void = () => {}): () => void {
  if (process.env.SVC_SPAWNER === 'off') return () => {};
  const script = spawnerScript();
  if (!script) {
    onTrouble(
      'the spawner is not built (dist/kernel/launch/spawner-main.js); forking in the daemon',
    );
    return () => {};
  }
  users++;
  shared ??= new SpawnerLauncher(script, localLauncher, onTrouble);
  setLauncher(shared);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    users--;
    if (users > 0 || !shared) return;
    shared.close();
    shared = null;
    setLauncher(null);
  };
}

/** The running spawner's pid, if any. */
export function spawnerPid(): number | undefined {
  return shared?.pid();
}
