import type {
  AgentEvent,
  AgentStreamParser,
  AgentVerdict,
  RunExit,
  RunUsage,
  ToolResult,
  ToolUse,
} from '../../../kernel/plugin/index.js';
import {
  isRecord,
  type Json,
  num,
  oneLine,
  parseLine,
  str,
  tail,
  toolSummary,
} from '../../../kernel/plugin/index.js';

/** `{editToolCall: {args, result?}, toolCallId, …}` → the `…ToolCall` entry and its name. */
function toolEntry(toolCall: unknown): { name: string; body: Json } | undefined {
  if (!isRecord(toolCall)) return undefined;
  for (const [key, value] of Object.entries(toolCall)) {
    if (key.endsWith('ToolCall') && key.length > 'ToolCall'.length && isRecord(value)) {
      return { name: key.slice(0, -'ToolCall'.length), body: value };
    }
  }
  return undefined;
}

/** Edits say `+A −R`, shells `exit N`; a result without `success` (e.g. `rejected`) is a failure. */
function outcome(body: Json): { summary?: string; is_error: boolean } {
  const result = isRecord(body.result) ? body.result : undefined;
  const success = result && isRecord(result.success) ? result.success : undefined;
  if (!success) {
    const why = result ? Object.keys(result)[0] : undefined;
    return { ...(why && { summary: why }), is_error: true };
  }
  const added = num(success.linesAdded);
  const removed = num(success.linesRemoved);
  if (added !== undefined || removed !== undefined) {
    return { summary: `+${added ?? 0} \u2212${removed ?? 0}`, is_error: false };
  }
  const code = num(success.exitCode);
  if (code !== undefined) return { summary: `exit ${code}`, is_error: code !== 0 };
  return { is_error: false };
}

/**
 * One `cursor-agent -p --output-format stream-json` run: claude-shaped, a different dialect.
 * Thinking arrives as deltas closed by `thinking/completed`; tools are `tool_call` started /
 * completed pairs keyed by `call_id`; `result` is terminal, an error when `is_error` or a subtype
 * other than `success`. Errors mostly never reach the stream (bad model, trust, auth: exit 1 with
 * the reason on stderr), hence the stderr tail in the no-result message. No usage-limit or auth
 * wording is classified: none has been seen (decision 111).
 */
export function createCursorParser(): AgentStreamParser {
  let sessionId: string | null = null;
  let thinking = '';
  let result: Json | undefined;

  function noteSession(id: unknown, out: AgentEvent[]): void {
    if (typeof id === 'string' && id !== '' && sessionId === null) {
      sessionId = id;
      out.push({ type: 'session', id });
    }
  }

  function usageOf(): RunUsage {
    const u = result && isRecord(result.usage) ? result.usage : {};
    return {
      input_tokens: num(u.inputTokens) ?? null,
      output_tokens: num(u.outputTokens) ?? null,
      cost_usd: null,
      session_totals: null,
      session_id: sessionId,
    };
  }

  const isErrorResult = (r: Json) =>
    r.is_error === true || (r.subtype !== undefined && r.subtype !== 'success');

  return {
    push(line: string): AgentEvent[] {
      const obj = parseLine(line);
      if (!obj) return [];
      const out: AgentEvent[] = [];
      switch (obj.type) {
        case 'system':
          if (obj.subtype === 'init') noteSession(obj.session_id, out);
          break;
        case 'thinking':
          if (obj.subtype === 'delta' && typeof obj.text === 'string') thinking += obj.text;
          else if (obj.subtype === 'completed') {
            if (thinking !== '') out.push({ type: 'thinking', text: thinking });
            thinking = '';
          }
          break;
        case 'assistant': {
          noteSession(obj.session_id, out);
          const message = isRecord(obj.message) ? obj.message : {};
          const content = Array.isArray(message.content) ? message.content : [];
          const text = content
            .map((b) => (isRecord(b) && b.type === 'text' ? str(b.text) : undefined))
            .filter((t) => t !== undefined)
            .join('');
          if (text !== '') out.push({ type: 'output', text });
          break;
        }
        case 'tool_call': {
          const entry = toolEntry(obj.tool_call);
          if (!entry) break;
          const callId = str(obj.call_id);
          if (obj.subtype === 'started') {
            const summary = toolSummary(entry.body.args);
            const tool: ToolUse = {
              name: entry.name,
              ...(summary !== undefined && { summary }),
              ...(callId !== undefined && { call_id: callId }),
            };
            out.push({ type: 'tool_use', tools: [tool] });
          } else if (obj.subtype === 'completed') {
            const res: ToolResult = {
              ...(callId !== undefined && { call_id: callId }),
              name: entry.name,
              ...outcome(entry.body),
            };
            out.push({ type: 'tool_result', results: [res] });
          }
          break;
        }
        case 'result': {
          noteSession(obj.session_id, out);
          result ??= obj;
          const isError = isErrorResult(obj);
          const u = isRecord(obj.usage) ? obj.usage : {};
          const tokens = {
            ...(num(u.inputTokens) !== undefined && { input_tokens: num(u.inputTokens) }),
            ...(num(u.outputTokens) !== undefined && { output_tokens: num(u.outputTokens) }),
          };
          out.push({ type: 'usage', ...tokens });
          out.push({
            type: 'result',
            is_error: isError,
            text: str(obj.result) ?? (isError ? (str(obj.subtype) ?? 'error') : ''),
            ...tokens,
          });
          break;
        }
      }
      return out;
    },

    finish(exit: RunExit): AgentVerdict {
      const usage = usageOf();
      if (result && isErrorResult(result)) {
        // The error result explains the failure; exit 1 is its echo (decision 116).
        const message =
          str(result.result) || str(result.subtype) || 'cursor-agent reported an error';
        return { kind: 'failed', reason: 'agent_error', message: oneLine(message, 2000), ...usage };
      }
      const stderr = tail(exit.stderr_tail);
      const noResult = `stream ended without a result event${stderr ? `: ${stderr}` : ''}`;
      if (exit.signal !== null || exit.code !== 0) {
        const how =
          exit.signal !== null ? `killed by ${exit.signal}` : `exited with code ${exit.code}`;
        return {
          kind: 'failed',
          reason: 'nonzero_exit',
          message: result ? `${how} after a successful result` : noResult,
          ...usage,
        };
      }
      if (!result) return { kind: 'failed', reason: 'agent_error', message: noResult, ...usage };
      // `result` is every assistant message of the turn concatenated, which is what cursor calls its answer.
      return { kind: 'succeeded', result_text: str(result.result) ?? '', ...usage };
    },
  };
}
