/**
 * The spawner (decision 247): a small process the daemon starts once, which forks every program
 * the daemon runs. It imports nothing of svc's beyond launch.ts (node built-ins only), so its heap
 * stays a few megabytes and a fork of it is cheap; the daemon never forks and never waits for an exec.
 *
 * A step's output does not pass through here. For each program the daemon connects to this
 * process's Unix socket once per output stream and writes a 17-byte header (the stream, then the
 * launch's 16 random bytes); the connection's far end becomes the program's stdout or stderr, so
 * the program writes straight to the daemon. A program whose output is read whole (git, a probe:
 * `keep`, decision 255) has pipes to this process instead, and its output goes with its exit.
 * Stdin is a pipe this process writes (the launch's bytes, or what the daemon sends on). Messages
 * on the IPC channel:
 *   daemon → spawner: spawn, stdin, stdin-end, drop
 *   spawner → daemon: ready, spawned (pid, start ticks), failed (a spawn error), exit (with
 *   a kept launch's output)
 * When the daemon goes away (the channel closes) this process exits; the programs it started keep
 * running in their own process groups, as they would have had the daemon forked them.
 *
 * Its socket's directory goes with it however it ends short of SIGKILL (a SIGTERM, SIGINT or
 * SIGHUP from a person or a harness included), it touches socket and directory every hour so that
 * temp cleaners which go by age leave them (tmux does the same), and on starting it removes the
 * directories of spawners that died without removing theirs (decision 248).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync, utimesSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { dirname } from 'node:path';
import { processStartTicks, signalGroup, stdinOf } from './launch.js';
import { DroppedLaunches } from './spawner-dropped.js';
import {
  type FromSpawner,
  HEADER_BYTES,
  type SpawnRequest,
  type ToSpawner,
} from './spawner-protocol.js';
import { sweepDeadSpawners } from './spawner-sweep.js';

interface Pending {
  req?: SpawnRequest;
  out?: Socket;
  err?: Socket;
}

function main(socketPath: string, touchEveryMs: number): void {
  const dir = dirname(socketPath);
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  // Its socket's directory goes with it, whichever way the daemon went.
  const leave = () => {
    removeDir();
    process.exit(0);
  };
  process.on('disconnect', leave);
  // Killed politely, it still cleans up, then dies of the signal so the daemon hears which.
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.once(sig, () => {
      try {
        removeDir();
      } finally {
        process.kill(process.pid, sig);
      }
    });
  }
  // Fresh times on socket and directory: cleaners such as tmpreaper or a 10-day systemd-tmpfiles
  // rule go by age, and a removed socket fails every launch until the daemon notices. Unref'd:
  // the timer never keeps this process alive by itself.
  setInterval(() => {
    const now = new Date();
    for (const p of [socketPath, dir]) {
      try {
        utimesSync(p, now, now);
      } catch {
        // Removed already: the daemon finds out on its next launch and starts another spawner.
      }
    }
  }, touchEveryMs).unref();
  // A daemon that died while this program was still loading closed the channel before anyone
  // listened for it: without this check the socket would keep this process alive for good.
  if (!process.connected) leave();
  // A daemon killed mid-message breaks the channel before 'disconnect' is heard: with a callback
  // the failed write is an answer here, not an 'error' that would end this process before
  // `leave` removes the socket's directory.
  const send = (m: FromSpawner) => {
    if (process.connected) process.send?.(m, undefined, undefined, (err) => err && leave());
  };
  /** A spawn error in parts (launch.ts's `spawnErrorOf` builds it again on the daemon's side). */
  const failed = (id: string, err: NodeJS.ErrnoException) =>
    send({
      t: 'failed',
      id,
      message: err.message,
      ...(err.code !== undefined ? { code: err.code } : {}),
      ...(err.errno !== undefined ? { errno: err.errno } : {}),
      ...(err.syscall !== undefined ? { syscall: err.syscall } : {}),
      ...(err.path !== undefined ? { path: err.path } : {}),
    });
  const pending = new Map<string, Pending>();
  const running = new Map<string, ChildProcess>();
  /** Launches the daemon gave up on: a stream of one arriving late is closed, never held. */
  const dropped = new DroppedLaunches();

  const start = (id: string, p: Pending) => {
    const req = p.req;
    if (!req) return;
    const kept = req.keep !== undefined;
    if (!kept && ((req.out && !p.out) || (req.err && !p.err))) return;
    pending.delete(id);
    let child: ChildProcess;
    try {
      child = spawn(req.file, req.args, {
        cwd: req.cwd,
        env: req.env,
        detached: true,
        stdio: kept
          ? [stdinOf(req.stdin), req.out ? 'pipe' : 'ignore', req.err ? 'pipe' : 'ignore']
          : [stdinOf(req.stdin), p.out ?? 'ignore', p.err ?? 'ignore'],
      });
    } catch (e) {
      failed(id, e as NodeJS.ErrnoException);
      p.out?.destroy();
      p.err?.destroy();
      return;
    }
    // The program holds its own copies of the sockets now; ours would keep them open past its end.
    p.out?.destroy();
    p.err?.destroy();
    child.stdin?.on('error', () => {});
    child.on('error', (err: NodeJS.ErrnoException) => {
      if (child.pid === undefined) failed(id, err);
    });
    if (child.pid === undefined) return;
    running.set(id, child);
    send({ t: 'spawned', id, pid: child.pid, ticks: processStartTicks(child.pid) });
    if (req.stdin !== 'keep-open') child.stdin?.end(req.stdin);
    if (req.keep !== undefined) {
      keep(id, child, req.keep);
      return;
    }
    child.on('exit', (code, signal) => {
      running.delete(id);
      send({ t: 'exit', id, code, signal });
    });
  };

  /**
   * A launch read whole (decision 255): its output is gathered here, at most `max` bytes and one
   * more (the program's group is killed then), and goes with the exit once the pipes close.
   */
  const keep = (id: string, child: ChildProcess, max: number) => {
    let room = max + 1;
    const gather = (into: Buffer[]) => (chunk: Buffer) => {
      if (room === 0) return;
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
      into.push(part);
      room -= part.length;
      if (room === 0 && child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
    };
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on('data', gather(out));
    child.stderr?.on('data', gather(err));
    child.on('close', (code, signal) => {
      running.delete(id);
      send({
        t: 'exit',
        id,
        code,
        signal,
        ...(child.stdout ? { out: Buffer.concat(out) } : {}),
        ...(child.stderr ? { err: Buffer.concat(err) } : {}),
      });
    });
  };

  const server = createServer((sock) => {
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      if (head.length < HEADER_BYTES) return;
      sock.off('data', onData);
      sock.pause();
      const id = head.subarray(1, HEADER_BYTES).toString('hex');
      if (dropped.has(id)) {
        sock.destroy();
        return;
      }
      const p = pending.get(id) ?? {};
      if (head[0] === 1) p.out = sock;
      else p.err = sock;
      pending.set(id, p);
      start(id, p);
    };
    sock.on('data', onData);
    sock.on('error', () => {});
  });
  // No socket, no spawner: the daemon hears the exit and forks for itself.
  server.on('error', (err) => {
    process.stderr.write(`svc-spawner: ${err.message}\n`);
    process.exit(1);
  });
  server.listen(socketPath, () => {
    send({ t: 'ready' });
    void sweepDeadSpawners(dirname(dir), dir).then((dirs) => {
      if (dirs.length > 0) send({ t: 'swept', dirs });
    });
  });

  process.on('message', (m: ToSpawner) => {
    if (m.t === 'spawn') {
      const p = pending.get(m.id) ?? {};
      p.req = m;
      pending.set(m.id, p);
      start(m.id, p);
    } else if (m.t === 'stdin') running.get(m.id)?.stdin?.write(m.data);
    else if (m.t === 'stdin-end') running.get(m.id)?.stdin?.end();
    else if (m.t === 'drop') {
      const p = pending.get(m.id);
      pending.delete(m.id);
      dropped.add(m.id);
      p?.out?.destroy();
      p?.err?.destroy();
    }
  });
}

if (process.send && process.argv[2]) {
  process.title = 'svc-spawner';
  main(process.argv[2], Number(process.argv[3]) || 3_600_000);
}
