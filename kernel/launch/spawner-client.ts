/**
 * The daemon's side of the spawner (decision 247; the spawner's own side is spawner-main.ts).
 * Started on the first launch, not at boot: a daemon that never runs a program never pays for it.
 * If it cannot start, launches fall back to forking here; if it dies, the programs it was
 * watching are killed (their exit status is lost with it) and end with an error, and the next
 * launch starts a new one.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
import type { FromSpawner, ToSpawner } from './spawner-protocol.js';

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
  pid: number | undefined;
  ticks: string | null;
  exit: { code: number | null; signal: NodeJS.Signals | null } | null;
  error: NodeJS.ErrnoException | null;
  streams: number;
  sockets: Socket[];
  queued: NodeJS.Signals[];
  onSpawned: () => void;
  onClosed: (end: LaunchEnd) => void;
}

export class SpawnerLauncher implements Launcher {
  private child: ChildProcess | null = null;
  private ready: Promise<boolean> | null = null;
  private dir: string | null = null;
  /** close() was called while programs still ran: the spawner goes once the last one ends. */
  private closing = false;
  private readonly live = new Map<string, Live>();
  /** Launches waiting for the spawner to be ready: they keep this process alive too. */
  private waiting = 0;

  constructor(
    private readonly script: string,
    /** Forks here when the spawner cannot start. */
    private readonly fallback: Launcher,
    private readonly onTrouble: (message: string) => void = () => {},
  ) {}

  /** The spawner's pid while it runs (the bench counts its CPU as svc's own). */
  pid(): number | undefined {
    return this.child?.pid;
  }

  private start(): Promise<boolean> {
    if (this.ready) return this.ready;
    let child: ChildProcess;
    try {
      this.dir = mkdtempSync(join(tmpdir(), 'svc-spawner-'));
      child = spawn(process.execPath, [this.script, join(this.dir, 's')], {
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
        serialization: 'advanced',
        detached: true,
      });
    } catch (err) {
      // No room for its socket, no process to be had: this launcher forks here from now on.
      this.onTrouble(`the spawner cannot start (${(err as Error).message}); forking in the daemon`);
      this.removeDir();
      this.ready = Promise.resolve(false);
      return this.ready;
    }
    this.child = child;
    child.unref();
    this.ready = new Promise<boolean>((resolve) => {
      child.on('message', (m: FromSpawner) => {
        if (m.t === 'ready') resolve(true);
        else this.onMessage(m);
      });
      child.once('error', () => resolve(false));
      child.once('exit', (code, signal) => {
        resolve(false);
        // A spawner let go by close() ends quietly; only the current one's end is trouble.
        if (this.child === child)
          this.lost(`the spawner process ended (${signal ?? `status ${code}`})`);
      });
    });
    this.unrefWhenIdle();
    return this.ready;
  }

  /** The channel keeps this process alive only while a launch waits on it. */
  private unrefWhenIdle(): void {
    const channel = this.child?.channel;
    if (!channel) return;
    if (this.live.size + this.waiting > 0) channel.ref();
    else channel.unref();
  }

  private lost(why: string): void {
    this.onTrouble(why);
    this.child = null;
    this.ready = null;
    this.removeDir();
    const err = spawnErrorOf({ message: why, code: 'ESPAWNER' });
    for (const l of [...this.live.values()]) {
      // A program whose exit was heard ends as it did; its last output still arrives on its own.
      if (l.exit) continue;
      if (l.pid !== undefined) signalGroup(l.pid, 'SIGKILL');
      l.error = err;
      l.exit = { code: null, signal: null };
      l.onSpawned();
      this.maybeClose(l);
      for (const s of l.sockets) s.destroy();
    }
  }

  private removeDir(): void {
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    this.dir = null;
  }

  private onMessage(m: Exclude<FromSpawner, { t: 'ready' }>): void {
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

  /** After a launch ends or starts: the channel's hold, and a close() that waited for this. */
  private settle(): void {
    this.unrefWhenIdle();
    if (this.closing && this.live.size === 0 && this.waiting === 0) this.shutdown();
  }

  private send(m: ToSpawner): void {
    if (this.child?.connected) this.child.send(m);
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
      pid: undefined,
      ticks: null,
      exit: null,
      error: null,
      streams: 0,
      sockets: [],
      queued: [],
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
                else this.send({ t: 'stdin', id, data: chunk });
                cb();
              });
            },
            final: (cb) => {
              void spawned.then(() => {
                if (local) local.stdin?.end();
                else this.send({ t: 'stdin-end', id });
                cb();
              });
            },
          })
        : null;
    stdin?.on('error', () => {});
    let paused = false;
    const go = (ready: boolean) => {
      this.waiting--;
      // Let go in the meantime (close() in the same turn as this launch): fork here instead.
      const dir = this.dir;
      if (!ready || !dir || !this.child?.connected) {
        this.settle();
        // No spawner: this launch forks here, as every launch did before decision 247.
        local = this.fallback.launch(spec);
        if (paused) local.pauseOutput();
        void local.spawned.then(() => {
          l.pid = local?.pid;
          l.ticks = local?.startTicks ?? null;
          for (const sig of l.queued) local?.signal(sig);
          onSpawned();
        });
        void local.closed.then(onClosed);
        return;
      }
      this.live.set(id, l);
      this.unrefWhenIdle();
      const path = join(dir, 's');
      const open = (fd: 1 | 2, onData: (c: Buffer) => void) => {
        const s = connect(path);
        l.streams++;
        l.sockets.push(s);
        s.write(Buffer.concat([Buffer.from([fd]), idBytes]));
        s.on('data', onData);
        if (paused) s.pause();
        s.on('error', (err: NodeJS.ErrnoException) => {
          if (l.pid === undefined && !l.exit) {
            l.error = err;
            l.exit = { code: null, signal: null };
            this.send({ t: 'drop', id });
            onSpawned();
            this.maybeClose(l);
          }
        });
        s.on('close', () => {
          l.streams--;
          this.maybeClose(l);
        });
      };
      if (spec.onStdout) open(1, spec.onStdout);
      if (spec.onStderr) open(2, spec.onStderr);
      const env: Record<string, string> = {};
      for (const [k, v] of Object.entries(spec.env)) if (v !== undefined) env[k] = v;
      this.send({
        t: 'spawn',
        id,
        file: spec.file,
        args: [...spec.args],
        cwd: spec.cwd,
        env,
        stdin: spec.stdin === 'keep-open' ? 'keep-open' : Buffer.from(spec.stdin),
        out: spec.onStdout !== undefined,
        err: spec.onStderr !== undefined,
      });
    };
    this.closing = false;
    this.waiting++;
    void this.start().then(go);
    this.unrefWhenIdle();
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
    const child = this.child;
    this.closing = false;
    this.child = null;
    this.ready = null;
    if (child?.connected) child.disconnect();
    this.removeDir();
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
