// Issue 4 point 10: `svc project …` and `svc task …` against a real daemon, with --json and exit codes.
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { waitFor } from '../../support/app.js';
import { cli, cliCreateTask, cliProject } from '../../support/cli.js';
import { daemonEnv, startDaemon } from '../../support/daemon.js';
import { gitRepo } from '../../support/git.js';

async function start() {
  const env = daemonEnv();
  await startDaemon(env);
  return env;
}

describe('svc project', () => {
  it('adds, lists, shows, edits and removes, with exit codes a script can branch on', async () => {
    const env = await start();
    const repo = gitRepo();
    const add = await cli(env, 'project', 'add', repo.path, '--name', 'demo', '--json');
    expect(add.code).toBe(0);
    const p = JSON.parse(add.out);
    expect(p).toMatchObject({ name: 'demo', path: repo.path, default_branch: 'main' });
    expect((await cli(env, 'project', 'list')).out).toMatch(/1\s+demo\s+main/);
    expect((await cli(env, 'project', 'show', '1')).out).toContain('default branch    main');
    const edit = await cli(env, 'project', 'edit', '1', '--max-parallel', '2', '--json');
    expect(JSON.parse(edit.out).max_parallel_tasks).toBe(2);
    expect((await cli(env, 'project', 'add', repo.path)).code).toBe(6);
    expect((await cli(env, 'project', 'show', '9')).code).toBe(4);
    expect((await cli(env, 'project', 'show', 'x')).code).toBe(2);
    expect((await cli(env, 'project', 'rm', '1')).code).toBe(0);
    expect((await cli(env, 'project', 'list')).out).toContain('no projects');
  });
});

describe('svc task', () => {
  it('refuses a blank repair prompt before asking the daemon', async () => {
    const env = daemonEnv();
    const blank = await cli(env, 'task', 'repair', '1', '--prompt', '  ');
    expect(blank.code).toBe(2);
    expect(blank.err).toBe('svc task repair: --prompt is required and must not be blank');
  });

  it('creates, lists, shows a timeline, prints logs and acts', async () => {
    const env = await start();
    await cliProject(env, {
      build:
        'name: build\nsteps:\n  - id: hello\n    type: command\n    run: echo hello-from-svc\n  - id: gate\n    type: manual\n    instructions: check it\n',
    });
    // Throws unless the CLI exits 0.
    const task = await cliCreateTask(env, 'Say hello', 'build', '--field', 'kind=demo');
    expect(task).toMatchObject({ title: 'Say hello', fields: { kind: 'demo' } });
    await waitFor(
      async () =>
        JSON.parse((await cli(env, 'task', 'show', String(task.id), '--json')).out).state ===
        'awaiting_gate',
      10_000,
    );
    const list = await cli(env, 'task', 'list');
    expect(list.out).toMatch(new RegExp(`${task.id}\\s+awaiting_gate`));
    const show = await cli(env, 'task', 'show', String(task.id));
    expect(show.out).toContain('actions   approve, cancel, reject, skip');
    expect(show.out).toMatch(/1\s+hello\s+command\s+succeeded/);
    expect(show.out).toMatch(/>2\s+gate\s+manual\s+running/);
    const logs = await cli(env, 'task', 'logs', String(task.id));
    expect(logs.out).toContain('hello-from-svc');
    expect(logs.out).toContain('$ echo hello-from-svc');
    expect((await cli(env, 'task', 'steps', String(task.id))).out).toMatch(
      /hello\s+1\s+succeeded\s+0/,
    );
    const refused = await cli(env, 'task', 'resume', String(task.id));
    expect(refused.code).toBe(5);
    expect(refused.err).toContain('awaiting_gate');
    expect((await cli(env, 'task', 'approve', String(task.id))).out).toBe(`task ${task.id} queued`);
    await waitFor(
      async () =>
        JSON.parse((await cli(env, 'task', 'show', String(task.id), '--json')).out).state ===
        'done',
      10_000,
    );
    expect((await cli(env, 'task', 'follow-up', String(task.id))).code).toBe(2);
    const fu = await cli(env, 'task', 'follow-up', String(task.id), '--run', 'echo more');
    expect(fu.out).toBe(`task ${task.id} queued`);
    await waitFor(
      async () =>
        JSON.parse((await cli(env, 'task', 'show', String(task.id), '--json')).out).state ===
        'done',
      10_000,
    );
    const archived = await cli(env, 'task', 'archive', String(task.id));
    expect(archived.out).toContain('archived');
    expect(archived.out).toContain('deleted');
    expect((await cli(env, 'task', 'list')).out).toBe('no tasks');
    expect((await cli(env, 'task', 'list', '--all')).out).toContain('archived');
  });

  it('shows loop progress in the timeline and the lane tree', async () => {
    const env = await start();
    await cliProject(env, {
      fan: 'name: fan\nsteps:\n  - id: split\n    type: fan_out\n    lanes:\n      - id: left\n        steps:\n          - id: l\n            type: command\n            run: "true"\n      - id: right\n        steps:\n          - id: r\n            type: command\n            run: "true"\n  - id: again\n    type: loop\n    for_each: "x\\ny"\n    steps:\n      - id: echo\n        type: command\n        run: echo {{.Item}}\n',
    });
    const task = await cliCreateTask(env, 'tree', 'fan');
    await waitFor(
      async () =>
        JSON.parse((await cli(env, 'task', 'show', String(task.id), '--json')).out).state ===
        'done',
      20_000,
    );
    const tree = await cli(env, 'task', 'tree', String(task.id));
    expect(tree.out).toMatch(/lanes 2\/2 settled/);
    // Issue 19 point 14: a lane with a sibling below it is drawn ├─, the last └─.
    expect(tree.out).toMatch(/├─ \d+ left done/);
    expect(tree.out).toMatch(/└─ \d+ right done/);
    const show = await cli(env, 'task', 'show', String(task.id));
    expect(show.out).toMatch(/2\s+again\s+loop\s+2 succeeded/);
    expect(show.out).toMatch(/\[2 y\] echo\s+command\s+succeeded/);
  });

  it('follows live output with logs -f until the task stops', async () => {
    const env = await start();
    await cliProject(env, {
      slow: 'name: slow\nsteps:\n  - id: s\n    type: command\n    run: for i in 1 2 3; do echo tick$i; sleep 0.2; done\n',
    });
    const task = await cliCreateTask(env, 'ticks', 'slow');
    const logs = await cli(env, 'task', 'logs', String(task.id), '-f');
    expect(logs.code).toBe(0);
    // Each line exactly once: what the transcript already had is not repeated from the live stream.
    for (const tick of ['tick1', 'tick2', 'tick3'])
      expect(logs.out.split('\n').filter((l) => l === tick)).toHaveLength(1);
    expect(logs.out).toContain(`task ${task.id} is done`);
  });

  it('follows with --raw as stored: the same lines --raw prints once the task is done', async () => {
    const env = await start();
    await cliProject(env, {
      slow: 'name: slow\nsteps:\n  - id: s\n    type: command\n    run: for i in 1 2 3; do echo tick$i; echo tock$i >&2; sleep 0.2; done\n  - id: t\n    type: command\n    run: echo last\n',
    });
    const task = await cliCreateTask(env, 'ticks', 'slow');
    const live = await cli(env, 'task', 'logs', String(task.id), '-f', '--raw');
    expect(live.code).toBe(0);
    const stored = await cli(env, 'task', 'logs', String(task.id), '--raw');
    // Headers say `running` live and `succeeded` afterwards; every other line is the same.
    const body = (out: string) =>
      out.split('\n').filter((l) => !l.startsWith('── ') && !l.startsWith('  '));
    expect(body(live.out)).toEqual(body(stored.out));
    const texts = body(stored.out).map((l) => JSON.parse(l) as { text?: string });
    // Which of a pair the daemon read first is up to the two pipes; each line is there once.
    expect(
      texts
        .filter((l) => l.text?.startsWith('t'))
        .map((l) => l.text)
        .sort(),
    ).toEqual(['tick1', 'tick2', 'tick3', 'tock1', 'tock2', 'tock3']);
    expect(live.out).toContain(`── task ${task.id} is done`);
  });

  it('ends -f --raw with the error of a live read that fails, and no crash', async () => {
    const env = await start();
    // Between the CLI and the daemon, a proxy that drops every transcript read: the task's
    // event stream goes on, so the read that fails is one made while following.
    const daemonJson = join(env.SVC_DATA_DIR, 'daemon.json');
    const info = JSON.parse(readFileSync(daemonJson, 'utf8')) as { url: string };
    const target = new URL(info.url);
    const proxy = createServer((req, res) => {
      if (req.url?.includes('/transcript')) {
        req.socket.destroy();
        return;
      }
      const up = request(
        {
          host: target.hostname,
          port: target.port,
          path: req.url,
          method: req.method,
          headers: req.headers,
        },
        (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        },
      );
      req.pipe(up);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    onTestFinished(() => new Promise<void>((r) => proxy.close(() => r())));
    const { port } = proxy.address() as AddressInfo;
    writeFileSync(daemonJson, JSON.stringify({ ...info, url: `http://127.0.0.1:${port}` }));

    await cliProject(
      env,
      {
        hold: 'name: hold\nsteps:\n  - id: h\n    type: command\n    run: sleep 0.5\n',
        talk: 'name: talk\nsteps:\n  - id: t\n    type: command\n    run: echo said\n',
      },
      '--max-parallel',
      '1',
    );
    await cliCreateTask(env, 'first', 'hold');
    // Queued behind the first: it has no transcript to read until it runs, while it is followed.
    const task = await cliCreateTask(env, 'second', 'talk');
    const live = await cli(env, 'task', 'logs', String(task.id), '-f', '--raw');
    expect(live.code).toBe(3);
    expect(live.err).toMatch(/^svc: svc daemon at http:\/\/127\.0\.0\.1:\d+ does not answer/);
    expect(live.out).not.toContain(`is done`);
  });
});

describe('svc task actions without a daemon', () => {
  it('judge their arguments first: a usage mistake is exit 2, only a good command meets exit 3', async () => {
    const env = daemonEnv();
    const bad = await cli(env, 'task', 'follow-up', '7');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('give exactly one of --prompt, --run or --workflow');
    const good = await cli(env, 'task', 'follow-up', '7', '--run', 'echo more');
    expect(good.code).toBe(3);
    expect((await cli(env, 'task', 'approve', 'seven')).code).toBe(2);
  });

  it('name the option and the value they refuse', async () => {
    const env = daemonEnv();
    const create = ['task', 'create', '--project', '1', '--title', 't', '--workflow', 'w'];
    const cases: Array<[string[], string]> = [
      [[...create, '--priority', 'high'], '--priority takes an integer'],
      [[...create, '--field', 'nofield'], '--field takes name=value, not nofield'],
      [[...create, '--max-cost', 'lots'], '--max-cost takes a number of US dollars, not lots'],
      [['task', 'answer', '7', '--allow', '--deny'], 'give --allow or --deny, not both'],
      [
        ['task', 'answer', '7', '--allow', '--answer', 'yes'],
        'a permission takes --allow or --deny; a question takes --answer',
      ],
      [['chat', 'answer', '7', '--allow', '--deny'], 'give --allow or --deny, not both'],
      [
        ['chat', 'answer', '7', '--deny', '--answer', 'Blue'],
        'a permission takes --allow or --deny; a question takes --answer',
      ],
      [['project', 'edit', '1'], 'nothing to change; see --help'],
    ];
    for (const [argv, message] of cases) {
      const r = await cli(env, ...argv);
      expect({ argv: argv.join(' '), code: r.code, err: r.err }).toEqual({
        argv: argv.join(' '),
        code: 2,
        err: expect.stringContaining(message),
      });
    }
  });
});
