import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentRunSpec, ProbeCommand, ProbeOutcome } from '../../../kernel/plugin/index.js';
import { describeAgentAdapter } from '../../../test/support/describe-agent-adapter.js';
import { findReply, rpcScript } from './app-server.js';
import plugin, { codexAdapter } from './index.js';
import { createCodexParser, resetFromSentence, unwrapShell } from './parse.js';
import { parseLoginStatus, parseModelList } from './probe.js';
import { parseRateLimits, windowLabel } from './quota.js';
import { parseSkills } from './skills.js';

const PROBES = join(import.meta.dirname, '..', '..', '..', 'test', 'fixtures', 'probes', 'codex');
const probeFixture = (name: string) => readFileSync(join(PROBES, name), 'utf8');

const usage = (input: number | null, output: number | null, session: string) => ({
  input_tokens: input,
  output_tokens: output,
  cost_usd: null,
  session_totals:
    input !== null && output !== null ? { input_tokens: input, output_tokens: output } : null,
  session_id: session,
});
const failedUsage = (session: string) => ({
  input_tokens: null,
  output_tokens: null,
  cost_usd: null,
  session_totals: null,
  session_id: session,
});
const shell = (summary: string, call_id: string) => ({ name: 'shell', summary, call_id });

// The usage-limit sentence names local wall-clock time: build both clocks in the local zone.
const LOCAL_NOW = new Date(2026, 10, 21, 21, 0);
const USAGE_LIMIT_SENTENCE =
  'You\u2019ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at 11:17 PM.';

describeAgentAdapter(codexAdapter, {
  plugin,
  cli_versions: ['0.169.0'],
  golden: [
    {
      file: 'codex/success_0.169.0.jsonl',
      verdict: {
        kind: 'succeeded',
        result_text: 'done',
        ...usage(19534, 90, '01a1ffa6-65e8-7fc0-99bd-fba84661a4cb'),
      },
      tools: [shell("printf 'hello from mock\\n' > hello.txt", 'item_0')],
      events: (events) =>
        expect(events).toContainEqual({
          type: 'tool_result',
          results: [{ call_id: 'item_0', name: 'shell', summary: 'exit 0', is_error: false }],
        }),
    },
    {
      file: 'codex/write-file_0.169.0.jsonl',
      verdict: {
        kind: 'succeeded',
        result_text: 'done',
        ...usage(2200, 150, '01a1fff8-5c78-76d2-83bd-892fc0bc0cd2'),
      },
      tools: [shell("printf 'hello from mock\\n' > hello.txt", 'item_0')],
    },
    {
      file: 'codex/success-danger-full-access_0.169.0.jsonl',
      verdict: {
        kind: 'succeeded',
        result_text: 'done',
        ...usage(19180, 90, '01a1ffa6-6805-77a2-a0a1-184d3d919249'),
      },
    },
    {
      file: 'codex/restricted_0.169.0.jsonl',
      verdict: {
        kind: 'succeeded',
        result_text: 'done',
        ...usage(2000, 200, '01a1fff8-5ebb-7cf2-b362-103f7e1919d3'),
      },
    },
    {
      // a failed command is the model's business: the turn still succeeds
      file: 'codex/command-exit3_0.169.0.jsonl',
      verdict: {
        kind: 'succeeded',
        result_text: 'done',
        ...usage(19461, 84, '01a1ffad-eb34-7110-a3e0-a1c7a3018969'),
      },
      tools: [shell('echo out; exit 3', 'item_0')],
      events: (events) =>
        expect(events).toContainEqual({
          type: 'tool_result',
          results: [{ call_id: 'item_0', name: 'shell', summary: 'exit 3', is_error: true }],
        }),
    },
    {
      // a command line mixing quote styles is shown as run
      file: 'codex/sandbox-readonly-denied_0.169.0.jsonl',
      verdict: {
        kind: 'succeeded',
        result_text: 'done',
        ...usage(19235, 105, '01a1ffa6-b5fa-7f23-90a3-f2f5f7d76930'),
      },
      tools: [
        shell(
          `/bin/bash -lc "printf 'hello from mock\\\\n' > hello.txt; echo outside > /var/tmp/codex-sandbox-probe.txt; echo rc="'$?'`,
          'item_0',
        ),
      ],
    },
    {
      file: 'codex/sandbox-workspace-write-outside-denied_0.169.0.jsonl',
      verdict: {
        kind: 'succeeded',
        result_text: 'done',
        ...usage(19570, 105, '01a1ffa6-b8b4-71c2-9195-ce6ab3c21a2b'),
      },
    },
    {
      file: 'codex/escalation-denied_0.169.0.jsonl',
      verdict: {
        kind: 'succeeded',
        result_text: 'done',
        ...usage(19199, 113, '01a1ffa7-0f2c-7663-a618-a06806e4aa64'),
      },
      tools: [],
    },
    {
      // an `error` item before turn.started is advisory
      file: 'codex/unknown-model-readonly-default_0.169.0.jsonl',
      verdict: {
        kind: 'succeeded',
        result_text: 'done',
        ...usage(19876, 90, '01a1ffa6-284e-7be2-ba4e-fce318777272'),
      },
      events: (events) => expect(events.filter((e) => e.type === 'error')).toHaveLength(1),
    },
    {
      file: 'codex/error-400_0.169.0.jsonl',
      exit: { code: 1 },
      verdict: {
        kind: 'failed',
        reason: 'agent_error',
        message:
          '{"error":{"message":"mock: scripted invalid request","type":"invalid_request_error","code":null,"param":null}}',
        ...failedUsage('01a1ffa7-3f1a-7673-8874-4e1d30890bf1'),
      },
    },
    {
      file: 'codex/http-400_0.169.0.jsonl',
      exit: { code: 1 },
      verdict: {
        kind: 'failed',
        reason: 'agent_error',
        message:
          '{"error":{"message":"mock: scripted invalid request","type":"invalid_request_error","code":null,"param":null}}',
        ...failedUsage('01a1fff8-626e-7fd0-8997-aa31a9903717'),
      },
    },
    {
      // an ordinary 429 is not a usage limit
      file: 'codex/error-429_0.169.0.jsonl',
      exit: { code: 1 },
      verdict: {
        kind: 'failed',
        reason: 'agent_error',
        message:
          'exceeded retry limit, last status: 429 Too Many Requests, request id: req_b3469a3592f3e0c9b21c33ee',
        ...failedUsage('01a1ffa7-4510-7e80-aa0e-4d1ad16d2ca5'),
      },
    },
    {
      file: 'codex/failed-rate-limit_0.169.0.jsonl',
      exit: { code: 1 },
      verdict: {
        kind: 'failed',
        reason: 'agent_error',
        message:
          'rate limit exceeded: mock: scripted response.failed rate limit. Please try again in 1s.',
        ...failedUsage('01a1ffa7-4a99-75e3-afab-d721435d6716'),
      },
      events: (events) =>
        expect(
          events
            .filter((e) => e.type === 'error')
            .map((e) => (e.type === 'error' ? e.message : '')),
        ).toEqual([
          'Reconnecting... 1/1 (rate limit exceeded: mock: scripted response.failed rate limit. Please try again in 1s.)',
          'rate limit exceeded: mock: scripted response.failed rate limit. Please try again in 1s.',
        ]),
    },
    {
      // the reference capture names no time: the recheck interval applies
      file: 'codex/error-usage-limit_0.169.0.jsonl',
      exit: { code: 1 },
      verdict: {
        kind: 'usage_limit',
        resets_at: null,
        message: 'You\u2019ve hit your usage limit. Try again later.',
        ...failedUsage('01a1ffa7-53f1-7e01-a836-97de4d275f36'),
      },
    },
    {
      file: 'codex/usage-limit_0.169.0.jsonl',
      exit: { code: 1 },
      now: LOCAL_NOW,
      verdict: {
        kind: 'usage_limit',
        resets_at: new Date(2026, 10, 21, 23, 17).toISOString(),
        message: USAGE_LIMIT_SENTENCE,
        ...failedUsage('01a1fff8-6403-7941-b21f-efd45d897992'),
      },
    },
    {
      // offline with the built-in provider: endless reconnects, killed by the step timeout
      file: 'codex/builtin-openai-provider-offline-hang_0.169.0.jsonl',
      exit: {
        code: null,
        signal: 'SIGKILL',
        stderr: 'ERROR codex_api::endpoint::responses_websocket: failed to connect',
      },
      verdict: {
        kind: 'failed',
        reason: 'nonzero_exit',
        message:
          'stream ended without a result event: ERROR codex_api::endpoint::responses_websocket: failed to connect',
        ...failedUsage('01a1ffa8-b3cd-7bc1-a0dc-7c5cb79a068c'),
      },
    },
    {
      file: 'codex/resume-turn1_0.169.0.jsonl',
      verdict: {
        kind: 'succeeded',
        result_text: 'done',
        ...usage(19472, 90, '01a1ffa6-e4fc-73d1-8bca-bf1d9c82c941'),
      },
    },
    {
      // cumulative per thread: the previous turn's totals are the baseline
      file: 'codex/resume-turn2_0.169.0.jsonl',
      parserOptions: { resume_baseline: { input_tokens: 19472, output_tokens: 90 } },
      verdict: {
        kind: 'succeeded',
        result_text: 'done again',
        input_tokens: 19899,
        output_tokens: 132,
        cost_usd: null,
        session_totals: { input_tokens: 39371, output_tokens: 222 },
        session_id: '01a1ffa6-e4fc-73d1-8bca-bf1d9c82c941',
      },
      tools: [shell("echo 'second turn' >> hello.txt", 'item_1')],
    },
    {
      file: 'codex/resume-cumulative-turn2_0.169.0.jsonl',
      parserOptions: { resume_baseline: { input_tokens: 500, output_tokens: 20 } },
      verdict: {
        kind: 'succeeded',
        result_text: 'second',
        input_tokens: 700,
        output_tokens: 30,
        cost_usd: null,
        session_totals: { input_tokens: 1200, output_tokens: 50 },
        session_id: '01a1fff8-668d-7353-9b0e-ef1d2ac2db6b',
      },
    },
    {
      file: 'codex/mcp_0.169.0.jsonl',
      verdict: {
        kind: 'succeeded',
        result_text: 'ok',
        ...usage(1000, 100, '01a1fff8-6aa2-7200-a2fc-45c0e4f260ef'),
      },
    },
  ],
  quotedUsageLimit: {
    lines: [
      '{"type":"thread.started","thread_id":"t-q"}',
      '{"type":"turn.started"}',
      `{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"${USAGE_LIMIT_SENTENCE}"}}`,
      '{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":0,"output_tokens":5,"reasoning_output_tokens":0}}',
    ],
  },
});

const spec = (o: Partial<AgentRunSpec> = {}): AgentRunSpec => ({
  prompt: 'Fix it',
  cwd: '/wt/1',
  permission_mode: 'full-auto',
  on_input: 'wait',
  cli_version: '0.169.0',
  scratch_dir: '/scratch/1',
  platform: 'linux',
  is_root: false,
  ...o,
});

const BASE = [
  'exec',
  '--json',
  '--skip-git-repo-check',
  '--disable',
  'plugins',
  '--disable',
  'remote_plugin',
  '-c',
  'analytics.enabled=false',
];

describe('codex argv', () => {
  it('full-auto with model, effort and MCP (token through the environment)', () => {
    expect(
      codexAdapter.planRun(
        spec({
          model: 'gpt-5.5',
          effort: 'high',
          mcp: { url: 'http://127.0.0.1:9/mcp', bearer_token: 't0k' },
        }),
      ),
    ).toEqual({
      ok: true,
      plan: {
        args: [
          ...BASE,
          '--dangerously-bypass-approvals-and-sandbox',
          '--model',
          'gpt-5.5',
          '-c',
          'model_reasoning_effort="high"',
          '-c',
          'mcp_servers.svc.url="http://127.0.0.1:9/mcp"',
          '-c',
          'mcp_servers.svc.bearer_token_env_var="SVC_MCP_BEARER_TOKEN"',
        ],
        env: { SVC_MCP_BEARER_TOKEN: 't0k' },
        stdin: { kind: 'close', data: 'Fix it' },
        files: [],
      },
    });
  });

  it('restricted is the workspace-write sandbox', () => {
    const r = codexAdapter.planRun(spec({ permission_mode: 'restricted' }));
    expect(r.ok && r.plan.args).toEqual([...BASE, '--sandbox', 'workspace-write']);
  });

  it('resumes with exec-level flags before `resume <id> -`, and refuses a restricted resume', () => {
    const r = codexAdapter.planRun(
      spec({ resume_session_id: '01a1ffa6-e4fc-73d1-8bca-bf1d9c82c941' }),
    );
    expect(r.ok && r.plan.args.slice(-4)).toEqual([
      '--dangerously-bypass-approvals-and-sandbox',
      'resume',
      '01a1ffa6-e4fc-73d1-8bca-bf1d9c82c941',
      '-',
    ]);
    expect(
      codexAdapter.planRun(spec({ resume_session_id: 'x', permission_mode: 'restricted' })),
    ).toMatchObject({
      ok: false,
      reason: 'restricted_unsupported',
    });
  });

  it('quotes TOML values', () => {
    const r = codexAdapter.planRun(spec({ effort: 'a"b' }));
    expect(r.ok && r.plan.args).toContain('model_reasoning_effort="a\\"b"');
  });
});

describe('codex stream', () => {
  it('unwraps the shell wrapper codex runs commands in', () => {
    expect(unwrapShell("/bin/bash -lc 'npm test'")).toBe('npm test');
    expect(unwrapShell('/bin/bash -lc "echo \\"hi\\" \\$HOME"')).toBe('echo "hi" $HOME');
    expect(unwrapShell('git status')).toBe('git status');
  });

  it('reads local reset times, today or on a named date; 0.142.5 ASCII apostrophe too', () => {
    expect(resetFromSentence('try again at 9:19 PM.', LOCAL_NOW)?.getTime()).toBe(
      new Date(2026, 10, 21, 21, 19).getTime(),
    );
    expect(resetFromSentence('try again at 8:03 AM.', LOCAL_NOW)?.getTime()).toBe(
      new Date(2026, 10, 22, 8, 3).getTime(),
    );
    expect(resetFromSentence('try again at Nov 24th, 2026 8:03 PM.', LOCAL_NOW)?.getTime()).toBe(
      new Date(2026, 10, 24, 20, 3).getTime(),
    );
    const p = createCodexParser();
    p.push(
      '{"type":"turn.failed","error":{"message":"You\'ve hit your usage limit. Visit https://chatgpt.com/codex/settings/usage or try again at 9:19 PM."}}',
    );
    expect(p.finish({ code: 1, signal: null, stderr_tail: '', now: LOCAL_NOW })).toMatchObject({
      kind: 'usage_limit',
      resets_at: new Date(2026, 10, 21, 21, 19).toISOString(),
    });
  });

  it('a 401 turn failure is agent_unauthenticated', () => {
    const p = createCodexParser();
    p.push(
      '{"type":"error","message":"Reconnecting... 1/5 (unexpected status 401 Unauthorized: Missing bearer)"}',
    );
    p.push(
      '{"type":"turn.failed","error":{"message":"unexpected status 401 Unauthorized: Missing bearer"}}',
    );
    expect(p.finish({ code: 1, signal: null, stderr_tail: '', now: LOCAL_NOW })).toMatchObject({
      kind: 'failed',
      reason: 'agent_unauthenticated',
    });
  });

  it('file changes and MCP calls become tools with results', () => {
    const p = createCodexParser();
    const events = [
      '{"type":"item.completed","item":{"id":"item_2","type":"file_change","changes":[{"path":"src/util.ts","kind":"update"}],"status":"completed"}}',
      '{"type":"item.started","item":{"id":"item_3","type":"mcp_tool_call","server":"svc","tool":"ping","arguments":{},"status":"in_progress"}}',
      '{"type":"item.completed","item":{"id":"item_3","type":"mcp_tool_call","server":"svc","tool":"ping","arguments":{},"error":{"message":"boom"},"status":"failed"}}',
      '{"type":"item.completed","item":{"id":"item_4","type":"reasoning","text":"**Checking**"}}',
    ].flatMap((l) => p.push(l));
    expect(events).toEqual([
      {
        type: 'tool_use',
        tools: [{ name: 'file_change', summary: 'src/util.ts', call_id: 'item_2' }],
      },
      {
        type: 'tool_result',
        results: [{ call_id: 'item_2', name: 'file_change', is_error: false }],
      },
      { type: 'tool_use', tools: [{ name: 'mcp__svc__ping', call_id: 'item_3' }] },
      {
        type: 'tool_result',
        results: [{ call_id: 'item_3', name: 'mcp__svc__ping', summary: 'boom', is_error: true }],
      },
      { type: 'thinking', text: '**Checking**' },
    ]);
  });
});

describe('codex app-server (fixtures from 0.169.0, logged out)', () => {
  const stdout = probeFixture('app-server-logged-out_0.169.0.jsonl');

  it('writes the handshake and one request, then recognises its reply', () => {
    const lines = rpcScript('model/list', {})
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.method)).toEqual(['initialize', 'initialized', 'model/list']);
    expect(findReply(stdout, 2)).toEqual({
      error: { code: -32600, message: 'codex account authentication required to read rate limits' },
    });
  });

  it('lists the bundled model catalogue and its efforts offline', () => {
    const reply = findReply(stdout, 3);
    const parsed = reply && 'result' in reply ? parseModelList(reply.result) : undefined;
    expect(parsed?.models[0]).toBe('gpt-6.1-sol');
    expect(parsed?.models).toContain('gpt-5.5');
    expect(parsed?.efforts).toEqual(['low', 'medium', 'high', 'xhigh', 'max', 'ultra']);
  });

  it('lists enabled skills for a cwd', () => {
    const reply = findReply(stdout, 4);
    const skills = reply && 'result' in reply ? parseSkills(reply.result) : null;
    expect(skills?.map((s) => s.name)).toContain('imagegen');
  });

  it('reads quota: logged out is "none", a reading becomes windows', async () => {
    const quota = codexAdapter.quota;
    if (quota?.kind !== 'pull') throw new Error('codex quota is pulled');
    const calls: ProbeCommand[] = [];
    const answer =
      (line: string) =>
      async (c: ProbeCommand): Promise<ProbeOutcome> => {
        calls.push(c);
        return {
          kind: 'exited',
          code: 0,
          signal: null,
          stdout: `{"id":1,"result":{}}\n${line}\n`,
          stderr: '',
        };
      };
    expect(
      await quota.read({ path: '/bin/codex', run: answer(stdout.split('\n')[3] ?? '') }),
    ).toEqual({
      kind: 'none',
      detail: 'codex account authentication required to read rate limits',
    });
    expect(calls[0]?.args).toEqual(['app-server']);
    expect(calls[0]?.until?.('{"id":2,"result":{}}\n')).toBe(true);
    expect(calls[0]?.until?.('{"id":1,"result":{}}\n')).toBe(false);
    const reading = await quota.read({
      path: '/bin/codex',
      run: answer(
        '{"id":2,"result":{"rateLimits":{"limitId":"codex","limitName":null,"primary":{"usedPercent":64,"windowDurationMins":300,"resetsAt":1795301000},"secondary":{"usedPercent":21,"windowDurationMins":10080,"resetsAt":1795700000},"planType":"plus"},"rateLimitsByLimitId":{"codex":{"limitId":"codex","primary":{"usedPercent":64,"windowDurationMins":300,"resetsAt":1795301000},"secondary":{"usedPercent":21,"windowDurationMins":10080,"resetsAt":null}}}}}',
      ),
    });
    expect(reading).toEqual({
      kind: 'reading',
      windows: [
        {
          name: 'primary',
          used_percent: 64,
          window: '5h',
          resets_at: new Date(1795301000000).toISOString(),
        },
        { name: 'secondary', used_percent: 21, window: '7d' },
      ],
    });
  });

  it('prefixes windows when several limit ids are reported', () => {
    expect(
      parseRateLimits({
        rateLimitsByLimitId: {
          codex: { primary: { usedPercent: 1, windowDurationMins: 300 } },
          other: { primary: { usedPercent: 2, windowDurationMins: 45 } },
        },
      }).map((w) => `${w.name}:${w.window}`),
    ).toEqual(['codex.primary:5h', 'other.primary:45m']);
    expect(windowLabel(undefined)).toBeNull();
  });

  it('reads login status wording, including a stored API key', () => {
    const exited = (stdout: string, code: number): ProbeOutcome => ({
      kind: 'exited',
      code,
      signal: null,
      stdout,
      stderr: '',
    });
    expect(parseLoginStatus(exited(probeFixture('login-status-logged-out_0.169.0.txt'), 1))).toBe(
      false,
    );
    expect(parseLoginStatus(exited(probeFixture('login-status-api-key_0.169.0.txt'), 0))).toBe(
      true,
    );
    expect(parseLoginStatus(exited('Logged in using ChatGPT', 0))).toBe(true);
    expect(parseLoginStatus(exited('something else', 0))).toBeNull();
    expect(parseLoginStatus({ kind: 'timed_out', stdout: 'Not logged in', stderr: '' })).toBeNull();
  });
});
