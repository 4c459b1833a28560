// Issue 12 point 1: the built `svc tui` on a real terminal — a tmux session driven by send-keys
// and read with capture-pane — against a daemon started by the built `svc daemon start`.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/app.js';
import { skipUnlessCi } from '../support/ci.js';
import { gitRepo } from '../support/git.js';
import { tempDir } from '../support/tmp.js';

const SVC = fileURLToPath(new URL('../../dist/bin/svc.js', import.meta.url));
const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const skip = !hasTmux
  ? 'tmux is not installed'
  : !existsSync(SVC)
    ? 'dist/ is not built (npm test builds it first)'
    : null;

/** A private tmux server, so the test never touches the user's sessions. */
const SOCKET = `svc-e2e-${process.pid}`;
const tmux = (...args: string[]) =>
  execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });

const skipped = skipUnlessCi(skip, 'svc tui in a tmux session');

describe.skipIf(skipped)(`svc tui in a tmux session${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let env: Record<string, string>;
  let root = '';

  const svc = (...args: string[]) => {
    const r = spawnSync(process.execPath, [SVC, ...args], {
      env: { ...process.env, ...env },
      encoding: 'utf8',
      timeout: 30_000,
    });
    return { code: r.status, out: r.stdout.trim(), err: r.stderr.trim() };
  };
  const screen = (session: string) => tmux('capture-pane', '-p', '-t', session);
  const until = async (session: string, match: RegExp, timeoutMs = 20_000) => {
    try {
      return await waitFor(
        () => (match.test(screen(session)) ? screen(session) : null),
        timeoutMs,
        100,
      );
    } catch {
      throw new Error(`tmux never showed ${match}; screen:\n${screen(session)}`);
    }
  };
  const alive = (session: string) =>
    spawnSync('tmux', ['-L', SOCKET, 'has-session', '-t', session]).status === 0;

  beforeAll(() => {
    root = tempDir('svc-tui-e2e-');
    env = { SVC_DATA_DIR: join(root, 'data'), SVC_CONFIG_DIR: join(root, 'config') };
    expect(svc('daemon', 'start').code).toBe(0);
  });

  afterAll(() => {
    spawnSync('tmux', ['-L', SOCKET, 'kill-server']);
    svc('daemon', 'stop');
  });

  it('refuses to start without a terminal', () => {
    const r = svc('tui');
    expect(r.code).toBe(2);
    expect(r.err).toContain('svc tui: needs a terminal');
  });

  it('lists tasks live, approves by key, creates a task from the form and quits cleanly', async () => {
    const repo = gitRepo();
    mkdirSync(join(repo.path, '.svc', 'workflows'), { recursive: true });
    writeFileSync(
      join(repo.path, '.svc', 'workflows', 'gate.yaml'),
      'name: gate\nsteps:\n  - id: hello\n    type: command\n    run: echo hello\n  - id: check\n    type: manual\n    instructions: look\n',
    );
    repo.commit('workflows');
    expect(svc('project', 'add', repo.path, '--name', 'demo').code).toBe(0);
    const created = svc(
      'task',
      'create',
      '--project',
      '1',
      '--title',
      'Ship it',
      '--workflow',
      'gate',
      '--json',
    );
    const id = JSON.parse(created.out).id as number;

    const session = 'board';
    tmux(
      'new-session',
      '-d',
      '-s',
      session,
      '-x',
      '120',
      '-y',
      '32',
      '-e',
      `SVC_DATA_DIR=${env.SVC_DATA_DIR}`,
      '-e',
      `SVC_CONFIG_DIR=${env.SVC_CONFIG_DIR}`,
      // Set on purpose: CI runners export it, and Ink would then draw nothing until exit.
      '-e',
      'CI=true',
      `${process.execPath} ${SVC} tui`,
    );
    const board = await until(session, new RegExp(`#${id}\\s+awaiting_gate\\s+2/2 check.*Ship it`));
    expect(board).toMatch(/^svc 1 tasks · 0 running · 1 waiting on you/);
    expect(board).toMatch(/demo \(1\)\n\s+gate \(1\)/);
    expect(board).toContain('a approve · x reject · s skip · c cancel');

    tmux('send-keys', '-t', session, 'a');
    await until(session, new RegExp(`#${id}\\s+done`));
    expect(JSON.parse(svc('task', 'show', String(id), '--json').out).state).toBe('done');

    tmux('send-keys', '-t', session, 'Enter');
    const detail = await until(session, /Steps\n.*STEP/);
    expect(detail).toMatch(/2\s+check\s+manual\s+approved/);
    expect(detail).toContain('hello');
    tmux('send-keys', '-t', session, 'Escape');
    await until(session, /demo \(1\)/);

    tmux('send-keys', '-t', session, 'n');
    await until(session, /New task\n.*Project\*\s+‹ demo ›/);
    tmux('send-keys', '-t', session, 'Down');
    await until(session, /Workflow\*\s+‹ adhoc ›/);
    tmux('send-keys', '-t', session, 'Right', 'Right');
    await until(session, /Workflow\*\s+‹ gate ›/);
    tmux('send-keys', '-t', session, 'Down');
    tmux('send-keys', '-t', session, '-l', 'From tmux');
    await until(session, /Title\*\s+From tmux/);
    tmux('send-keys', '-t', session, 'C-s');
    const made = await until(session, /created #(\d+) \(queued\)/);
    const newId = Number(/created #(\d+)/.exec(made)?.[1]);
    await until(session, new RegExp(`#${newId}\\s+awaiting_gate.*From tmux`));

    tmux('send-keys', '-t', session, 'q');
    await waitFor(() => !alive(session), 10_000);
  });
});
