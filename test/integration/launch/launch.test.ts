// Decision 247: every program svc starts goes through `launch`, forked either here or by the
// spawner process. One contract, run against both: bytes out as written, bytes in as given,
// signals to the whole group, start failures as errors, output held back while paused. Then what
// only the spawner has: its programs are not the daemon's children, a dead spawner ends what it
// watched with an error and the next launch gets a new one, and a daemon's steps run under it.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  collect,
  type Launched,
  type Launcher,
  type LaunchSpec,
  launch,
  localLauncher,
  SpawnerLauncher,
  spawnerPid,
  useSpawner,
} from '../../../kernel/launch/index.js';
import { buildTestApp, releaseKeptSpawner, waitFor } from '../../support/app.js';
import { addProject, commandWorkflow, createTask, waitState } from '../../support/tasks.js';
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
const spawner = new SpawnerLauncher(script, localLauncher);
afterAll(() => spawner.close());
// These tests watch a daemon's spawner come and go with the daemon: no spawner kept for the file.
releaseKeptSpawner();

function run(
  l: Launcher,
  file: string,
  args: string[],
  stdin: string | Uint8Array = '',
  more: Pick<LaunchSpec, 'keepUpTo'> = {},
) {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const p = l.launch({
    file,
    args,
    cwd: tempDir(),
    env,
    stdin,
    onStdout: (c) => out.push(c),
    onStderr: (c) => err.push(c),
    ...more,
  });
  // `chunks`: the pieces as the callbacks were handed them.
  return { p, out: () => Buffer.concat(out), err: () => Buffer.concat(err), chunks: { out, err } };
}

describe.each([
  ['forked here', localLauncher],
  ['through the spawner', spawner],
])('launch, %s', (_name, l) => {
  it('passes stdout and stderr through byte for byte, with the exit status', async () => {
    // A megabyte of every byte value, an invalid UTF-8 sequence on stderr.
    const r = run(l, process.execPath, [
      '-e',
      `${PRINT_MEGABYTE} process.stderr.write(Buffer.from([0x63, 0xff, 0x0a])); process.exitCode = 3;`,
    ]);
    const end = await r.p.closed;
    expect(end).toEqual({ code: 3, signal: null, error: null });
    expect(r.out().equals(megabyte())).toBe(true);
    expect([...r.err()]).toEqual([0x63, 0xff, 0x0a]);
  });

  it('writes the given stdin bytes, then closes it', async () => {
    const r = run(l, 'cat', [], Buffer.from([0xe2, 0x82, 0xac, 0x00, 0x0a]));
    expect((await r.p.closed).code).toBe(0);
    expect([...r.out()]).toEqual([0xe2, 0x82, 0xac, 0x00, 0x0a]);
  });

  it('leaves a name whose value is undefined out of the environment, never "undefined"', async () => {
    const out: Buffer[] = [];
    const p = l.launch({
      file: 'sh',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell's own ${…}, not JavaScript's
      args: ['-c', 'echo "${GONE-unset}:${KEPT}"'],
      cwd: tempDir(),
      env: { ...env, GONE: undefined, KEPT: 'here' },
      stdin: '',
      onStdout: (c) => out.push(c),
    });
    expect((await p.closed).code).toBe(0);
    expect(Buffer.concat(out).toString()).toBe('unset:here\n');
  });

  it('gives a program with nothing to read /dev/null, not a pipe, and it reads the end at once', async () => {
    // A pipe and its stream cost the forking process about a tenth of a fork (decision 247).
    const r = run(l, 'sh', ['-c', 'readlink /proc/self/fd/0; cat; echo done']);
    expect((await r.p.closed).code).toBe(0);
    expect(r.out().toString()).toBe('/dev/null\ndone\n');
  });

  it('keeps stdin open for writes until it is ended', async () => {
    const out: Buffer[] = [];
    const p = l.launch({
      file: 'cat',
      args: [],
      cwd: tempDir(),
      env,
      stdin: 'keep-open',
      onStdout: (c) => out.push(c),
    });
    p.stdin?.write('one\n');
    await waitFor(() => Buffer.concat(out).toString() === 'one\n');
    p.stdin?.write('two\n');
    p.stdin?.end();
    expect((await p.closed).code).toBe(0);
    expect(Buffer.concat(out).toString()).toBe('one\ntwo\n');
  });

  it('signals the whole process group, even when asked before the pid is known', async () => {
    const dir = tempDir();
    const p = l.launch({
      file: '/bin/sh',
      args: ['-c', `sleep 60 & echo $! > ${dir}/child; wait`],
      cwd: dir,
      env,
      stdin: '',
      onStdout: () => {},
    });
    await waitFor(() => existsSync(join(dir, 'child')) && readFileSync(join(dir, 'child'), 'utf8'));
    const child = Number(readFileSync(join(dir, 'child'), 'utf8'));
    p.signal('SIGTERM');
    expect(await p.closed).toEqual({ code: null, signal: 'SIGTERM', error: null });
    await waitFor(() => !alive(child));

    const early = l.launch({ file: 'sleep', args: ['60'], cwd: dir, env, stdin: '' });
    early.signal('SIGKILL');
    expect((await early.closed).signal).toBe('SIGKILL');
  });

  it('reports a program that cannot start as an error, not a crash', async () => {
    const missing = run(l, '/no/such/program', []);
    const end = await missing.p.closed;
    expect(end.error?.code).toBe('ENOENT');
    expect(end.error?.message).toContain('/no/such/program');
    expect(missing.p.pid).toBeUndefined();

    const noCwd = l.launch({ file: 'true', args: [], cwd: '/no/such/dir', env, stdin: '' });
    expect((await noCwd.closed).error?.code).toBe('ENOENT');
  });

  it.each([
    ['its own buffers', false],
    // Only the spawner lends its read buffer; forked here, `borrowed` changes nothing and must not.
    ['output marked borrowed, paused from inside its callback', true],
  ])(
    'holds the program back while its output is paused, and loses nothing (%s)',
    async (_n, borrowed) => {
      const dir = tempDir();
      const size = 8 << 20;
      let read = 0;
      const p: Launched = l.launch({
        file: process.execPath,
        args: [
          '-e',
          `const fs = require('fs'); process.stdout.write(Buffer.alloc(${size}, 97), () => fs.writeFileSync('${dir}/wrote', ''));`,
        ],
        cwd: dir,
        env,
        stdin: '',
        onStdout: (c) => {
          read += c.length;
          // A borrowed read's owner may stop the reads while it handles one (decision 254).
          if (!borrowed) return;
          p.pauseOutput();
          setImmediate(() => p.resumeOutput());
        },
        borrowed,
      });
      p.pauseOutput();
      await p.spawned;
      // Paused, the pipe fills and the write cannot finish: the marker never appears.
      await new Promise((r) => setTimeout(r, 400));
      expect(existsSync(join(dir, 'wrote'))).toBe(false);
      expect(read).toBeLessThan(size);
      p.resumeOutput();
      expect((await p.closed).code).toBe(0);
      expect(read).toBe(size);
      expect(existsSync(join(dir, 'wrote'))).toBe(true);
    },
  );
});

describe('borrowed output (decision 254)', () => {
  it('reads every stream of the spawner into one buffer, and passes every byte through', async () => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const seen = new Set<ArrayBufferLike>();
    const lend = (into: Buffer[]) => (c: Buffer) => {
      seen.add(c.buffer);
      into.push(Buffer.from(c));
    };
    const p = spawner.launch({
      file: process.execPath,
      args: ['-e', `${PRINT_MEGABYTE} process.stderr.write(Buffer.from([0x63, 0xff, 0x0a]));`],
      cwd: tempDir(),
      env,
      stdin: '',
      onStdout: lend(out),
      onStderr: lend(err),
      borrowed: true,
    });
    expect(await p.closed).toEqual({ code: 0, signal: null, error: null });
    expect(Buffer.concat(out).equals(megabyte())).toBe(true);
    expect([...Buffer.concat(err)]).toEqual([0x63, 0xff, 0x0a]);
    // Sixteen or more reads of a megabyte, stdout's and stderr's alike, and not one allocated.
    expect(out.length).toBeGreaterThan(1);
    expect(seen.size).toBe(1);
  });
});

describe('a program read whole (decision 255)', () => {
  const keep = (l: Launcher, file: string, args: string[], keepUpTo: number) => {
    const r = run(l, file, args, '', { keepUpTo });
    return { p: r.p, out: r.chunks.out, err: r.chunks.err };
  };

  it('comes from the spawner with its exit, in one piece a stream', async () => {
    const r = keep(
      spawner,
      process.execPath,
      ['-e', `${PRINT_MEGABYTE} process.stderr.write(Buffer.from([0x63, 0xff, 0x0a]));`],
      4 << 20,
    );
    expect(await r.p.closed).toEqual({ code: 0, signal: null, error: null });
    // Through an output connection a megabyte arrives in many reads; gathered, in one.
    expect(r.out).toHaveLength(1);
    expect(r.out[0]?.equals(megabyte())).toBe(true);
    expect(r.err.map((c) => [...c])).toEqual([[0x63, 0xff, 0x0a]]);
  });

  it('is cut one byte past its limit, and the program killed there', async () => {
    const r = keep(spawner, 'yes', [], 1 << 20);
    expect((await r.p.closed).signal).toBe('SIGKILL');
    expect(Buffer.concat(r.out).length).toBe((1 << 20) + 1);
  });

  it('streams as ever where the program is forked here', async () => {
    const r = keep(localLauncher, process.execPath, ['-e', PRINT_MEGABYTE], 4 << 20);
    expect((await r.p.closed).code).toBe(0);
    expect(r.out.length).toBeGreaterThan(1);
    expect(Buffer.concat(r.out).equals(megabyte())).toBe(true);
  });
});

describe.each([
  ['forked here', false],
  ['through the spawner', true],
])('collect, %s', (_name, viaSpawner) => {
  let release = () => {};
  beforeAll(() => {
    if (viaSpawner) release = useSpawner();
  });
  afterAll(() => release());

  it('answers text, and an error for a program that cannot start', async () => {
    const ok = await collect('/bin/sh', ['-c', 'echo out; echo err >&2; exit 4'], {
      cwd: tempDir(),
    });
    expect(ok).toEqual({ code: 4, signal: null, stdout: 'out\n', stderr: 'err\n', error: null });
    expect((await collect('/no/such/program', [])).error?.code).toBe('ENOENT');
  });

  it('stops a program past its output limit, and says so', async () => {
    const r = await collect('yes', [], { maxBytes: 1 << 20 });
    expect(r.signal).toBe('SIGKILL');
    expect(r.error?.code).toBe('ERR_CHILD_PROCESS_STDIO_MAXBUFFER');
    expect(r.stdout.length).toBeLessThanOrEqual(1 << 20);
  });

  it('stops a program past its timeout', async () => {
    const r = await collect('sleep', ['60'], { timeoutMs: 50 });
    expect(r).toMatchObject({ code: null, signal: 'SIGTERM', error: null });
  });

  it('runs where the launcher in use runs it', async () => {
    const r = await collect('/bin/sh', ['-c', 'echo $PPID'], { cwd: tempDir() });
    const parent = Number(r.stdout.trim());
    if (viaSpawner) expect(parent).toBe(spawnerPid());
    else expect(parent).toBe(process.pid);
  });
});

describe('the spawner', () => {
  it('forks the programs: they are its children, not this process’s', async () => {
    const r = run(spawner, 'sleep', ['60']);
    await r.p.spawned;
    const pid = r.p.pid as number;
    expect(parentOf(pid)).toBe(spawner.pid());
    expect(parentOf(pid)).not.toBe(process.pid);
    r.p.signal('SIGKILL');
    await r.p.closed;
  });

  it('ends what it watched with an error when it dies, and the next launch gets a new one', async () => {
    const troubles: string[] = [];
    const own = new SpawnerLauncher(script, localLauncher, (m) => troubles.push(m));
    try {
      const r = run(own, 'sleep', ['60']);
      await r.p.spawned;
      const first = own.pid() as number;
      process.kill(first, 'SIGKILL');
      const end = await r.p.closed;
      expect(end.error?.code).toBe('ESPAWNER');
      expect(troubles.join('\n')).toContain('the spawner process ended');
      // Its program did not outlive it unwatched.
      await waitFor(() => !alive(r.p.pid as number));

      const next = run(own, '/bin/sh', ['-c', 'echo again']);
      expect((await next.p.closed).code).toBe(0);
      expect(next.out().toString()).toBe('again\n');
      expect(own.pid()).not.toBe(first);
    } finally {
      own.close();
    }
  });

  it('a program whose exit it had reported keeps that exit when the spawner dies after', async () => {
    const own = new SpawnerLauncher(script, localLauncher);
    const dir = tempDir();
    try {
      // The shell exits 5 at once; its background sleep keeps stdout open.
      const out: Buffer[] = [];
      const p = own.launch({
        file: '/bin/sh',
        args: ['-c', `sleep 60 & echo $! > ${dir}/bg; echo hi; exit 5`],
        cwd: dir,
        env,
        stdin: '',
        onStdout: (c) => out.push(c),
      });
      await p.spawned;
      await waitFor(() => !alive(p.pid as number) && existsSync(join(dir, 'bg')));
      const bg = Number(readFileSync(join(dir, 'bg'), 'utf8'));
      // Messages arrive in order: once a later launch has ended, the shell's exit was heard.
      await run(own, 'true', []).p.closed;
      process.kill(own.pid() as number, 'SIGKILL');
      await waitFor(() => own.pid() === undefined);
      expect(alive(bg)).toBe(true);
      process.kill(bg, 'SIGKILL');
      expect(await p.closed).toEqual({ code: 5, signal: null, error: null });
      expect(Buffer.concat(out).toString()).toBe('hi\n');
    } finally {
      own.close();
    }
  });

  it.each([
    ['exits while its spawner is still starting', 'process.exit(0);'],
    ['is killed once its spawner runs', 'await p.spawned; process.kill(process.pid, "SIGKILL");'],
  ])('goes, with its socket, when the process that started it %s', async (_name, ending) => {
    // A separate process holds the spawner, then ends abruptly; ours must not outlive it.
    const door = join(dirname(script), 'index.js');
    const dir = tempDir();
    const code = `
      import { SpawnerLauncher, localLauncher } from ${JSON.stringify(door)};
      const l = new SpawnerLauncher(${JSON.stringify(script)}, localLauncher);
      const p = l.launch({ file: 'true', args: [], cwd: ${JSON.stringify(dir)}, env: {}, stdin: '' });
      console.log(JSON.stringify({ pid: l.pid(), dir: l.current.dir }));
      ${ending}`;
    // Not its stderr: the spawner inherits that, and would hold the pipe open past this process.
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 20_000,
    });
    // \`current\` is private to TypeScript only: the socket's directory, gone with the spawner.
    const { pid, dir: socketDir } = JSON.parse(r.stdout.trim().split('\n')[0] as string) as {
      pid: number;
      dir: string;
    };
    expect(pid).toBeGreaterThan(0);
    expect(socketDir).toContain('svc-spawner-');
    await waitFor(() => !alive(pid), 10_000);
    await waitFor(() => !existsSync(socketDir));
  });

  it('runs a launch let go of in the same turn, and only then lets the spawner go', async () => {
    const own = new SpawnerLauncher(script, localLauncher);
    await run(own, 'true', []).p.closed; // the spawner is up
    const first = own.pid() as number;
    const r = run(own, '/bin/sh', ['-c', 'echo late']);
    own.close();
    expect(await r.p.closed).toEqual({ code: 0, signal: null, error: null });
    expect(r.out().toString()).toBe('late\n');
    await waitFor(() => !alive(first));
  });

  it('forks here, and says why, when no spawner can start', async () => {
    const troubles: string[] = [];
    const cwd = tempDir();
    const tmp = process.env.TMPDIR;
    process.env.TMPDIR = '/no/such/dir';
    const own = new SpawnerLauncher(script, localLauncher, (m) => troubles.push(m));
    try {
      const p = own.launch({ file: 'sleep', args: ['60'], cwd, env, stdin: '' });
      await p.spawned;
      expect(parentOf(p.pid as number)).toBe(process.pid);
      p.signal('SIGKILL');
      expect((await p.closed).signal).toBe('SIGKILL');
      expect(troubles.join('\n')).toMatch(/the spawner cannot start .*ENOENT/);
    } finally {
      if (tmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmp;
      own.close();
    }
  });

  it('is shared by the daemons of one process and goes with the last; SVC_SPAWNER=off forks here', async () => {
    // Through whichever launcher this process uses now.
    const here = { launch };
    const one = useSpawner();
    const two = useSpawner();
    expect(await parentOfLaunch(here)).toBe(spawnerPid());
    const first = spawnerPid();
    one();
    one(); // a second release of the same hold changes nothing
    expect(await parentOfLaunch(here)).toBe(first);
    two();
    expect(spawnerPid()).toBeUndefined();
    expect(await parentOfLaunch(here)).toBe(process.pid);

    process.env.SVC_SPAWNER = 'off';
    try {
      const off = useSpawner();
      expect(await parentOfLaunch(here)).toBe(process.pid);
      off();
    } finally {
      delete process.env.SVC_SPAWNER;
    }
  });

  it('runs a daemon’s steps, and goes when the daemon does', async () => {
    const dir = tempDir();
    const t = await buildTestApp();
    const { project } = await addProject(t, {
      ppid: commandWorkflow('ppid', `echo $PPID > ${dir}/ppid`),
    });
    const task = await createTask(t, { project_id: project.id, title: 'ppid', workflow: 'ppid' });
    await waitState(t, task.id, 'done');
    const sp = spawnerPid();
    expect(sp).toBeDefined();
    expect(Number(readFileSync(join(dir, 'ppid'), 'utf8'))).toBe(sp);
    await t.close();
    expect(spawnerPid()).toBeUndefined();
    await waitFor(() => !alive(sp as number));
    // With no daemon, a launch forks here again.
    const here = launch({ file: 'sleep', args: ['60'], cwd: dir, env, stdin: '' });
    expect(parentOf(here.pid as number)).toBe(process.pid);
    here.signal('SIGKILL');
    await here.closed;
  });

  it('an attempt whose spawner dies fails with why, and the next attempt runs under a new one', async () => {
    const dir = tempDir();
    const t = await buildTestApp();
    try {
      const { project } = await addProject(t, {
        once: commandWorkflow(
          'once',
          `if [ -e ${dir}/tried ]; then echo second; else touch ${dir}/tried; sleep 60; fi`,
        ),
      });
      const task = await createTask(t, { project_id: project.id, title: 'x', workflow: 'once' });
      await waitFor(() => existsSync(join(dir, 'tried')));
      const first = spawnerPid() as number;
      process.kill(first, 'SIGKILL');
      // The command step's retry policy runs it again; the second attempt prints and succeeds.
      const done = await waitState(t, task.id, 'done');
      const runs = JSON.stringify(done);
      expect(runs).toContain('"failure_reason":"shell_unavailable"');
      expect(runs).toContain('ESPAWNER: the spawner process ended (SIGKILL)');
      expect(spawnerPid()).toBeDefined();
      expect(spawnerPid()).not.toBe(first);
    } finally {
      await t.close();
    }
  });
});
