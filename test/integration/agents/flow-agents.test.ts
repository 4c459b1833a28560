// Issue 6 point 4: agent steps inside control flow — members of a parallel group, a loop body,
// lanes with their own agent, the merge resolver that sees {{.Conflicts}} — and in a container.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { agentConfig, FAKE_BINARIES, prompts, records, stepRuns } from '../../support/agents.js';
import { buildTestApp } from '../../support/app.js';
import { addProject, createTask, type TaskJson, waitState } from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';

describe('agent steps in control flow', () => {
  it('run as members of a parallel group, on different adapters, each with its own row', async () => {
    const t = await buildTestApp({ config: agentConfig() });
    const { project } = await addProject(t, {
      par: `name: par
steps:
  - id: both
    type: parallel
    steps:
      - id: left
        type: agent
        agent: claude
        prompt: left {{.Task.Title}}
      - id: right
        type: agent
        agent: codex
        prompt: right {{.Task.Title}}
  - id: after
    type: agent
    agent: claude
    prompt: "{{.Steps.left.Result}} + {{.Steps.right.Result}}"
`,
    });
    const task = await createTask(t, { project_id: project.id, title: 'x', workflow: 'par' });
    await waitState(t, task.id, 'done', 30_000);
    const rows = await stepRuns(t, task.id);
    const byId = Object.fromEntries(rows.map((r) => [r.step_id, r]));
    expect(byId.left).toMatchObject({ agent: 'claude', state: 'succeeded', cost_usd: 0.0123 });
    expect(byId.right).toMatchObject({ agent: 'codex', state: 'succeeded', cost_usd: null });
    expect(byId.after?.result_summary).toBe('done: done: left x + done: right x');
  });

  it('stop a parallel group on a codex usage limit that waits whatever the config says', async () => {
    const t = await buildTestApp({
      config: agentConfig(
        { FAKE_CODEX_SCENARIO: 'usage-limit' },
        'usage_limit_auto_continue: never\n',
      ),
    });
    const { project } = await addProject(t, {
      par: `name: par
steps:
  - id: both
    type: parallel
    steps:
      - id: a
        type: agent
        agent: codex
        prompt: a
      - id: b
        type: agent
        agent: claude
        prompt: b
`,
    });
    const task = await createTask(t, { project_id: project.id, title: 'x', workflow: 'par' });
    let now: TaskJson | null = null;
    for (let i = 0; i < 500; i++) {
      now = await t.json<TaskJson>('GET', `/v1/tasks/${task.id}`);
      if (now.queued_reason || now.state === 'blocked') break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(now).toMatchObject({ state: 'queued', queued_reason: 'usage_limit' });
  });

  it('run in a loop body once per iteration', async () => {
    const t = await buildTestApp({ config: agentConfig() });
    const { project } = await addProject(t, {
      loop: `name: loop
steps:
  - id: each
    type: loop
    for_each:
      - a
      - b
    steps:
      - id: do
        type: agent
        agent: claude
        prompt: "item {{.Loop.Item}}"
`,
    });
    const task = await createTask(t, { project_id: project.id, title: 'x', workflow: 'loop' });
    await waitState(t, task.id, 'done', 30_000);
    const rows = (await stepRuns(t, task.id)).filter((r) => r.step_id === 'do');
    expect(rows.map((r) => [r.iteration, r.result_summary])).toEqual([
      [1, 'done: item a'],
      [2, 'done: item b'],
    ]);
  });

  it('resolve a lane merge conflict with the agent resolver, which sees {{.Conflicts}}', {
    timeout: 90_000,
  }, async () => {
    const log = join(tempDir(), 'rec.jsonl');
    // A claude that, mid-merge, takes the incoming side and stages it before speaking.
    const dir = tempDir();
    const resolver = join(dir, 'claude');
    writeFileSync(
      resolver,
      `#!/bin/sh
if git rev-parse -q --verify MERGE_HEAD >/dev/null 2>&1; then
  git checkout --theirs -- . && git add -A
fi
exec ${FAKE_BINARIES.claude} "$@"
`,
      { mode: 0o755 },
    );
    const t = await buildTestApp({
      config: agentConfig({ FAKE_CLAUDE_RECORD: log }, 'max_parallel_tasks: 4\n', {
        ...FAKE_BINARIES,
        claude: resolver,
      }),
    });
    const { project } = await addProject(t, {
      clash: `name: clash
steps:
  - id: split
    type: fan_out
    lanes:
      - id: one
        steps:
          - id: w1
            type: command
            run: echo one > same.txt && git add same.txt && git commit -q -m one
      - id: two
        agent: codex
        steps:
          - id: w2
            type: agent
            prompt: lane two
          - id: w3
            type: command
            run: echo two > same.txt && git add same.txt && git commit -q -m two
    merge:
      on_conflict: agent
      agent:
        id: resolve
        agent: claude
        prompt: "Resolve {{range .Conflicts}}[{{.}}]{{end}}"
`,
    });
    const task = await createTask(t, { project_id: project.id, title: 'Clash', workflow: 'clash' });
    const done = await waitState(t, task.id, 'done', 60_000);
    expect(readFileSync(join(done.worktree_path as string, 'same.txt'), 'utf8')).toBe('two\n');
    expect(prompts(log)).toContain('Resolve [same.txt]');
    const resolverRow = (await stepRuns(t, task.id)).find((r) => r.step_id === 'resolve');
    expect(resolverRow).toMatchObject({ agent: 'claude', state: 'succeeded' });
    // the lane's agent applied to its subtree
    const lanes = await t.json<TaskJson[]>('GET', `/v1/tasks?parent_id=${task.id}&archived=all`);
    const two = lanes.find((l) => l.lane_id === 'two') as TaskJson;
    expect((await stepRuns(t, two.id)).find((r) => r.step_id === 'w2')?.agent).toBe('codex');
  });

  it('run the image’s CLI by name inside a container', async () => {
    // the fake runtime CLI is found first on the daemon's PATH (as container.test.ts does)
    const savedPath = process.env.PATH;
    const runtimeDir = join(import.meta.dirname, '..', '..', 'fixtures', 'fake-runtime');
    const recordFile = join(tempDir(), 'runtime.jsonl');
    process.env.PATH = `${runtimeDir}:${savedPath}`;
    process.env.FAKE_RUNTIME_IMAGES = 'img:1';
    process.env.FAKE_RUNTIME_RECORD = recordFile;
    onTestFinished(() => {
      process.env.PATH = savedPath;
      delete process.env.FAKE_RUNTIME_IMAGES;
      delete process.env.FAKE_RUNTIME_RECORD;
    });
    const bin = tempDir();
    mkdirSync(bin, { recursive: true });
    symlinkSync(FAKE_BINARIES.claude, join(bin, 'claude'));
    const t = await buildTestApp({
      config: agentConfig(
        {
          FAKE_RUNTIME_RECORD: recordFile,
          FAKE_RUNTIME_IMAGES: 'img:1',
          FAKE_CLAUDE_SCENARIO: 'edit',
          // the "image" finds claude on its PATH; the host path configured below is ignored there
          PATH: `${bin}:${runtimeDir}:${process.env.PATH}`,
          IS_SANDBOX: '1',
        },
        'container:\n  image: "img:1"\n  runtime: docker\nmcp:\n  wire_steps: false\n',
        { claude: '/nonexistent/host/claude' },
      ),
    });
    const { project } = await addProject(t, {
      one: 'name: one\nsteps:\n  - id: w\n    type: agent\n    agent: claude\n    prompt: hi\n',
    });
    const task = await createTask(t, { project_id: project.id, title: 'x', workflow: 'one' });
    const done = await waitState(t, task.id, ['done', 'blocked'], 30_000);
    expect(done.state, JSON.stringify(done.block_detail)).toBe('done');
    const run = records(recordFile).find((r) => (r.argv as string[])[0] === 'run');
    const argv = run?.argv as string[];
    expect(argv.slice(argv.indexOf('img:1') + 1, argv.indexOf('img:1') + 3)).toEqual([
      'claude',
      '-p',
    ]);
    expect(readFileSync(join(done.worktree_path as string, 'fake-edit.txt'), 'utf8')).toContain(
      'fake claude',
    );
  });
});
