/**
 * The CLI's stdout, one JSON object per line, read into events for the live view and a verdict
 * at the end (decision 116). Unknown or broken lines yield nothing; they stay in the transcript.
 *
 *   {"type":"say","text":"…"}                         → output
 *   {"type":"tool","name":"write","path":"…"}         → tool_use
 *   {"type":"result","ok":true,"text":"…","tokens":{"in":12,"out":3}} → result
 */
import type {
  AgentEvent,
  AgentStreamParser,
  AgentVerdict,
  RunExit,
  RunUsage,
} from '../../kernel/plugin/index.js';

type Json = Record<string, unknown>;

function parseLine(line: string): Json | null {
  try {
    const v = JSON.parse(line) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : null;
  } catch {
    return null;
  }
}

const tail = (text: string) => text.trim().split('\n').slice(-20).join('\n');

export function createParser(): AgentStreamParser {
  let result: { ok: boolean; text: string } | null = null;
  const usage: RunUsage = {
    input_tokens: null,
    output_tokens: null,
    // The CLI reports no cost: null, never 0 (SPEC §2.1), so cost caps stay inert for it.
    cost_usd: null,
    session_totals: null,
    session_id: null,
  };
  return {
    push(line): AgentEvent[] {
      const m = parseLine(line);
      if (!m) return [];
      if (m.type === 'say' && typeof m.text === 'string') return [{ type: 'output', text: m.text }];
      if (m.type === 'tool' && typeof m.name === 'string')
        return [
          {
            type: 'tool_use',
            tools: [{ name: m.name, ...(typeof m.path === 'string' ? { summary: m.path } : {}) }],
          },
        ];
      if (m.type === 'result' && typeof m.ok === 'boolean') {
        const text = typeof m.text === 'string' ? m.text : '';
        const tokens = (m.tokens ?? {}) as Json;
        if (typeof tokens.in === 'number') usage.input_tokens = tokens.in;
        if (typeof tokens.out === 'number') usage.output_tokens = tokens.out;
        result = { ok: m.ok, text };
        return [
          {
            type: 'result',
            is_error: !m.ok,
            text,
            ...(usage.input_tokens !== null && { input_tokens: usage.input_tokens }),
            ...(usage.output_tokens !== null && { output_tokens: usage.output_tokens }),
          },
        ];
      }
      return [];
    },
    finish(exit: RunExit): AgentVerdict {
      if (!result)
        return exit.code !== 0 && exit.code !== null
          ? {
              kind: 'failed',
              reason: 'nonzero_exit',
              message: `exit ${exit.code}: ${tail(exit.stderr_tail)}`,
              ...usage,
            }
          : {
              kind: 'failed',
              reason: 'agent_error',
              message: `stream ended without a result event: ${tail(exit.stderr_tail)}`,
              ...usage,
            };
      if (!result.ok)
        return { kind: 'failed', reason: 'agent_error', message: result.text, ...usage };
      if (exit.code !== 0)
        return {
          kind: 'failed',
          reason: 'nonzero_exit',
          message: `exit ${exit.code ?? exit.signal}`,
          ...usage,
        };
      return { kind: 'succeeded', result_text: result.text, ...usage };
    },
  };
}
