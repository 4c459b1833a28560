// Issue 20 point 5: a chat's question as the command line shows and answers it — `chat show` and
// `chat answer` without an answer list each question with its options, `--answer Blue` answers the
// only question (as `svc task answer` does), and `task show` names the chat that locks a task.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentConfig } from '../../support/agents.js';
import { waitFor } from '../../support/app.js';
import { cli } from '../../support/cli.js';
import { daemonEnv, startDaemon } from '../../support/daemon.js';
import { gitRepo } from '../../support/git.js';
import { withWorkflows } from '../../support/tasks.js';

async function start() {
  const env = daemonEnv();
  mkdirSync(env.SVC_CONFIG_DIR, { recursive: true, mode: 0o700 });
  writeFileSync(
    join(env.SVC_CONFIG_DIR, 'config.yaml'),
    agentConfig({ FAKE_CLAUDE_SCENARIO: 'ask-question' }),
    { mode: 0o600 },
  );
  await startDaemon(env);
  const repo = gitRepo();
  withWorkflows(repo, {
    fails:
      'name: fails\nsteps:\n  - id: run\n    type: command\n    run: "exit 2"\n    max_retries: 0\n',
  });
  const project = JSON.parse((await cli(env, 'project', 'add', repo.path, '--json')).out) as {
    id: number;
  };
  return { env, project };
}

const chatState = async (env: NodeJS.ProcessEnv, id: number) =>
  JSON.parse((await cli(env, 'chat', 'show', String(id), '--json')).out).chat.state as string;

describe('a chat question on the command line', () => {
  it('shows the options, and --answer takes the bare value when one question waits', async () => {
    const { env, project } = await start();
    await cli(env, 'chat', 'new', '--project', String(project.id), '--title', 'ask');
    const sent = await cli(env, 'chat', 'send', '1', 'pick one');
    expect(sent.code).toBe(0);
    expect(sent.out).toContain('? Which colour? (options: Red, Blue)');
    expect(sent.out).toContain('answer with: svc chat answer 1 --answer <value>');

    const shown = await cli(env, 'chat', 'show', '1');
    expect(shown.out).toContain('  question  Which colour? (options: Red, Blue)');
    const asked = await cli(env, 'chat', 'answer', '1');
    expect(asked).toMatchObject({ code: 0 });
    expect(asked.out).toContain('? Which colour? (options: Red, Blue)');

    const answered = await cli(env, 'chat', 'answer', '1', '--answer', 'Blue');
    expect(answered.code, answered.err).toBe(0);
    await waitFor(async () => (await chatState(env, 1)) === 'idle');
    const d = JSON.parse((await cli(env, 'chat', 'show', '1', '--json')).out);
    expect(d.turns[0]).toMatchObject({
      state: 'succeeded',
      result_text: 'answered: {"Which colour?":"Blue"}',
    });

    const none = await cli(env, 'chat', 'answer', '1', '--answer', 'Blue');
    expect(none.code).toBe(5);
    expect(none.err).toContain('chat 1 is idle: no agent is waiting for an answer');
  });

  it('task show names the chat that locks the task', async () => {
    const { env, project } = await start();
    const failing = JSON.parse(
      (
        await cli(
          env,
          'task',
          'create',
          '--project',
          String(project.id),
          '--title',
          'breaks',
          '--workflow',
          'fails',
          '--json',
        )
      ).out,
    ) as { id: number };
    await waitFor(
      async () =>
        JSON.parse((await cli(env, 'task', 'show', String(failing.id), '--json')).out).state ===
        'blocked',
    );
    const opened = await cli(env, 'chat', 'new', '--task', String(failing.id));
    expect(opened.code, opened.err).toBe(0);
    const chatId = Number(/^chat (\d+)/.exec(opened.out)?.[1]);
    const shown = await cli(env, 'task', 'show', String(failing.id));
    expect(shown.out).toContain(
      `  chat      ${chatId} is open on this task and locks it (svc chat close ${chatId} lifts the lock)`,
    );
    expect(shown.out).toContain('  actions   cancel');
    await cli(env, 'chat', 'close', String(chatId));
    expect((await cli(env, 'task', 'show', String(failing.id))).out).not.toContain('locks it');
  });
});
