import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { AgentRunSpec, ProbeOutcome } from '../../../kernel/plugin/index.js';
import { describeAgentAdapter, STREAMS_DIR } from '../../../test/support/describe-agent-adapter.js';
import plugin, { cursorAdapter } from './index.js';
import { parseModels, parseStatus, parseVersion } from './probe.js';

const V = '2026.08.04-aaa8809';
const usage = (input: number | null, output: number | null, session: string | null) => ({
  input_tokens: input,
  output_tokens: output,
  cost_usd: null,
  session_totals: null,
  session_id: session,
});

describeAgentAdapter(cursorAdapter, {
  plugin,
  cli_versions: [V],
  golden: [
    {
      file: `cursor/success_${V}.jsonl`,
      // result is every assistant message of the turn concatenated
      verdict: {
        kind: 'succeeded',
        result_text: 'Updating README.md.\nDone.',
        ...usage(9000, 120, 'chat-7f3a'),
      },
      tools: [{ name: 'edit', summary: '/wt/task-20/README.md', call_id: 'tool_a' }],
      events: (events) => {
        expect(events.filter((e) => e.type === 'thinking')).toEqual([
          { type: 'thinking', text: 'Appending one line to README.' },
        ]);
        expect(events).toContainEqual({
          type: 'tool_result',
          results: [{ call_id: 'tool_a', name: 'edit', summary: '+1 \u22120', is_error: false }],
        });
        // the prompt echo is not output
        expect(
          events.filter((e) => e.type === 'output').map((e) => (e.type === 'output' ? e.text : '')),
        ).toEqual(['Updating README.md.\n', 'Done.']);
      },
    },
    {
      file: `cursor/shell-tools_${V}.jsonl`,
      verdict: {
        kind: 'succeeded',
        result_text: 'One test fails.',
        ...usage(4200, 64, 'chat-9d2e'),
      },
      tools: [
        { name: 'shell', summary: 'npm test', call_id: 'tool_s1' },
        { name: 'shell', summary: 'rm -rf node_modules', call_id: 'tool_s2' },
        { name: 'read', summary: '/wt/task-22/package.json', call_id: 'tool_r1' },
      ],
      events: (events) =>
        expect(events.flatMap((e) => (e.type === 'tool_result' ? e.results : []))).toEqual([
          { call_id: 'tool_s1', name: 'shell', summary: 'exit 1', is_error: true },
          { call_id: 'tool_s2', name: 'shell', summary: 'rejected', is_error: true },
          { call_id: 'tool_r1', name: 'read', is_error: false },
        ]),
    },
    {
      file: `cursor/error-result_${V}.jsonl`,
      exit: { code: 1 },
      verdict: {
        kind: 'failed',
        reason: 'agent_error',
        message: 'request failed',
        ...usage(50, 7, 'chat-8b1c'),
      },
    },
    {
      file: `cursor/bad-model_${V}.jsonl`,
      exit: {
        code: 1,
        stderr: readFileSync(`${STREAMS_DIR}/cursor/bad-model_${V}.stderr.txt`, 'utf8'),
      },
      verdict: {
        kind: 'failed',
        reason: 'nonzero_exit',
        message:
          'stream ended without a result event: ActionRequiredError: AI Model Not Found Model name is not valid: "gpt-nope"',
        ...usage(null, null, null),
      },
    },
    {
      // no evidence of cursor's usage-limit wording: it stays an ordinary error (decision 111)
      file: `cursor/usage-limit-text_${V}.jsonl`,
      exit: { code: 1 },
      verdict: {
        kind: 'failed',
        reason: 'agent_error',
        message: "You've hit your usage limit for Auto. Try again later.",
        ...usage(0, 0, 'chat-1a2b'),
      },
    },
    {
      file: `cursor/resume_${V}.jsonl`,
      verdict: {
        kind: 'succeeded',
        result_text: 'Added another line.',
        ...usage(9400, 30, 'chat-7f3a'),
      },
    },
  ],
  quotedUsageLimit: {
    lines: [
      '{"type":"system","subtype":"init","session_id":"chat-q"}',
      '{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"You\'ve hit your usage limit is what it says."}]},"session_id":"chat-q"}',
      '{"type":"result","subtype":"success","is_error":false,"result":"You\'ve hit your usage limit is what it says.","session_id":"chat-q","usage":{"inputTokens":1,"outputTokens":1}}',
    ],
  },
});

const spec = (o: Partial<AgentRunSpec> = {}): AgentRunSpec => ({
  prompt: 'Fix it',
  cwd: '/wt/1',
  permission_mode: 'full-auto',
  on_input: 'wait',
  cli_version: V,
  scratch_dir: '/scratch/1',
  platform: 'linux',
  is_root: false,
  ...o,
});

describe('cursor argv', () => {
  it('always trusts the workspace and names a model (auto by default)', () => {
    expect(cursorAdapter.planRun(spec({ effort: 'high' }))).toEqual({
      ok: true,
      plan: {
        args: ['-p', '--output-format', 'stream-json', '--trust', '--force', '--model', 'auto'],
        env: {},
        stdin: { kind: 'close', data: 'Fix it' },
        files: [],
      },
    });
  });

  it('restricted is the sandbox, and never runs on Windows', () => {
    const r = cursorAdapter.planRun(
      spec({ permission_mode: 'restricted', model: 'gpt-5', resume_session_id: 'chat-7f3a' }),
    );
    expect(r.ok && r.plan.args).toEqual([
      '-p',
      '--output-format',
      'stream-json',
      '--trust',
      '--sandbox',
      'enabled',
      '--model',
      'gpt-5',
      '--resume',
      'chat-7f3a',
    ]);
    expect(
      cursorAdapter.planRun(spec({ permission_mode: 'restricted', platform: 'win32' })),
    ).toMatchObject({
      ok: false,
      reason: 'restricted_unsupported',
    });
    expect(cursorAdapter.restrictedVerdict('win32')).toBe('unsupported');
    expect(cursorAdapter.planRun(spec({ platform: 'win32' })).ok).toBe(true);
  });

  it('cannot carry an MCP server', () => {
    expect(
      cursorAdapter.planRun(spec({ mcp: { url: 'http://127.0.0.1:1/mcp', bearer_token: 't' } })),
    ).toMatchObject({
      ok: false,
      reason: 'mcp_unsupported',
    });
  });
});

describe('cursor probes', () => {
  const exited = (stdout: string, code = 0): ProbeOutcome => ({
    kind: 'exited',
    code,
    signal: null,
    stdout,
    stderr: '',
  });

  it('keeps the calver and commit verbatim', () => {
    expect(parseVersion(exited('2026.08.04-aaa8809\n'))).toBe('2026.08.04-aaa8809');
    expect(parseVersion(exited('\u001b[1mcursor-agent 2026.08.11-f00d123\u001b[0m\n'))).toBe(
      '2026.08.11-f00d123',
    );
  });

  it('reads status wording, nonzero exit as logged out, a timeout as unknown', () => {
    expect(parseStatus(exited('Logged in as fake@example.com'))).toBe(true);
    expect(parseStatus(exited('Not logged in', 1))).toBe(false);
    expect(parseStatus(exited('???', 0))).toBeNull();
    expect(parseStatus({ kind: 'timed_out', stdout: '', stderr: '' })).toBeNull();
  });

  it('lists model ids between the heading and the Tip paragraph', () => {
    const out = [
      'Available models',
      '',
      'auto - Auto (current, default)',
      'gpt-5 - GPT-5',
      'claude-opus-4-8[context=1m,effort=high] - Opus 4.8 (1M)',
      '',
      'Tip: use --model <id> to switch.',
      'ignored - after tip',
    ].join('\n');
    expect(parseModels(out)).toEqual(['auto', 'gpt-5', 'claude-opus-4-8[context=1m,effort=high]']);
  });

  it('probes version, status and models; a failed listing serves the curated floor', async () => {
    const probe = await cursorAdapter.probe({
      path: '/bin/cursor-agent',
      run: async (c) =>
        c.args[0] === '--version'
          ? exited(`${V}\n`)
          : c.args[0] === 'status'
            ? exited('Logged in as a@b.c')
            : exited('', 1),
    });
    expect(probe).toEqual({
      version: V,
      logged_in: true,
      models: null,
      efforts: null,
      probe_error: 'models: exited 1',
    });
  });
});
