// Issue 20 point 2: `svc chat attach` is a prompt loop in a terminal — a prompt, a question shown
// with its options and answered inline, `/quit`, Ctrl-D and Ctrl-C at the prompt each end it —
// and the same loop piped. The terminal is real: the built CLI runs under `script`, which gives
// it a pseudo-terminal, and keys are typed into it one line at a time as a person would.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentConfig } from '../support/agents.js';
import { waitFor } from '../support/app.js';
import { cli } from '../support/cli.js';
import { svcAsync } from '../support/cli-proc.js';
import { daemonEnv, startDaemon } from '../support/daemon.js';
import { HAVE_BUILD, SVC_BIN } from '../support/daemon-proc.js';
import { gitRepo } from '../support/git.js';

const HAVE_SCRIPT = spawnSync('script', ['--version']).status === 0;

async function world() {
  const env = daemonEnv();
  mkdirSync(env.SVC_CONFIG_DIR, { recursive: true, mode: 0o700 });
  writeFileSync(
    join(env.SVC_CONFIG_DIR, 'config.yaml'),
    agentConfig({ FAKE_CLAUDE_SCENARIO: 'ask-question' }),
    { mode: 0o600 },
  );
  await startDaemon(env);
  const project = JSON.parse((await cli(env, 'project', 'add', gitRepo().path, '--json')).out) as {
    id: number;
  };
  const created = await cli(env, 'chat', 'new', '--project', String(project.id), '--title', 'tty');
  expect(created.code, created.err).toBe(0);
  return env;
}

/** The built CLI in a pseudo-terminal: what it printed (echo included), keys in, its exit code. */
function inTerminal(env: NodeJS.ProcessEnv, args: string[]) {
  const command = [process.execPath, SVC_BIN, ...args].map((a) => `'${a}'`).join(' ');
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    env: { ...process.env, ...env, TERM: 'dumb' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let screen = '';
  child.stdout.on('data', (b: Buffer) => {
    screen += b.toString('utf8');
  });
  child.stderr.on('data', (b: Buffer) => {
    screen += b.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return {
    screen: () => screen,
    /** Waits until `text` appears after the first `skip` characters; answers where it ends. */
    async waitFor(text: string, from = 0): Promise<number> {
      return waitFor(() => {
        const at = screen.indexOf(text, from);
        return at >= 0 ? at + text.length : null;
      }, 30_000).catch(() => {
        throw new Error(`never saw ${JSON.stringify(text)}; the terminal shows:\n${screen}`);
      });
    },
    type(keys: string) {
      child.stdin.write(keys);
    },
    exited,
    kill: () => child.kill('SIGKILL'),
  };
}

describe.skipIf(!HAVE_BUILD || !HAVE_SCRIPT)('svc chat attach in a terminal', () => {
  it('prompts, shows a question with its options, takes the answer inline, and /quit leaves', async () => {
    const env = await world();
    const tty = inTerminal(env, ['chat', 'attach', '1']);
    try {
      let at = await tty.waitFor('you> ');
      tty.type('pick a colour\r');
      at = await tty.waitFor('? Which colour?', at);
      at = await tty.waitFor('1) Red', at);
      at = await tty.waitFor('2) Blue', at);
      at = await tty.waitFor('Colour> ', at);
      tty.type('2\r');
      at = await tty.waitFor('answered: {"Which colour?":"Blue"}', at);
      at = await tty.waitFor('you> ', at);
      tty.type('/quit\r');
      expect(await tty.exited).toBe(0);
    } finally {
      tty.kill();
    }
    const d = JSON.parse((await cli(env, 'chat', 'show', '1', '--json')).out);
    expect(d.chat.state).toBe('idle');
    expect(d.turns).toMatchObject([{ seq: 1, state: 'succeeded', message: 'pick a colour' }]);
  }, 120_000);

  it('Ctrl-D and Ctrl-C at the prompt leave too', async () => {
    const env = await world();
    for (const key of ['\x04', '\x03']) {
      const tty = inTerminal(env, ['chat', 'attach', '1']);
      try {
        await tty.waitFor('you> ');
        tty.type(key);
        expect(await tty.exited).toBe(0);
      } finally {
        tty.kill();
      }
    }
  }, 120_000);

  it('piped, the same loop answers a question line by line and ends at the end of input', async () => {
    const env = await world();
    const r = await svcAsync(env, ['chat', 'attach', '1'], {
      input: 'pick a colour\nBlue\n',
      timeoutMs: 60_000,
    });
    expect(r).toMatchObject({ timedOut: false, code: 0 });
    expect(r.out).toContain('? Which colour?');
    expect(r.out).toContain('answered: {"Which colour?":"Blue"}');
    // Piped, nothing is prompted: the output is the conversation only.
    expect(r.out).not.toContain('you> ');
  }, 120_000);
});
