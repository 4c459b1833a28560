// The claude adapter beyond the shared contract (claude.test.ts): argv, the stream's signals,
// input answers, probes and the quota push.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type {
  AgentRunSpec,
  InputRequest,
  ProbeCommand,
  ProbeOutcome,
} from '../../../kernel/plugin/index.js';
import { replay } from '../../../test/support/describe-agent-adapter.js';
import { claudeAdapter } from './index.js';
import { createClaudeParser, resetFromSentence } from './parse.js';
import { parseAuthStatus, parseModelList } from './probe.js';
import { parseSkills } from './skills.js';

const PROBES = join(import.meta.dirname, '..', '..', '..', 'test', 'fixtures', 'probes', 'claude');
const probeFixture = (name: string) => readFileSync(join(PROBES, name), 'utf8');

const spec = (o: Partial<AgentRunSpec> = {}): AgentRunSpec => ({
  prompt: 'Fix it',
  cwd: '/wt/1',
  permission_mode: 'full-auto',
  on_input: 'wait',
  cli_version: '2.1.330',
  scratch_dir: '/scratch/1',
  platform: 'linux',
  is_root: false,
  ...o,
});

describe('claude argv', () => {
  it('input mode for builds in [2.1.0, 3.0.0): stream-json stdin kept open, permission prompts on stdio', () => {
    const r = claudeAdapter.planRun(spec({ model: 'sonnet', effort: 'high' }));
    expect(r).toEqual({
      ok: true,
      plan: {
        args: [
          '-p',
          '--output-format',
          'stream-json',
          '--verbose',
          '--dangerously-skip-permissions',
          '--input-format',
          'stream-json',
          '--permission-prompt-tool',
          'stdio',
          '--model',
          'sonnet',
          '--effort',
          'high',
        ],
        env: { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1' },
        stdin: {
          kind: 'interactive',
          data: '{"type":"user","message":{"role":"user","content":[{"type":"text","text":"Fix it"}]}}\n',
        },
        files: [],
      },
    });
  });

  it('plain mode for other or unknown builds: prompt on stdin then EOF; restricted denies without asking', () => {
    for (const cli_version of [null, '2.0.77', '3.0.0']) {
      const r = claudeAdapter.planRun(spec({ cli_version, permission_mode: 'restricted' }));
      expect(r.ok && r.plan.stdin).toEqual({ kind: 'close', data: 'Fix it' });
      expect(r.ok && r.plan.args).toEqual([
        '-p',
        '--output-format',
        'stream-json',
        '--verbose',
        '--permission-mode',
        'dontAsk',
        '--allowedTools',
        'Read,Glob,Grep,Edit,Write,MultiEdit,Bash(git *)',
      ]);
    }
  });

  it('restricted input mode asks for the rest; an MCP server is allowed by name', () => {
    const r = claudeAdapter.planRun(
      spec({
        permission_mode: 'restricted',
        mcp: { url: 'http://127.0.0.1:9/mcp', bearer_token: 't0k' },
      }),
    );
    if (!r.ok) throw new Error(r.message);
    expect(r.plan.args.slice(4, 8)).toEqual([
      '--permission-mode',
      'default',
      '--allowedTools',
      'Read,Glob,Grep,Edit,Write,MultiEdit,Bash(git *),mcp__svc',
    ]);
    expect(r.plan.args.slice(-2)).toEqual(['--mcp-config', '/scratch/1/mcp.json']);
    expect(JSON.parse(r.plan.files[0]?.content ?? '')).toEqual({
      mcpServers: {
        svc: {
          type: 'http',
          url: 'http://127.0.0.1:9/mcp',
          headers: { Authorization: 'Bearer t0k' },
        },
      },
    });
  });

  it('sets IS_SANDBOX only as root with skipped permissions', () => {
    const env = (o: Partial<AgentRunSpec>) => {
      const r = claudeAdapter.planRun(spec(o));
      return r.ok ? r.plan.env.IS_SANDBOX : 'refused';
    };
    expect(env({ is_root: true })).toBe('1');
    expect(env({ is_root: false })).toBeUndefined();
    expect(env({ is_root: true, permission_mode: 'restricted' })).toBeUndefined();
  });

  it('resumes with --resume <session id>', () => {
    const r = claudeAdapter.planRun(
      spec({ resume_session_id: '313a61a4-821f-4025-bc6e-68de946f2aa4' }),
    );
    expect(r.ok && r.plan.args.slice(-2)).toEqual([
      '--resume',
      '313a61a4-821f-4025-bc6e-68de946f2aa4',
    ]);
  });

  it('gates input on [2.1.0, 3.0.0)', () => {
    expect(claudeAdapter.inputVerdict('2.1.0')).toBe('supported');
    expect(claudeAdapter.inputVerdict('2.1.330 (Claude Code)')).toBe('supported');
    expect(claudeAdapter.inputVerdict('2.0.99')).toBe('unsupported');
    expect(claudeAdapter.inputVerdict('3.0.0')).toBe('unsupported');
    expect(claudeAdapter.inputVerdict('weird build')).toBe('unsupported');
  });
});

describe('claude stream: signals from structured fields only (decision 111)', () => {
  const NOW = new Date('2026-11-21T21:00:00Z');
  const run = (lines: string[], code = 1, stderr = '') => {
    const p = createClaudeParser();
    const events = lines.flatMap((l) => p.push(l));
    return { events, verdict: p.finish({ code, signal: null, stderr_tail: stderr, now: NOW }) };
  };

  it('2.1.330 api_error usage_limit_reached without a rate_limit_event still names the reset', () => {
    const { verdict } = run([
      '{"type":"assistant","message":{"model":"<synthetic>","content":[{"type":"text","text":"You\'ve hit your limit · resets 10:26pm (UTC)"}]},"error":"rate_limit","is_api_error_message":true,"api_error_status":429,"api_error":"usage_limit_reached","api_error_params":{"rate_limit_info":{"status":"rejected","resetsAt":1795300000}},"session_id":"s"}',
      '{"type":"result","subtype":"success","is_error":true,"result":"You\'ve hit your limit · resets 10:26pm (UTC)","api_error_status":429,"api_error":"usage_limit_reached","session_id":"s","total_cost_usd":0,"usage":{"input_tokens":0,"output_tokens":0}}',
    ]);
    expect(verdict).toMatchObject({
      kind: 'usage_limit',
      resets_at: new Date(1795300000 * 1000).toISOString(),
    });
  });

  it('the CLI sentence on an error result alone is a usage limit, reset read from (UTC) wall-clock text', () => {
    const { verdict } = run([
      '{"type":"result","subtype":"success","is_error":true,"result":"You\'ve hit your weekly limit · resets 9:44pm (UTC)","session_id":"s"}',
    ]);
    expect(verdict).toMatchObject({ kind: 'usage_limit', resets_at: '2026-11-21T21:44:00.000Z' });
  });

  it('a rejected rate_limit_event followed by a successful result is a success', () => {
    const { verdict, events } = run(
      [
        '{"type":"rate_limit_event","rate_limit_info":{"status":"allowed_warning","unifiedWindows":{"five_hour":{"utilization":0.42,"resetsAt":1795294522},"seven_day":{"utilization":0.1,"resetsAt":1795550122}}}}',
        '{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"s","usage":{"input_tokens":1,"output_tokens":1}}',
      ],
      0,
    );
    expect(verdict.kind).toBe('succeeded');
    expect(events).toContainEqual({
      type: 'quota',
      windows: [
        {
          name: 'five_hour',
          used_percent: 42,
          window: '5h',
          resets_at: new Date(1795294522000).toISOString(),
        },
        {
          name: 'seven_day',
          used_percent: 10,
          window: '7d',
          resets_at: new Date(1795550122000).toISOString(),
        },
      ],
    });
  });

  it('a 401 api_retry is reported at once and makes the verdict agent_unauthenticated', () => {
    const { events, verdict } = run(
      [
        '{"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"retry_delay_ms":500,"error_status":401,"error":"authentication_failed","session_id":"s"}',
      ],
      null as unknown as number,
    );
    expect(events).toEqual([
      {
        type: 'error',
        message: 'API error 401 (authentication_failed), retry 1/10',
        reason: 'agent_unauthenticated',
      },
    ]);
    expect(verdict).toMatchObject({ kind: 'failed', reason: 'agent_unauthenticated' });
  });

  it('root refusal and unknown resume id arrive on stderr / as error results', () => {
    expect(
      run(
        [],
        1,
        '--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons',
      ).verdict,
    ).toMatchObject({
      kind: 'failed',
      reason: 'nonzero_exit',
    });
    expect(
      run([
        '{"type":"result","subtype":"error_during_execution","is_error":true,"num_turns":0,"session_id":"x","total_cost_usd":0,"usage":{"input_tokens":0,"output_tokens":0},"errors":["No conversation found with session ID: x"]}',
      ]).verdict,
    ).toMatchObject({
      kind: 'failed',
      reason: 'agent_error',
      message: 'No conversation found with session ID: x',
    });
  });

  it('a success result followed by a nonzero exit is nonzero_exit', () => {
    expect(
      run(
        ['{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"s"}'],
        3,
      ).verdict,
    ).toMatchObject({
      kind: 'failed',
      reason: 'nonzero_exit',
      message: 'exited with code 3 after a successful result',
    });
  });

  it('an unknown control request is an input protocol error; a cancel withdraws the request', () => {
    const { events, verdict } = run(
      [
        '{"type":"control_request","request_id":"c1","request":{"subtype":"can_use_tool","tool_name":"Write","input":{"file_path":"/a"},"tool_use_id":"t1"}}',
        '{"type":"control_cancel_request","request_id":"c1"}',
        '{"type":"control_request","request_id":"c2","request":{"subtype":"definitely_not_can_use_tool"}}',
      ],
      0,
    );
    expect(events[0]).toMatchObject({
      type: 'input_request',
      request: { pending: { kind: 'permission', permission: { tool: 'Write', summary: '/a' } } },
    });
    expect(events[1]).toEqual({ type: 'input_canceled', request_id: 'c1' });
    expect(events[2]).toMatchObject({ type: 'error', reason: 'input_protocol_error' });
    expect(verdict).toMatchObject({ kind: 'failed', reason: 'input_protocol_error' });
  });

  it('reads (UTC) reset sentences as the next such time', () => {
    expect(resetFromSentence('resets 12:17am (UTC)', NOW)).toBe('2026-11-22T00:17:00.000Z');
    expect(resetFromSentence('resets 9pm (UTC)', NOW)).toBe('2026-11-22T21:00:00.000Z');
    expect(resetFromSentence('resets 9:44pm (Europe/Paris)', NOW)).toBeNull();
  });
});

describe('claude input answers', () => {
  const question: InputRequest = {
    request_id: 'r-q',
    pending: {
      kind: 'question',
      questions: [
        { text: 'Which colour?', multi_select: false },
        { text: 'Toppings?', multi_select: true },
      ],
    },
    payload: {
      tool_name: 'AskUserQuestion',
      input: { questions: [{ question: 'Which colour?' }, { question: 'Toppings?' }] },
    },
  };
  const permission: InputRequest = {
    request_id: 'r-p',
    pending: { kind: 'permission', permission: { tool: 'Bash', summary: 'x' } },
    payload: { tool_name: 'Bash', input: { command: 'touch x' } },
  };
  const input = claudeAdapter.input;
  if (!input) throw new Error('claude has input');

  it('answers a question with the original input plus comma-joined answers', () => {
    expect(
      JSON.parse(
        input.answer(question, { answers: { 'Which colour?': 'Red', 'Toppings?': ['A', 'B'] } }),
      ),
    ).toEqual({
      type: 'control_response',
      response: {
        subtype: 'success',
        request_id: 'r-q',
        response: {
          behavior: 'allow',
          updatedInput: {
            questions: [{ question: 'Which colour?' }, { question: 'Toppings?' }],
            answers: { 'Which colour?': 'Red', 'Toppings?': 'A,B' },
          },
        },
      },
    });
  });

  it('allows a permission with the original input, denies with a message', () => {
    expect(JSON.parse(input.answer(permission, { allow: true })).response.response).toEqual({
      behavior: 'allow',
      updatedInput: { command: 'touch x' },
    });
    expect(JSON.parse(input.answer(permission, { allow: false })).response.response).toEqual({
      behavior: 'deny',
      message: 'denied by the user',
    });
  });

  it('on_input deny: permissions refused, questions told nobody will answer', () => {
    expect(JSON.parse(input.deny(permission)).response.response.behavior).toBe('deny');
    const q = JSON.parse(input.deny(question)).response.response;
    expect(q.behavior).toBe('allow');
    expect(q.updatedInput.answers).toEqual({});
    expect(q.updatedInput.response).toMatch(/No user is available/);
  });
});

describe('claude probes (fixtures from 2.1.330)', () => {
  const exited = (stdout: string, code = 0): ProbeOutcome => ({
    kind: 'exited',
    code,
    signal: null,
    stdout,
    stderr: '',
  });

  it('auth status: JSON loggedIn, exit 0/1', () => {
    expect(parseAuthStatus(exited(probeFixture('auth-status-logged-out_2.1.330.json'), 1))).toBe(
      false,
    );
    expect(parseAuthStatus(exited(probeFixture('auth-status-api-key_2.1.330.json')))).toBe(true);
    expect(
      parseAuthStatus(exited('Not logged in. Run claude auth login to authenticate.', 1)),
    ).toBe(false);
    expect(parseAuthStatus({ kind: 'timed_out', stdout: '', stderr: '' })).toBeNull();
  });

  it('list_models gives the --model values and the union of effort levels', () => {
    const parsed = parseModelList(probeFixture('list-models_2.1.330.jsonl'));
    expect(parsed?.models).toContain('sonnet');
    expect(parsed?.models).toContain('default');
    expect(parsed?.efforts).toEqual(['low', 'medium', 'high', 'xhigh', 'max']);
  });

  it('initialize lists skills and commands', () => {
    const skills = parseSkills(probeFixture('initialize_2.1.330.jsonl'));
    expect(skills?.map((s) => s.name)).toContain('code-review');
    expect(skills?.find((s) => s.name === 'debug')?.description).toBe(
      'Enable debug logging for this session and help diagnose issues',
    );
  });

  it('asks auth status only inside the version window, and list_models through the control protocol', async () => {
    for (const [version, asked] of [
      ['2.1.40 (Claude Code)', false],
      ['2.1.41 (Claude Code)', true],
      ['2.1.330 (Claude Code)', true],
      ['3.0.0 (Claude Code)', false],
    ] as const) {
      const calls: ProbeCommand[] = [];
      const probe = await claudeAdapter.probe({
        path: '/bin/claude',
        run: async (c) => {
          calls.push(c);
          if (c.args[0] === '--version') return exited(version);
          if (c.args[0] === 'auth') return exited(probeFixture('auth-status-api-key_2.1.330.json'));
          return exited(probeFixture('list-models_2.1.330.jsonl'));
        },
      });
      expect(calls.some((c) => c.args[0] === 'auth')).toBe(asked);
      expect(probe.logged_in).toBe(asked ? true : null);
      expect(probe.probe_error).toBeNull();
      const options = calls.at(-1);
      expect(options?.stdin).toContain('"list_models"');
      expect(options?.until?.(probeFixture('list-models_2.1.330.jsonl'))).toBe(true);
    }
  });
});

describe('claude quota push', () => {
  const quota = claudeAdapter.quota;
  if (quota?.kind !== 'push') throw new Error('claude quota is pushed');

  it('accepts the API body and the raw status-line document', () => {
    expect(
      quota.parsePush({
        source: 'claude_status_line',
        windows: [
          { name: 'five_hour', used_percent: 42, window: '5h', resets_at: '2026-11-22T01:00:00Z' },
        ],
      }),
    ).toEqual({
      ok: true,
      push: {
        source: 'claude_status_line',
        windows: [
          {
            name: 'five_hour',
            used_percent: 42,
            window: '5h',
            resets_at: '2026-11-22T01:00:00.000Z',
          },
        ],
      },
    });
    const doc = {
      session_id: 'x',
      rate_limits: {
        five_hour: { used_percentage: 42, resets_at: 1795294522 },
        seven_day: { used_percentage: 10 },
      },
    };
    expect(quota.parsePush(doc)).toEqual({
      ok: true,
      push: {
        source: 'claude_status_line',
        windows: [
          {
            name: 'five_hour',
            used_percent: 42,
            window: '5h',
            resets_at: new Date(1795294522000).toISOString(),
          },
          { name: 'seven_day', used_percent: 10, window: '7d' },
        ],
      },
    });
  });

  it('refuses other sources, empty window lists and zero-time resets spelled as garbage', () => {
    expect(
      quota.parsePush({
        source: 'codex_app_server',
        windows: [{ name: 'a', used_percent: 1, window: null }],
      }).ok,
    ).toBe(false);
    expect(
      quota.parsePush({
        source: 'claude_status_line',
        windows: [{ name: 'a', used_percent: 1, resets_at: 'soon' }],
      }).ok,
    ).toBe(false);
    // a status-line document without rate_limits (API-key auth) carries no window
    expect(quota.parsePush({ session_id: 'x', model: {} }).ok).toBe(false);
  });
});

it('replays the golden success stream with tool results correlated by call id', () => {
  const { events } = replay(claudeAdapter, { file: 'claude/resume-turn2_2.1.197.jsonl' });
  expect(events.filter((e) => e.type === 'tool_result')).toEqual([
    {
      type: 'tool_result',
      results: [
        {
          call_id: 'toolu_5a1c56f813ce05b10d30349d',
          name: 'Bash',
          summary: '(Bash completed with no output)',
          is_error: false,
        },
      ],
    },
  ]);
});
