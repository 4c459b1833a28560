// Decision 248: the spawner's socket lives in a directory under the temp dir, where temp cleaners,
// signals and crashes reach it. A removed socket costs no launch and the next one gets a new
// spawner; the spawner keeps its files fresh for cleaners that go by age; no way of ending it, nor
// a spawner that cannot be had, leaves its directory behind; and a starting spawner removes the
// directories of dead ones — never a live one's, nor another user's.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { localLauncher, SpawnerLauncher } from '../../../kernel/launch/index.js';
import { waitFor } from '../../support/app.js';
import { tempDir } from '../../support/tmp.js';
import {
  alive,
  builtSpawner,
  env,
  megabyte,
  PRINT_MEGABYTE,
  parentOf,
  parentOfLaunch,
} from './support.js';

const script = builtSpawner();
type Options = ConstructorParameters<typeof SpawnerLauncher>[3];

/** The Unix socket a spawner listens on, from /proc (its title overwrites its argv). */
function socketOf(pid: number): string {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m?.[1]) inodes.add(m[1]);
    } catch {
      // closed meanwhile
    }
  }
  for (const line of readFileSync('/proc/net/unix', 'utf8').split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f[6] && inodes.has(f[6]) && f[7]?.includes('svc-spawner-')) return f[7];
  }
  throw new Error(`process ${pid} listens on no spawner socket`);
}

/** A launcher whose spawner is up (one launch has run through it). */
async function started(opts?: Options) {
  const troubles: string[] = [];
  const own = new SpawnerLauncher(script, localLauncher, (m) => troubles.push(m), opts);
  onTestFinished(() => own.close());
  await own.launch({ file: 'true', args: [], cwd: tempDir(), env, stdin: '' }).closed;
  const pid = own.pid();
  if (pid === undefined) throw new Error(`no spawner: ${troubles.join('; ')}`);
  return { own, troubles, pid };
}

describe('the spawner’s socket and directory (decision 248)', () => {
  it('a socket removed under it costs no launch: the output arrives whole, earlier programs keep their outcome, the next launch gets a new spawner', async () => {
    const { own, troubles, pid: first } = await started();
    const earlierOut: Buffer[] = [];
    const earlier = own.launch({
      file: '/bin/sh',
      args: ['-c', 'read x; echo "got $x"; exit 7'],
      cwd: tempDir(),
      env,
      stdin: 'keep-open',
      onStdout: (c) => earlierOut.push(c),
    });
    await earlier.spawned;
    expect(parentOf(earlier.pid as number)).toBe(first);

    // What a temp cleaner does to a directory untouched for ten days.
    rmSync(dirname(socketOf(first)), { recursive: true });

    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const p = own.launch({
      file: process.execPath,
      args: ['-e', `${PRINT_MEGABYTE} process.stderr.write(String(process.ppid));`],
      cwd: tempDir(),
      env,
      stdin: '',
      onStdout: (c) => out.push(c),
      onStderr: (c) => err.push(c),
    });
    expect(await p.closed).toEqual({ code: 0, signal: null, error: null });
    expect(Buffer.concat(out).equals(megabyte())).toBe(true);
    // It ran here, and the daemon's log says why.
    expect(Number(Buffer.concat(err).toString())).toBe(process.pid);
    expect(troubles.join('\n')).toMatch(/socket \S+ cannot be reached \(ENOENT\)/);

    // The old spawner still watches the program it started, which ends as it would have.
    expect(alive(first)).toBe(true);
    earlier.stdin?.end('on\n');
    expect(await earlier.closed).toEqual({ code: 7, signal: null, error: null });
    expect(Buffer.concat(earlierOut).toString()).toBe('got on\n');
    // Then it goes.
    await waitFor(() => !alive(first));

    // A new spawner, in a new directory whose socket is there.
    const parent = await parentOfLaunch(own);
    expect(parent).toBe(own.pid());
    expect(parent).not.toBe(first);
    expect(existsSync(socketOf(parent))).toBe(true);
  });

  it('touches its socket and directory, so cleaners that go by age leave them', async () => {
    const { pid } = await started({ touchEveryMs: 50 });
    const sock = socketOf(pid);
    const old = new Date('2020-01-01T00:00:00Z');
    utimesSync(sock, old, old);
    utimesSync(dirname(sock), old, old);
    await waitFor(() =>
      [sock, dirname(sock)].every((p) => {
        const st = statSync(p);
        return st.mtimeMs > old.getTime() && st.atimeMs > old.getTime();
      }),
    );
  });

  it.each(['SIGTERM', 'SIGINT', 'SIGHUP'] as const)(
    'removes its directory itself when it gets %s, and dies of it',
    async (sig) => {
      // A separate process holds the spawner and is stopped: only the spawner can clean up.
      const door = join(dirname(script), 'index.js');
      const code = `
      import { SpawnerLauncher, localLauncher } from ${JSON.stringify(door)};
      const l = new SpawnerLauncher(${JSON.stringify(script)}, localLauncher);
      await l.launch({ file: 'true', args: [], cwd: '/', env: {}, stdin: '' }).closed;
      console.log(JSON.stringify({ pid: l.pid(), dir: l.current.dir }));
      setInterval(() => {}, 1000);`;
      // Not its stderr: the spawner inherits that, and would hold the pipe open.
      const holder: ChildProcess = spawn(process.execPath, ['--input-type=module', '-e', code], {
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      onTestFinished(() => {
        holder.kill('SIGKILL');
      });
      let text = '';
      holder.stdout?.on('data', (c: Buffer) => {
        text += c.toString();
      });
      await waitFor(() => text.includes('\n'));
      // `current` is private to TypeScript only.
      const { pid, dir } = JSON.parse(text) as { pid: number; dir: string };
      expect(existsSync(dir)).toBe(true);
      process.kill(holder.pid as number, 'SIGSTOP');
      process.kill(pid, sig);
      await waitFor(() => !alive(pid));
      expect(existsSync(dir)).toBe(false);
    },
  );

  it('leaves no directory when its process cannot be had, forks here meanwhile, and tries again after a minute', async () => {
    const tmp = tempDir();
    let now = 0;
    const troubles: string[] = [];
    const own = new SpawnerLauncher(script, localLauncher, (m) => troubles.push(m), {
      now: () => now,
    });
    const saved = { execPath: process.execPath, tmp: process.env.TMPDIR };
    process.env.TMPDIR = tmp;
    try {
      // Node reports a spawn that fails this way with an 'error' and no 'exit'.
      process.execPath = '/no/such/node';
      const first = own.launch({ file: 'sleep', args: ['60'], cwd: tmp, env, stdin: '' });
      process.execPath = saved.execPath;
      await first.spawned;
      expect(parentOf(first.pid as number)).toBe(process.pid);
      first.signal('SIGKILL');
      await first.closed;
      expect(troubles.join('\n')).toMatch(/the spawner cannot start \(.*ENOENT.*\)/);
      expect(readdirSync(tmp).filter((n) => n.startsWith('svc-spawner-'))).toEqual([]);

      // Within the minute launches fork here without trying another spawner.
      now += 59_000;
      expect(await parentOfLaunch(own)).toBe(process.pid);
      expect(own.pid()).toBeUndefined();
      expect(readdirSync(tmp).filter((n) => n.startsWith('svc-spawner-'))).toEqual([]);

      // After it, the next launch starts one.
      now += 2_000;
      const parent = await parentOfLaunch(own);
      expect(parent).not.toBe(process.pid);
      expect(parent).toBe(own.pid());
    } finally {
      process.execPath = saved.execPath;
      if (saved.tmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved.tmp;
      own.close();
    }
  });

  it('on starting, removes the directories of dead spawners, and no other', async () => {
    const tmp = tempDir();
    const old = new Date(Date.now() - 10 * 60_000);
    /** A socket file nobody listens on any more: its process was SIGKILLed. */
    const deadSocket = (path: string) =>
      spawnSync(process.execPath, [
        '-e',
        `require('net').createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, 'SIGKILL'))`,
      ]);
    const make = (name: string, fill: (dir: string) => void, at = old) => {
      const dir = join(tmp, name);
      mkdirSync(dir, { mode: 0o700 });
      fill(dir);
      utimesSync(dir, at, at);
      return dir;
    };
    const killed = make('svc-spawner-killed', (d) => deadSocket(join(d, 's')));
    const empty = make('svc-spawner-empty', () => {});
    const young = make('svc-spawner-young', () => {}, new Date());
    const other = make('svc-spawner-other', (d) => {
      deadSocket(join(d, 's'));
      writeFileSync(join(d, 'notes'), 'not a spawner’s');
    });
    const notOurs = make('svc-test-killed', (d) => deadSocket(join(d, 's')));
    const server = createServer();
    const liveDir = join(tmp, 'svc-spawner-live');
    mkdirSync(liveDir, { mode: 0o700 });
    await new Promise<void>((r) => server.listen(join(liveDir, 's'), r));
    onTestFinished(() => new Promise<void>((r) => server.close(() => r())));
    utimesSync(liveDir, old, old);
    const kept = [young, other, notOurs, liveDir];
    if (process.getuid?.() === 0) {
      // Another user's dead spawner is theirs to clean up.
      const foreign = make('svc-spawner-foreign', (d) => deadSocket(join(d, 's')));
      chownSync(foreign, 65534, 65534);
      utimesSync(foreign, old, old);
      kept.push(foreign);
    }
    expect(existsSync(join(killed, 's'))).toBe(true);

    const saved = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    let up: Awaited<ReturnType<typeof started>>;
    try {
      up = await started();
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
    const said = await waitFor(() => up.troubles.find((m) => m.includes('removed directories')));
    expect(said).toContain(killed);
    expect(said).toContain(empty);
    expect(existsSync(killed)).toBe(false);
    expect(existsSync(empty)).toBe(false);
    for (const dir of kept) {
      expect(said).not.toContain(dir);
      expect(existsSync(dir)).toBe(true);
    }
    // Its own directory stays.
    expect(existsSync(socketOf(up.pid))).toBe(true);
  });
});
