// The claude adapter against the shared adapter contract; its own argv, stream, input, probe and
// quota tests are in claude-run.test.ts.
import { expect } from 'vitest';
import { describeAgentAdapter } from '../../../test/support/describe-agent-adapter.js';
import plugin, { claudeAdapter } from './index.js';

const usage = (
  input: number | null,
  output: number | null,
  cost: number | null,
  session: string | null,
) => ({
  input_tokens: input,
  output_tokens: output,
  cost_usd: cost,
  session_totals: null,
  session_id: session,
});

describeAgentAdapter(claudeAdapter, {
  plugin,
  cli_versions: ['2.0.5', '2.1.197', '2.1.330'],
  golden: [
    {
      file: 'claude/success_2.1.197.jsonl',
      verdict: {
        kind: 'succeeded',
        result_text: 'done',
        ...usage(38221, 46, 0.192255, '93b5c096-5127-4f21-b212-99777431223c'),
      },
      tools: [
        {
          name: 'Write',
          summary: '/home/dev/work/repo1/hello.txt',
          call_id: 'toolu_8be41e950799a728e8ddbd79',
        },
      ],
      events: (events) =>
        expect(events.find((e) => e.type === 'tool_result')).toEqual({
          type: 'tool_result',
          results: [
            {
              call_id: 'toolu_8be41e950799a728e8ddbd79',
              name: 'Write',
              // first line, capped at 120 characters
              summary:
                'File created successfully at: /home/dev/work/repo1/hello.txt (file state is current in your context — no need to Read i…',
              is_error: false,
            },
          ],
        }),
    },
    {
      // fixed mock usage with a known model: the CLI's own price table gives an exact cost
      file: 'claude/success-fixed-usage-sonnet45_2.1.197.jsonl',
      verdict: {
        kind: 'succeeded',
        result_text: 'done',
        ...usage(2000, 200, 0.01395, '25d47759-46a6-45ca-bc19-e0fc01edaecb'),
      },
      tools: [
        {
          name: 'Write',
          summary: '/home/dev/work/repo12/hello.txt',
          call_id: 'toolu_cff274827606408696856429',
        },
      ],
    },
    {
      file: 'claude/success-partial-messages_2.1.197.jsonl',
      verdict: {
        kind: 'succeeded',
        result_text: 'done',
        ...usage(38221, 48, 0.192305, 'aad5e1fe-40e4-4863-9b06-4acb44a97e2f'),
      },
    },
    {
      file: 'claude/success_2.1.330.jsonl',
      verdict: {
        kind: 'succeeded',
        result_text: 'done',
        ...usage(2000, 200, 0.009000000000000001, '46131ae3-6321-40a9-840a-49c5a694d872'),
      },
      tools: [
        {
          name: 'Write',
          summary: '/tmp/svc-claude-wt-LutYvo/hello.txt',
          call_id: 'toolu_mock000003',
        },
      ],
    },
    {
      // API errors end subtype "success" with is_error true; exit 1 echoes it (decision 116)
      file: 'claude/error-400_2.1.197.jsonl',
      exit: { code: 1 },
      verdict: {
        kind: 'failed',
        reason: 'agent_error',
        message: 'API Error: 400 mock: scripted invalid request',
        ...usage(0, 0, 0, 'f90a62b4-a091-42eb-82fd-ad406ef411fc'),
      },
      events: (events) =>
        expect(events).toContainEqual({
          type: 'error',
          message: 'API Error: 400 mock: scripted invalid request',
        }),
    },
    {
      file: 'claude/error-400_2.1.330.jsonl',
      verdict: {
        kind: 'failed',
        reason: 'agent_error',
        message: 'API Error: 400 mock: scripted invalid request',
        ...usage(0, 0, 0, '6ae05386-5b38-47f5-bbdf-f01ab3102fd9'),
      },
    },
    {
      // an API-key 429 is an ordinary rate limit, not a spent window
      file: 'claude/error-429-retries2_2.1.197.jsonl',
      exit: { code: 1 },
      verdict: {
        kind: 'failed',
        reason: 'agent_error',
        message: 'API Error: Request rejected (429) · mock: scripted rate limit',
        ...usage(0, 0, 0, 'e55e2135-7047-40a6-8f85-bbe54d605f81'),
      },
    },
    {
      file: 'claude/usage-limit_2.1.330.jsonl',
      verdict: {
        kind: 'usage_limit',
        resets_at: '2026-11-22T00:17:03.000Z',
        message: "You've hit your 5-hour limit · resets 12:17am (UTC)",
        ...usage(0, 0, 0, 'bb393966-5ea7-4c3a-86ce-b21e61f2a630'),
      },
    },
    {
      // the named reset is more than 7 days away from this clock: dropped, the recheck interval applies
      file: 'claude/usage-limit_2.1.330.jsonl',
      now: new Date('2026-11-10T00:00:00Z'),
      verdict: {
        kind: 'usage_limit',
        resets_at: null,
        message: "You've hit your 5-hour limit · resets 12:17am (UTC)",
        ...usage(0, 0, 0, 'bb393966-5ea7-4c3a-86ce-b21e61f2a630'),
      },
    },
    {
      file: 'claude/denied-dontask_2.1.197.jsonl',
      verdict: {
        kind: 'succeeded',
        result_text: 'done',
        ...usage(57960, 86, 0.29195000000000004, '7638043c-6174-492c-b6fc-51298159819a'),
      },
      tools: [
        {
          name: 'Write',
          summary: '/home/dev/work/repo-dontAsk/hello.txt',
          call_id: 'toolu_2e77b5e2119d907a2fccaad4',
        },
        {
          name: 'Bash',
          summary: 'echo from-bash > bash.txt',
          call_id: 'toolu_6f52a8d20fdd096d1b704796',
        },
      ],
      events: (events) =>
        expect(
          events.filter((e) => e.type === 'tool_result' && e.results[0]?.is_error === true),
        ).toHaveLength(2),
    },
    {
      file: 'claude/denied-default_2.1.197.jsonl',
      verdict: {
        kind: 'succeeded',
        result_text: 'done',
        ...usage(57513, 86, 0.289715, 'ff6bd6ea-b7df-4a7c-8779-7be0c981add5'),
      },
    },
    {
      file: 'claude/acceptedits_2.1.197.jsonl',
      verdict: {
        kind: 'succeeded',
        result_text: 'done',
        ...usage(57490, 87, 0.28962499999999997, 'c2b835e5-3e6b-46fb-8761-d536aaf152c0'),
      },
    },
    {
      file: 'claude/resume-turn1_2.1.197.jsonl',
      verdict: {
        kind: 'succeeded',
        result_text: 'done',
        ...usage(38211, 46, 0.19220500000000001, '313a61a4-821f-4025-bc6e-68de946f2aa4'),
      },
    },
    {
      // 2.1.197 reports a resumed run's own cost; the session id is kept
      file: 'claude/resume-turn2_2.1.197.jsonl',
      verdict: {
        kind: 'succeeded',
        result_text: 'done again',
        ...usage(38564, 64, 0.19442000000000004, '313a61a4-821f-4025-bc6e-68de946f2aa4'),
      },
      tools: [
        {
          name: 'Bash',
          summary: "echo 'second turn' >> hello.txt",
          call_id: 'toolu_5a1c56f813ce05b10d30349d',
        },
      ],
    },
    {
      file: 'claude/resume-turn1_2.1.330.jsonl',
      verdict: {
        kind: 'succeeded',
        result_text: 'first',
        ...usage(1000, 100, 0.006, '2dcf8be5-f7fc-41f7-b0f2-96e724305595'),
      },
    },
    {
      // 2.1.330's total_cost_usd is cumulative across --resume; model_usage_since_last_result is this turn
      file: 'claude/resume-turn2_2.1.330.jsonl',
      verdict: {
        kind: 'succeeded',
        result_text: 'second',
        ...usage(1000, 100, 0.006, '2dcf8be5-f7fc-41f7-b0f2-96e724305595'),
      },
    },
    {
      file: 'claude/ask-question_2.1.330.jsonl',
      verdict: {
        kind: 'succeeded',
        result_text: 'You chose.',
        ...usage(2000, 200, 0.012, 'e4a59458-7180-455d-b01d-87d2466e3c0e'),
      },
      tools: [{ name: 'AskUserQuestion', call_id: 'toolu_mock000008' }],
      events: (events) => {
        const asked = events.filter((e) => e.type === 'input_request');
        expect(asked).toHaveLength(1);
        expect(asked[0]).toMatchObject({
          request: {
            pending: {
              kind: 'question',
              questions: [
                {
                  text: 'Which colour?',
                  header: 'Colour',
                  options: ['Green', 'Orange'],
                  multi_select: false,
                },
                {
                  text: 'Which toppings?',
                  header: 'Toppings',
                  options: ['Cheese', 'Olives'],
                  multi_select: true,
                },
              ],
            },
          },
        });
      },
    },
    {
      file: 'claude/ask-permission_2.1.330.jsonl',
      verdict: {
        kind: 'succeeded',
        result_text: 'made it',
        ...usage(2000, 200, 0.012, 'c6a4946f-6119-4051-9b0b-d55ab8fcff02'),
      },
      tools: [{ name: 'Bash', summary: 'touch made.txt', call_id: 'toolu_mock000013' }],
      events: (events) =>
        expect(events.find((e) => e.type === 'input_request')).toEqual({
          type: 'input_request',
          request: {
            request_id: 'c4d18e60-f055-417a-b949-3dddb3a0b82c',
            pending: {
              kind: 'permission',
              permission: { tool: 'Bash', summary: 'Create made.txt' },
            },
            payload: {
              tool_name: 'Bash',
              input: { command: 'touch made.txt', description: 'Create made.txt' },
              tool_use_id: 'toolu_mock000013',
            },
          },
        }),
    },
    {
      file: 'claude/deny-permission_2.1.330.jsonl',
      verdict: {
        kind: 'succeeded',
        result_text: 'could not',
        ...usage(2000, 200, 0.012, '8b05ee34-d25a-482c-91fc-3daa5b984530'),
      },
    },
    {
      file: 'claude/restricted-git_2.1.330.jsonl',
      verdict: {
        kind: 'succeeded',
        result_text: 'clean',
        ...usage(2000, 200, 0.012, '4ac3fa27-60af-41a4-a4e9-99a9cc2796ad'),
      },
      tools: [{ name: 'Bash', summary: 'git status --short', call_id: 'toolu_mock000023' }],
      events: (events) => expect(events.some((e) => e.type === 'input_request')).toBe(false),
    },
    {
      file: 'claude/plain-restricted_2.1.330.jsonl',
      verdict: {
        kind: 'succeeded',
        result_text: 'denied',
        ...usage(2000, 200, 0.012, '253699e3-c31f-485f-9f9a-f42634235aa9'),
      },
    },
    {
      file: 'claude/mcp_2.1.330.jsonl',
      verdict: {
        kind: 'succeeded',
        result_text: 'ok',
        ...usage(1000, 100, 0.006, 'adc5fd9e-4a2b-4ee8-a494-cef4f37b8da8'),
      },
    },
  ],
  quotedUsageLimit: {
    lines: [
      '{"type":"system","subtype":"init","session_id":"s-q"}',
      '{"type":"assistant","message":{"model":"claude-sonnet-4-5","content":[{"type":"text","text":"You\'ve hit your limit · resets 9:44pm (UTC) is what the CLI prints."}]},"session_id":"s-q"}',
      '{"type":"result","subtype":"success","is_error":false,"result":"You\'ve hit your limit · resets 9:44pm (UTC) is what the CLI prints.","session_id":"s-q","total_cost_usd":0.01,"usage":{"input_tokens":10,"output_tokens":5}}',
    ],
  },
});
