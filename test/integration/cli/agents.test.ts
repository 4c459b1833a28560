// Issue 6 point 10: `svc agents`, `svc task answer` and `svc task repair` against a real daemon
// whose agents are the fake CLIs, with --json and exit codes.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentConfig, agentWorkflow, FAKE_BINARIES } from '../../support/agents.js';
import { waitFor } from '../../support/app.js';
import { cli, cliCreateTask, cliProject } from '../../support/cli.js';
import { daemonEnv, startDaemon } from '../../support/daemon.js';

async function start(
  knobs: Record<string, string> = {},
  paths: Record<string, string> = FAKE_BINARIES,
) {
  const env = daemonEnv();
  mkdirSync(env.SVC_CONFIG_DIR, { recursive: true, mode: 0o700 });
  writeFileSync(join(env.SVC_CONFIG_DIR, 'config.yaml'), agentConfig(knobs, '', paths), {
    mode: 0o600,
  });
  await startDaemon(env);
  return env;
}

async function stateOf(env: NodeJS.ProcessEnv, id: number): Promise<string> {
  return JSON.parse((await cli(env, 'task', 'show', String(id), '--json')).out).state;
}

describe('svc agents', () => {
  it('prints the records as a table, and as JSON', async () => {
    const env = await start({}, { ...FAKE_BINARIES, cursor: '/nonexistent/cursor-agent' });
    const r = await cli(env, 'agents');
    expect(r.code).toBe(0);
    const lines = r.out.split('\n');
    expect(lines[0]).toMatch(
      /^NAME\s+VERSION\s+VERDICT\s+LOGIN\s+INPUT\s+RESTRICTED\s+QUOTA\s+PATH$/,
    );
    expect(lines[1]).toMatch(/^claude\s+2\.1\.330\s+tested\s+yes\s+supported\s+supported\s+-\s+\//);
    expect(lines[2]).toMatch(/^codex\s+0\.169\.0\s+tested\s+yes\s+unsupported\s+supported\s+-/);
    // Issue 19 point 2: a configured path is shown even when nothing is there.
    expect(lines[3]).toMatch(
      /^cursor\s+missing\s+-\s+-\s+unsupported\s+supported\s+-\s+\/nonexistent\/cursor-agent \(does not exist\)$/,
    );
    const json = await cli(env, 'agents', '--refresh', '--json');
    expect(JSON.parse(json.out).agents.map((a: { name: string }) => a.name)).toEqual([
      'claude',
      'codex',
      'cursor',
    ]);
  });
});

describe('svc task answer and svc task repair', () => {
  it('shows the pending question, answers it by text or alone, and refuses when nothing waits', async () => {
    const env = await start({ FAKE_CLAUDE_SCENARIO: 'ask-question', FAKE_CLAUDE_ASK_MULTI: '1' });
    await cliProject(env, { ask: agentWorkflow('ask', { agent: 'claude' }) });
    const id = (await cliCreateTask(env, 't', 'ask')).id;
    await waitFor(async () => (await stateOf(env, id)) === 'awaiting_input', 10_000);
    const show = await cli(env, 'task', 'answer', String(id));
    expect(show.code).toBe(0);
    // Issue 19 point 8: numbered options, each with what it means.
    expect(show.out.split('\n')).toEqual([
      'question: Which colour?',
      '  options:',
      '    1. Red — warm',
      '    2. Blue — cool',
      'question: Which toppings?',
      '  options (several allowed):',
      '    1. Cheese — c',
      '    2. Olives — o',
    ]);
    // a value that names no question is a usage error; a bad answer is the daemon's 400 (exit 6)
    expect((await cli(env, 'task', 'answer', String(id), '--answer', 'Blue')).code).toBe(2);
    expect(
      (await cli(env, 'task', 'answer', String(id), '--answer', 'Which colour?=Blue')).code,
    ).toBe(6);
    const ok = await cli(
      env,
      'task',
      'answer',
      String(id),
      '--answer',
      'Which colour?=Blue',
      '--answer',
      'Which toppings?=Cheese',
      '--answer',
      'Which toppings?=Olives',
    );
    expect(ok).toMatchObject({ code: 0, out: `task ${id} running` });
    await waitFor(async () => (await stateOf(env, id)) === 'done', 10_000);
    const late = await cli(env, 'task', 'answer', String(id));
    expect(late.code).toBe(5);
    expect(late.err).toContain('no agent is waiting');
    expect((await cli(env, 'task', 'answer', String(id), '--allow', '--deny')).code).toBe(2);
  });

  it('repairs a blocked task with a literal prompt and prints the warnings', async () => {
    const env = await start();
    await cliProject(env, {
      bad: 'name: bad\nsteps:\n  - id: b\n    type: command\n    max_retries: 0\n    run: exit 3\n',
    });
    const id = (await cliCreateTask(env, 't', 'bad')).id;
    await waitFor(async () => (await stateOf(env, id)) === 'blocked', 10_000);
    expect((await cli(env, 'task', 'repair', String(id))).code).toBe(2);
    expect(
      (await cli(env, 'task', 'repair', String(id), '--prompt', 'x', '--agent', 'nope')).code,
    ).toBe(6);
    const r = await cli(
      env,
      'task',
      'repair',
      String(id),
      '--prompt',
      'fix it',
      '--model',
      'claude-next',
    );
    expect(r.code).toBe(0);
    expect(r.out).toBe(`task ${id} queued`);
    expect(r.err).toContain('warning: step __repair: model "claude-next"');
    await waitFor(async () => (await stateOf(env, id)) === 'blocked', 10_000);
    const steps = JSON.parse((await cli(env, 'task', 'steps', String(id), '--json')).out);
    expect(steps.map((s: { step_id: string }) => s.step_id)).toEqual(['b', '__repair']);
  });
});
