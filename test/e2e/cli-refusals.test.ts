// Issue 20 point 1: every CLI command that streams ends when the request behind it is refused,
// with the refusal's message and a non-zero exit, and a cancelled turn says so. Each case runs the
// built CLI as its own process with a timeout: a stream left open on a refusal kept the process
// alive after it printed the message, which only a real process shows.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentConfig } from '../support/agents.js';
import { waitFor } from '../support/app.js';
import { cli } from '../support/cli.js';
import { startSvc, svcAsync } from '../support/cli-proc.js';
import { daemonEnv, startDaemon } from '../support/daemon.js';
import { HAVE_BUILD } from '../support/daemon-proc.js';
import { gitRepo } from '../support/git.js';

async function world() {
  const env = daemonEnv();
  mkdirSync(env.SVC_CONFIG_DIR, { recursive: true, mode: 0o700 });
  writeFileSync(
    join(env.SVC_CONFIG_DIR, 'config.yaml'),
    agentConfig({ FAKE_CLAUDE_SCENARIO: 'hang' }, 'max_parallel_chats: 1\n'),
    { mode: 0o600 },
  );
  await startDaemon(env);
  const added = await cli(env, 'project', 'add', gitRepo().path, '--json');
  const project = JSON.parse(added.out) as { id: number };
  const newChat = async (title: string) => {
    const r = await cli(env, 'chat', 'new', '--project', String(project.id), '--title', title);
    expect(r.code, r.err).toBe(0);
    return Number(/^chat (\d+)/.exec(r.out)?.[1]);
  };
  const chatState = async (id: number) =>
    (
      JSON.parse((await cli(env, 'chat', 'show', String(id), '--json')).out) as {
        chat: { state: string };
      }
    ).chat.state;
  return { env, newChat, chatState };
}

describe.skipIf(!HAVE_BUILD)('streaming commands end on a refusal (built CLI)', () => {
  it('chat send and chat attach on an archived chat, and an unknown chat or task', async () => {
    const { env, newChat } = await world();
    const id = await newChat('done talking');
    expect((await cli(env, 'chat', 'archive', String(id))).code).toBe(0);

    const sent = await svcAsync(env, ['chat', 'send', String(id), 'hello']);
    expect(sent).toMatchObject({ timedOut: false, code: 5 });
    expect(sent.err).toContain('cannot send to a chat that is archived');

    const attached = await svcAsync(env, ['chat', 'attach', String(id)], { input: 'hello\n' });
    expect(attached).toMatchObject({ timedOut: false, code: 5 });
    expect(attached.err).toContain(`chat ${id} is archived`);

    const unknown = await svcAsync(env, ['chat', 'send', '999', 'hello']);
    expect(unknown).toMatchObject({ timedOut: false, code: 4 });
    expect(unknown.err).toContain('chat 999 not found');

    const logs = await svcAsync(env, ['task', 'logs', '999', '-f']);
    expect(logs).toMatchObject({ timedOut: false, code: 4 });
    expect(logs.err).toContain('task 999 not found');
  }, 120_000);

  it('a live turn and the chat cap refuse a send; cancelling a streamed turn ends it non-zero', async () => {
    const { env, newChat, chatState } = await world();
    const a = await newChat('busy');
    const b = await newChat('waiting');
    // The fake agent hangs: this send streams until its turn is cancelled.
    const streaming = startSvc(env, ['chat', 'send', String(a), 'think hard'], {
      timeoutMs: 60_000,
    });
    await waitFor(async () => (await chatState(a)) === 'running', 30_000);

    const again = await svcAsync(env, ['chat', 'send', String(a), 'and more']);
    expect(again).toMatchObject({ timedOut: false, code: 5 });
    expect(again.err).toContain('cannot send to a chat that is running');

    const capped = await svcAsync(env, ['chat', 'send', String(b), 'hello']);
    expect(capped).toMatchObject({ timedOut: false, code: 5 });
    expect(capped.err).toContain('max_parallel_chats (1)');

    // Piped, attach ends on the first refusal with its exit code; later lines are not sent.
    const attached = await svcAsync(env, ['chat', 'attach', String(b)], {
      input: 'hello\nsecond\n',
    });
    expect(attached).toMatchObject({ timedOut: false, code: 5 });
    expect(attached.err).toContain('max_parallel_chats (1)');

    expect((await cli(env, 'chat', 'cancel', String(a))).code).toBe(0);
    const ended = await streaming.done;
    expect(ended).toMatchObject({ timedOut: false, code: 1 });
    expect(ended.err).toContain('turn 1 was cancelled');
  }, 120_000);
});
