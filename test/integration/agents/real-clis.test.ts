// Issue 6 point 3: agent steps through svc with the REAL claude and codex binaries (the pinned
// builds in test/real-clis) against the loopback mock model servers in test/fixtures/mock-models:
// nothing here can reach a model API. A step that edits a file and succeeds (claude's cost lands
// on the step run), a restricted run whose write is denied, an API error classified as a failure,
// a usage-limit answer recognised as one, and a follow-up that resumes the session.
//
// The binaries: SVC_REAL_CLAUDE / SVC_REAL_CODEX when set (a path, or `skip`), else the test
// harness's pinned builds (test/real-clis, decision 202). The daemon's environment policy
// (`environment.set`) points them at the mocks and at temp state directories, as a user's shell
// would.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type AnthropicTurn, startAnthropicMock } from '../../fixtures/mock-models/anthropic.js';
import { type OpenAiTurn, startOpenAiMock } from '../../fixtures/mock-models/openai.js';
import type { MockServer } from '../../fixtures/mock-models/sse.js';
import { agentConfig, agentWorkflow, stepRuns } from '../../support/agents.js';
import { buildTestApp, type TestApp } from '../../support/app.js';
import { skipUnlessCi } from '../../support/ci.js';
import { realCli } from '../../support/real-clis.js';
import { act, addProject, createTask, getTask, waitState } from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';

const CLAUDE = realCli('SVC_REAL_CLAUDE', 'claude');
const CODEX = realCli('SVC_REAL_CODEX', 'codex');
const SLOW = 90_000;

/** An app whose task 1 will work in `worktree`, with the mock and the CLI's state dirs in its environment. */
async function appFor(
  agent: 'claude' | 'codex',
  mock: MockServer,
  env: Record<string, string>,
  root: string,
) {
  const state = tempDir();
  const base: Record<string, string> =
    agent === 'claude'
      ? {
          ANTHROPIC_BASE_URL: mock.url,
          ANTHROPIC_API_KEY: 'sk-ant-mock',
          CLAUDE_CONFIG_DIR: join(state, 'config'),
          CLAUDE_CODE_TMPDIR: join(state, 'tmp'),
          HOME: state,
          DISABLE_TELEMETRY: '1',
          CLAUDE_CODE_MAX_RETRIES: '0',
        }
      : { CODEX_HOME: codexHome(mock), MOCK_OPENAI_API_KEY: 'sk-mock', HOME: state };
  const paths = agent === 'claude' ? { claude: CLAUDE as string } : { codex: CODEX as string };
  return buildTestApp({ root, config: agentConfig({ ...base, ...env }, '', paths) });
}

/** CODEX_HOME with a provider that sends model traffic to the mock (codex ignores OPENAI_BASE_URL). */
function codexHome(mock: MockServer): string {
  const home = tempDir();
  mkdirSync(home, { recursive: true });
  writeFileSync(
    join(home, 'config.toml'),
    `model_provider = "mock"

[model_providers.mock]
name = "Mock"
base_url = "${mock.url}/v1"
wire_api = "responses"
env_key = "MOCK_OPENAI_API_KEY"
request_max_retries = 0
stream_max_retries = 0
`,
  );
  return home;
}

async function oneTask(
  t: TestApp,
  step: Record<string, unknown>,
  task: Record<string, unknown> = {},
) {
  const { project } = await addProject(t, {
    one: agentWorkflow('one', { max_retries: 0, ...step }),
  });
  return createTask(t, { project_id: project.id, title: 'greet', workflow: 'one', ...task });
}

function bodies(mock: MockServer): string {
  return mock.requests.map((r) => JSON.stringify(r.body)).join('\n');
}

describe.skipIf(
  skipUnlessCi(
    !CLAUDE && process.env.SVC_REAL_CLAUDE !== 'skip' && 'claude is not installed',
    'real claude through svc',
  ) || !CLAUDE,
)(`real claude through svc (${CLAUDE ?? 'not installed'})`, () => {
  async function setup(
    turns: (worktree: string) => AnthropicTurn[],
    env: Record<string, string> = {},
  ) {
    const root = tempDir();
    const worktree = join(root, 'data', 'worktrees', '1');
    const mock = await startAnthropicMock(turns(worktree));
    const t = await appFor('claude', mock, env, root);
    return { t, mock, worktree, close: () => mock.close() };
  }

  it('edits a file and succeeds; the reported cost lands on the step run', {
    timeout: SLOW,
  }, async () => {
    const { t, mock, worktree, close } = await setup((wt) => [
      {
        kind: 'tool_use',
        name: 'Write',
        input: { file_path: join(wt, 'hello.txt'), content: 'hello from the mock\n' },
        usage: { input_tokens: 1000, output_tokens: 100 },
      },
      { kind: 'text', text: 'wrote hello.txt', usage: { input_tokens: 1000, output_tokens: 100 } },
    ]);
    try {
      const task = await oneTask(t, { agent: 'claude', model: 'claude-sonnet-4-5' });
      await waitState(t, task.id, 'done', SLOW);
      expect(readFileSync(join(worktree, 'hello.txt'), 'utf8')).toBe('hello from the mock\n');
      const [row] = await stepRuns(t, task.id);
      expect(row).toMatchObject({
        state: 'succeeded',
        agent: 'claude',
        model: 'claude-sonnet-4-5',
        result_summary: 'wrote hello.txt',
        input_tokens: 2000,
        output_tokens: 200,
      });
      // claude computes the cost from the usage the server reported
      expect(row?.cost_usd).toBeCloseTo(0.009, 6);
      expect((await getTask(t, task.id)).cost_usd).toBeCloseTo(0.009, 6);
      // the prompt reached the model through stdin, rendered
      expect(bodies(mock)).toContain('Do greet');
    } finally {
      await close();
    }
  });

  it('a restricted run asks before a shell write; denied, the file is never written', {
    timeout: SLOW,
  }, async () => {
    const { t, worktree, close } = await setup(() => [
      { kind: 'tool_use', name: 'Bash', input: { command: 'echo nope > denied.txt' } },
      { kind: 'text', text: 'could not write' },
    ]);
    try {
      const task = await oneTask(t, { agent: 'claude' }, { restricted: true });
      const waiting = await waitState(t, task.id, 'awaiting_input', SLOW);
      expect(waiting.pending_input).toMatchObject({
        kind: 'permission',
        permission: { tool: 'Bash' },
      });
      expect((await act(t, task.id, 'answer', { allow: false })).statusCode).toBe(200);
      await waitState(t, task.id, 'done', SLOW);
      expect(existsSync(join(worktree, 'denied.txt'))).toBe(false);
      expect((await stepRuns(t, task.id))[0]?.result_summary).toBe('could not write');
    } finally {
      await close();
    }
  });

  it('classifies an API error as a failure (agent_error), never a success', {
    timeout: SLOW,
  }, async () => {
    const { t, close } = await setup(() => [
      { kind: 'http_error', status: 400, message: 'mock: scripted invalid request' },
    ]);
    try {
      const task = await oneTask(t, { agent: 'claude' });
      const blocked = await waitState(t, task.id, 'blocked', SLOW);
      expect(blocked.block_reason).toBe('step_failed');
      const [row] = await stepRuns(t, task.id);
      expect(row?.failure_reason).toBe('agent_error');
      expect(row?.result_summary).toContain('mock: scripted invalid request');
    } finally {
      await close();
    }
  });

  it('recognises a usage-limit answer and waits for the named reset', {
    timeout: SLOW,
  }, async () => {
    const reset = Math.floor(Date.now() / 1000) + 3 * 3600;
    const { t, close } = await setup(() => [{ kind: 'usage_limit', resets_at: reset }], {
      // An OAuth token makes the CLI read the unified rate-limit headers as a subscription window.
      ANTHROPIC_API_KEY: '',
      CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-mock',
    });
    try {
      const task = await oneTask(t, { agent: 'claude' });
      const queued = await waitState(t, task.id, 'queued', SLOW).then(async () => {
        for (;;) {
          const now = await getTask(t, task.id);
          if (now.queued_reason || now.state !== 'queued') return now;
          await new Promise((r) => setTimeout(r, 50));
        }
      });
      expect(queued).toMatchObject({
        state: 'queued',
        queued_reason: 'usage_limit',
        admit_not_before: new Date(reset * 1000).toISOString(),
      });
      expect((await stepRuns(t, task.id))[0]).toMatchObject({
        state: 'interrupted',
        failure_reason: 'usage_limit',
      });
    } finally {
      await close();
    }
  });

  it('a follow-up resumes the session: the model sees the whole history', {
    timeout: SLOW,
  }, async () => {
    const { t, mock, close } = await setup(() => [
      { kind: 'text', text: 'first answer' },
      { kind: 'text', text: 'second answer' },
    ]);
    try {
      const task = await oneTask(t, { agent: 'claude' });
      await waitState(t, task.id, 'done', SLOW);
      await act(t, task.id, 'follow_up', { prompt: 'and now the follow-up' });
      await waitState(t, task.id, 'queued', 5_000).catch(() => undefined);
      await waitState(t, task.id, 'done', SLOW);
      const rows = await stepRuns(t, task.id);
      expect(rows.map((r) => [r.step_id, r.state, r.result_summary])).toEqual([
        ['work', 'succeeded', 'first answer'],
        ['follow-up-1', 'succeeded', 'second answer'],
      ]);
      const last = JSON.stringify(mock.requests.at(-1)?.body);
      expect(last).toContain('Do greet');
      expect(last).toContain('first answer');
      expect(last).toContain('and now the follow-up');
    } finally {
      await close();
    }
  });
});

describe.skipIf(
  skipUnlessCi(
    !CODEX && process.env.SVC_REAL_CODEX !== 'skip' && 'codex is not installed',
    'real codex through svc',
  ) || !CODEX,
)(`real codex through svc (${CODEX ?? 'not installed'})`, () => {
  async function setup(turns: OpenAiTurn[]) {
    const root = tempDir();
    const mock = await startOpenAiMock(turns);
    const t = await appFor('codex', mock, {}, root);
    return { t, mock, worktree: join(root, 'data', 'worktrees', '1'), close: () => mock.close() };
  }

  it('edits a file and succeeds, with tokens and no cost', { timeout: SLOW }, async () => {
    const { t, worktree, close } = await setup([
      { kind: 'function_call', name: 'exec_command', arguments: { cmd: 'echo hi > hello.txt' } },
      { kind: 'text', text: 'wrote it' },
    ]);
    try {
      const task = await oneTask(t, { agent: 'codex', model: 'gpt-5.5' });
      await waitState(t, task.id, 'done', SLOW);
      expect(readFileSync(join(worktree, 'hello.txt'), 'utf8')).toBe('hi\n');
      const [row] = await stepRuns(t, task.id);
      expect(row).toMatchObject({
        state: 'succeeded',
        agent: 'codex',
        result_summary: 'wrote it',
        cost_usd: null,
      });
      expect(row?.input_tokens).toBeGreaterThan(0);
    } finally {
      await close();
    }
  });

  it('a restricted run cannot write outside the worktree', { timeout: SLOW }, async () => {
    // /tmp is writable inside codex's workspace-write sandbox; /var/tmp is not
    const outside = `/var/tmp/svc-restricted-${process.pid}-${Date.now()}.txt`;
    const { t, close } = await setup([
      { kind: 'function_call', name: 'exec_command', arguments: { cmd: `echo x > ${outside}` } },
      { kind: 'text', text: 'tried' },
    ]);
    try {
      const task = await oneTask(t, { agent: 'codex', model: 'gpt-5.5' }, { restricted: true });
      await waitState(t, task.id, ['done', 'blocked'], SLOW);
      expect(existsSync(outside)).toBe(false);
    } finally {
      await close();
    }
  });

  it('recognises the usage-limit answer (the key is inert on codex: it always waits)', {
    timeout: SLOW,
  }, async () => {
    const { t, close } = await setup([{ kind: 'usage_limit', resets_in_seconds: 7200 }]);
    try {
      const task = await oneTask(t, { agent: 'codex', model: 'gpt-5.5' });
      let now = await getTask(t, task.id);
      for (let i = 0; i < 1500 && !now.queued_reason && now.state !== 'blocked'; i++) {
        await new Promise((r) => setTimeout(r, 50));
        now = await getTask(t, task.id);
      }
      expect(now).toMatchObject({ state: 'queued', queued_reason: 'usage_limit' });
      expect((await stepRuns(t, task.id))[0]?.failure_reason).toBe('usage_limit');
    } finally {
      await close();
    }
  });

  it('a follow-up resumes the thread', { timeout: SLOW }, async () => {
    const { t, mock, close } = await setup([
      { kind: 'text', text: 'first answer' },
      { kind: 'text', text: 'second answer' },
    ]);
    try {
      const task = await oneTask(t, { agent: 'codex', model: 'gpt-5.5' });
      await waitState(t, task.id, 'done', SLOW);
      // a follow-up names its agent (else workflow defaults, then the daemon default, apply)
      const res = await act(t, task.id, 'follow_up', {
        prompt: 'and the follow-up',
        agent: 'codex',
        model: 'gpt-5.5',
      });
      expect(res.statusCode, res.body).toBe(200);
      await waitState(t, task.id, 'queued', 5_000).catch(() => undefined);
      await waitState(t, task.id, 'done', SLOW);
      expect((await stepRuns(t, task.id))[1]).toMatchObject({
        state: 'succeeded',
        result_summary: 'second answer',
      });
      expect(JSON.stringify(mock.requests.at(-1)?.body)).toContain('first answer');
    } finally {
      await close();
    }
  });
});
