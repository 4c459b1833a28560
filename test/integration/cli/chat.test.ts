// Issue 7 point 6: `svc chat …` against a real daemon whose agents are the fake CLIs: new, list,
// show, send (streaming the turn's output live), answer, cancel, archive, handoff, close, rm, and
// `attach`, an interactive prompt loop fed line by line.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../../cli/index.js';
import { agentConfig } from '../../support/agents.js';
import { waitFor } from '../../support/app.js';
import { daemonEnv, startDaemon } from '../../support/daemon.js';
import { gitRepo } from '../../support/git.js';
import { withWorkflows } from '../../support/tasks.js';

async function cli(env: NodeJS.ProcessEnv, argv: string[], lines?: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, env, {
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    ...(lines
      ? {
          lines: async function* () {
            for (const l of lines) yield l;
          },
        }
      : {}),
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

async function start(knobs: Record<string, string> = {}) {
  const env = daemonEnv();
  mkdirSync(env.SVC_CONFIG_DIR, { recursive: true, mode: 0o700 });
  writeFileSync(join(env.SVC_CONFIG_DIR, 'config.yaml'), agentConfig(knobs), { mode: 0o600 });
  await startDaemon(env);
  const repo = gitRepo();
  withWorkflows(repo, {
    fails:
      'name: fails\nsteps:\n  - id: run\n    type: command\n    run: "exit 2"\n    max_retries: 0\n',
  });
  const project = JSON.parse((await cli(env, ['project', 'add', repo.path, '--json'])).out) as {
    id: number;
  };
  return { env, project, repo };
}

describe('svc chat', () => {
  it('refuses chat new without its required flags, or with --task and a project flag', async () => {
    const env = daemonEnv();
    const cases: [string[], string][] = [
      [['chat', 'new', '--title', 'x'], '--project (or --task) is required'],
      [['chat', 'new', '--project', '1'], '--title is required'],
      [
        ['chat', 'new', '--task', '1', '--branch', 'b'],
        '--task takes no --project or --branch: the chat works in the task’s worktree',
      ],
    ];
    for (const [argv, message] of cases) {
      const r = await cli(env, argv);
      expect(r.code).toBe(2);
      expect(r.err).toBe(`svc chat new: ${message}`);
    }
  });

  it('new, send (streamed), show, list, archive and rm', async () => {
    const { env, project } = await start();
    const created = await cli(env, [
      'chat',
      'new',
      '--project',
      String(project.id),
      '--title',
      'Talk it over',
    ]);
    expect(created.code).toBe(0);
    expect(created.out).toMatch(/^chat 1 idle with claude on svc\/1-talk-it-over$/);
    const sent = await cli(env, ['chat', 'send', '1', 'say', 'hello']);
    expect(sent.code).toBe(0);
    expect(sent.out).toContain('say hello');
    const show = await cli(env, ['chat', 'show', '1']);
    expect(show.out).toContain('chat 1: Talk it over');
    expect(show.out).toMatch(/1\s+succeeded/);
    const json = JSON.parse((await cli(env, ['chat', 'show', '1', '--json'])).out);
    expect(json.turns).toHaveLength(1);
    expect((await cli(env, ['chat', 'list'])).out).toMatch(/1\s+idle\s+claude/);
    expect((await cli(env, ['chat', 'archive', '1'])).out).toContain('state     archived');
    expect((await cli(env, ['chat', 'list'])).out).toBe('no chats');
    expect((await cli(env, ['chat', 'list', '--archived'])).out).toMatch(/1\s+archived/);
    expect((await cli(env, ['chat', 'rm', '1', '--delete-branch'])).out).toBe(
      'chat 1 deleted; branch svc/1-talk-it-over: missing',
    );
    const gone = await cli(env, ['chat', 'show', '1']);
    expect(gone.code).not.toBe(0);
    expect((await cli(env, ['chat', 'new', '--title', 'x'])).code).toBe(2);
  });

  it('answer, cancel, handoff and close, with the refusals as exit codes', async () => {
    const { env, project } = await start({ FAKE_CLAUDE_SCENARIO: 'ask-question' });
    await cli(env, ['chat', 'new', '--project', String(project.id), '--title', 'ask']);
    const sent = await cli(env, ['chat', 'send', '1', 'pick one']);
    expect(sent.out).toContain('? Which colour?');
    const answered = await cli(env, ['chat', 'answer', '1', '--answer', 'Which colour?=Blue']);
    expect(answered.code).toBe(0);
    await waitFor(
      async () =>
        JSON.parse((await cli(env, ['chat', 'show', '1', '--json'])).out).chat.state === 'idle',
    );
    const cancel = await cli(env, ['chat', 'cancel', '1']);
    expect(cancel.code).not.toBe(0);
    // Issue 19 point 6: the state is said in words, never as the envelope's raw JSON.
    expect(cancel.err).toContain('chat 1 is idle');
    expect(cancel.err).not.toMatch(/[{}]/);
    const handoff = await cli(env, ['chat', 'handoff', '1', '--paused']);
    expect(handoff.out).toBe('chat 1 handed off to task 1 (paused)');
    // close is for chats on a task: open one on a blocked task.
    const task = JSON.parse(
      (
        await cli(env, [
          'task',
          'create',
          '--project',
          String(project.id),
          '--title',
          't',
          '--workflow',
          'fails',
          '--json',
        ])
      ).out,
    ) as { id: number };
    await waitFor(
      async () =>
        JSON.parse((await cli(env, ['task', 'show', String(task.id), '--json'])).out).state ===
        'blocked',
    );
    const onTask = await cli(env, ['chat', 'new', '--task', String(task.id)]);
    expect(onTask.out).toMatch(/^chat 2 idle with claude/);
    const locked = await cli(env, ['task', 'retry', String(task.id)]);
    expect(locked.code).not.toBe(0);
    expect(locked.err).toContain('locked by open chat 2');
    expect((await cli(env, ['chat', 'close', '2'])).out).toContain('state     closed');
  });

  it('attach runs a prompt loop: each line is a streamed turn, /quit leaves', async () => {
    const { env, project } = await start();
    await cli(env, ['chat', 'new', '--project', String(project.id), '--title', 'loop']);
    const r = await cli(
      env,
      ['chat', 'attach', '1'],
      ['first line', '', 'second line', '/quit', 'never sent'],
    );
    expect(r.code).toBe(0);
    expect(r.out).toContain('attached to chat 1');
    expect(r.out).toContain('first line');
    expect(r.out).toContain('second line');
    const d = JSON.parse((await cli(env, ['chat', 'show', '1', '--json'])).out);
    expect(d.turns.map((t: { message: string }) => t.message)).toEqual([
      'first line',
      'second line',
    ]);
  });
});
