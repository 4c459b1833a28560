// Issue 10 point 6: steps in a container of the configured runtime, against a fake runtime CLI on
// PATH that records its argv and runs the command locally (no container engine runs here).
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, waitFor } from '../../support/app.js';
import {
  act,
  addProject,
  commandWorkflow,
  createTask,
  getTask,
  waitState,
} from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';

// A shell line, not a JS template: the `${...}` is the shell's default-value expansion.
// biome-ignore lint/suspicious/noTemplateCurlyInString: shell syntax on purpose
const INSIDE_CMD = 'echo "$FROM_POLICY:${SVC_HOST_SECRET:-unset}:$HOME" > inside.txt';

const FAKE = fileURLToPath(new URL('../../fixtures/fake-runtime', import.meta.url));
const saved = { ...process.env };

beforeAll(() => {
  process.env.PATH = `${FAKE}:${process.env.PATH}`;
});
afterAll(() => {
  for (const k of [
    'PATH',
    'FAKE_RUNTIME_RECORD',
    'FAKE_RUNTIME_IMAGES',
    'FAKE_RUNTIME_PULLABLE',
    'FAKE_RUNTIME_BROKEN',
    'SVC_HOST_SECRET',
  ]) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

interface Call {
  argv: string[];
  env?: Record<string, string>;
}

function calls(file: string): Call[] {
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Call)
    : [];
}

function runtime(images = 'node:20', pullable = '') {
  const record = join(tempDir(), 'calls.jsonl');
  process.env.FAKE_RUNTIME_RECORD = record;
  process.env.FAKE_RUNTIME_IMAGES = images;
  process.env.FAKE_RUNTIME_PULLABLE = pullable;
  delete process.env.FAKE_RUNTIME_BROKEN;
  return record;
}

describe('containerized steps', () => {
  it('run the command and its check in `<runtime> run` with the repo and worktree at their host paths', async () => {
    const record = runtime();
    process.env.SVC_HOST_SECRET = 'must-not-pass';
    const home = tempDir();
    mkdirSync(join(home, '.claude'));
    const t = await buildTestApp({
      config: `container:\n  image: node:20\n  extra_mounts: [/opt/cache:/cache:ro]\nenvironment:\n  set: {FROM_POLICY: yes-please}\n`,
    });
    const prevHome = process.env.HOME;
    process.env.HOME = home;
    const { project } = await addProject(t, {
      c: commandWorkflow('c', INSIDE_CMD, '    check: test -f inside.txt\n'),
    });
    const task = await createTask(t, { project_id: project.id, title: 'in a box', workflow: 'c' });
    const done = await waitState(t, task.id, 'done');
    process.env.HOME = prevHome;
    const wt = done.worktree_path as string;
    expect(readFileSync(join(wt, 'inside.txt'), 'utf8')).toBe('yes-please:unset:/svc-home\n');
    const runs = calls(record).filter((c) => c.argv[0] === 'run');
    expect(runs).toHaveLength(2);
    const [main] = runs;
    const a = main?.argv ?? [];
    expect(a.slice(0, 4)).toEqual(['run', '--rm', '-i', '--init']);
    expect(a[a.indexOf('--name') + 1]).toMatch(new RegExp(`^svc-${task.id}-\\d+-1$`));
    const mounts = a.flatMap((x, i) => (x === '-v' ? [a[i + 1]] : []));
    expect(mounts).toEqual(
      expect.arrayContaining([
        `${project.path}:${project.path}`,
        `${wt}:${wt}`,
        `${home}/.claude:/svc-home/.claude`,
        '/opt/cache:/cache:ro',
      ]),
    );
    expect(a[a.indexOf('-w') + 1]).toBe(wt);
    expect(a.slice(a.indexOf('node:20'))).toEqual(['node:20', '/bin/sh', '-c', INSIDE_CMD]);
    expect(a).toContain('--add-host');
    expect(a.join(' ')).not.toContain('yes-please');
    expect(main?.env?.SVC_TASK_ID).toBe(String(task.id));
    expect(main?.env).not.toHaveProperty('SVC_HOST_SECRET');
    expect(calls(record).some((c) => c.argv[0] === 'version')).toBe(true);
  });

  it('network: false runs without a network; a workflow image of "" forces the host', async () => {
    const record = runtime();
    const t = await buildTestApp({
      config: 'container:\n  image: node:20\n  network: false\nmcp:\n  wire_steps: false\n',
    });
    const { project } = await addProject(t, {
      boxed: commandWorkflow('boxed', 'true'),
      host: 'name: host\ndefaults:\n  container:\n    image: ""\nsteps:\n  - id: h\n    type: command\n    run: "true"\n',
    });
    await waitState(
      t,
      (await createTask(t, { project_id: project.id, title: 'b', workflow: 'boxed' })).id,
      'done',
    );
    const run = calls(record).find((c) => c.argv[0] === 'run');
    expect(run?.argv.join(' ')).toContain('--network none');
    const before = calls(record).length;
    await waitState(
      t,
      (await createTask(t, { project_id: project.id, title: 'h', workflow: 'host' })).id,
      'done',
    );
    expect(calls(record)).toHaveLength(before);
  });

  it('cancel stops the step’s container too', async () => {
    const record = runtime();
    const t = await buildTestApp({ config: 'container:\n  image: node:20\n' });
    const { project } = await addProject(t, { slow: commandWorkflow('slow', 'sleep 30') });
    const task = await createTask(t, { project_id: project.id, title: 's', workflow: 'slow' });
    await waitFor(
      async () =>
        (await getTask(t, task.id)).steps?.length === 1 &&
        calls(record).some((c) => c.argv[0] === 'run'),
    );
    await act(t, task.id, 'cancel');
    await waitFor(() =>
      calls(record).some((c) => c.argv[0] === 'kill' && c.argv[1]?.startsWith(`svc-${task.id}-`)),
    );
  });
});

describe('container refusals and blocks (SPEC §2.10 table)', () => {
  it('refuses creation when the runtime is missing or unusable, naming the binary', async () => {
    runtime();
    process.env.FAKE_RUNTIME_BROKEN = '1';
    const t = await buildTestApp({ config: 'container:\n  image: node:20\n  runtime: podman\n' });
    const { project } = await addProject(t, { c: commandWorkflow('c', 'true') });
    const res = await t.api('POST', '/v1/tasks', {
      project_id: project.id,
      title: 'x',
      workflow: 'c',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toContain('podman');
    delete process.env.FAKE_RUNTIME_BROKEN;
  });

  it('refuses an agent workflow without network while MCP wiring is on, naming the workflow', async () => {
    runtime();
    const t = await buildTestApp({ config: 'container:\n  image: node:20\n  network: false\n' });
    const { project } = await addProject(t, {
      agents:
        'name: agents\nsteps:\n  - id: l\n    type: loop\n    count: 1\n    steps:\n      - id: a\n        type: agent\n        prompt: hi\n',
    });
    const res = await t.api('POST', '/v1/tasks', {
      project_id: project.id,
      title: 'x',
      workflow: 'agents',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toContain('workflow agents');
  });

  it('blocks at admission: an image missing and not pullable, a runtime gone since creation', async () => {
    runtime('other:1', '');
    const t = await buildTestApp({ config: 'container:\n  image: node:20\n' });
    const { project } = await addProject(t, { c: commandWorkflow('c', 'true') });
    const img = await createTask(t, { project_id: project.id, title: 'i', workflow: 'c' });
    expect((await waitState(t, img.id, 'blocked')).block_reason).toBe(
      'container_image_unavailable',
    );
    runtime('', 'node:20');
    const pulled = await createTask(t, { project_id: project.id, title: 'p', workflow: 'c' });
    await waitState(t, pulled.id, 'done');
    const held = await createTask(t, {
      project_id: project.id,
      title: 'g',
      workflow: 'c',
      paused: true,
    });
    process.env.FAKE_RUNTIME_BROKEN = '1';
    await act(t, held.id, 'resume');
    expect((await waitState(t, held.id, 'blocked')).block_reason).toBe('container_unavailable');
    delete process.env.FAKE_RUNTIME_BROKEN;
  });
});
