import type {
  AgentEvent,
  AgentStreamParser,
  AgentVerdict,
  InputRequest,
  PendingInput,
  QuotaWindow,
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
  plausibleReset,
  str,
  tail,
  toolSummary,
} from '../../../kernel/plugin/index.js';

/** Payload an input request carries for `input.answer` / `input.deny` (adapter-private). */
export interface ClaudeRequestPayload {
  tool_name: string;
  input: Json;
  tool_use_id?: string;
}

interface UsageLimitSignal {
  /** Unix seconds, when the CLI named one. */
  resetsAt?: number;
}

const UNAUTH_TEXT =
  /invalid api key|please run \/login|not logged in|oauth token has expired|authentication_error|authentication_failed/i;

/** The CLI's own usage-limit sentence (`You've hit your limit · resets 9:44pm (UTC)`), start-anchored. */
const LIMIT_SENTENCE = /^You['\u2019]ve hit your\b[^\n]*\blimit\b/;

/**
 * One claude stream-json run. Usage limits and auth failures are read from structured fields
 * (`rate_limit_event`, `api_error`, `api_error_status`, `api_retry`) of a run that failed, never
 * from what the model wrote (decision 111). Success is judged by `is_error`, never by `subtype`
 * (API errors end `subtype: "success", is_error: true`).
 */
export function createClaudeParser(): AgentStreamParser {
  let sessionId: string | null = null;
  let result: Json | undefined;
  let usageLimit: UsageLimitSignal | undefined;
  let unauthenticated = false;
  let protocolError: string | undefined;
  const toolNames = new Map<string, string>();

  function noteSession(id: unknown, out: AgentEvent[]): void {
    if (typeof id === 'string' && id !== '' && sessionId === null) {
      sessionId = id;
      out.push({ type: 'session', id });
    }
  }

  function noteUsageLimit(info: unknown): void {
    const resetsAt = isRecord(info) ? num(info.resetsAt) : undefined;
    usageLimit = { resetsAt: resetsAt ?? usageLimit?.resetsAt };
  }

  function onAssistant(obj: Json, out: AgentEvent[]): void {
    const message = isRecord(obj.message) ? obj.message : {};
    const content = Array.isArray(message.content) ? message.content : [];
    // A synthetic line is the CLI reporting an API error in the model's place.
    const isApiError = obj.is_api_error_message === true || message.model === '<synthetic>';
    if (isApiError) {
      if (obj.api_error === 'usage_limit_reached') {
        const params = isRecord(obj.api_error_params) ? obj.api_error_params : {};
        noteUsageLimit(params.rate_limit_info);
      }
      if (obj.error === 'authentication_failed' || obj.api_error_status === 401) {
        unauthenticated = true;
      }
    }
    const tools: ToolUse[] = [];
    for (const block of content) {
      if (!isRecord(block)) continue;
      if (block.type === 'text' && typeof block.text === 'string') {
        out.push(
          isApiError
            ? { type: 'error', message: block.text }
            : { type: 'output', text: block.text },
        );
      } else if (block.type === 'thinking' && typeof block.thinking === 'string') {
        // The signature is never surfaced.
        out.push({ type: 'thinking', text: block.thinking });
      } else if (block.type === 'tool_use' && typeof block.name === 'string') {
        const id = str(block.id);
        if (id) toolNames.set(id, block.name);
        const summary = toolSummary(block.input);
        tools.push({
          name: block.name,
          ...(summary !== undefined && { summary }),
          ...(id !== undefined && { call_id: id }),
        });
      }
    }
    if (tools.length > 0) out.push({ type: 'tool_use', tools });
  }

  function onUser(obj: Json, out: AgentEvent[]): void {
    const message = isRecord(obj.message) ? obj.message : {};
    const content = Array.isArray(message.content) ? message.content : [];
    const results: ToolResult[] = [];
    for (const block of content) {
      if (!isRecord(block) || block.type !== 'tool_result') continue;
      const callId = str(block.tool_use_id);
      const name = callId ? toolNames.get(callId) : undefined;
      const summary = firstLine(block.content);
      results.push({
        ...(callId !== undefined && { call_id: callId }),
        ...(name !== undefined && { name }),
        ...(summary !== undefined && { summary }),
        is_error: block.is_error === true,
      });
    }
    // A user line without tool results is the prompt replayed, not a result.
    if (results.length > 0) out.push({ type: 'tool_result', results });
  }

  function onRateLimit(obj: Json, out: AgentEvent[]): void {
    const info = isRecord(obj.rate_limit_info) ? obj.rate_limit_info : undefined;
    if (!info) return;
    if (info.status === 'rejected') noteUsageLimit(info);
    const windows = rateLimitWindows(info);
    if (windows.length > 0) out.push({ type: 'quota', windows });
  }

  function onControlRequest(obj: Json, out: AgentEvent[]): void {
    const parsed = parseControlRequest(obj);
    if (typeof parsed === 'string') {
      protocolError = parsed;
      out.push({ type: 'error', message: parsed, reason: 'input_protocol_error' });
    } else {
      out.push({ type: 'input_request', request: parsed });
    }
  }

  function onResult(obj: Json, out: AgentEvent[]): void {
    noteSession(obj.session_id, out);
    // Multi-turn processes emit one result per turn; a single-turn run keeps the first.
    if (result === undefined) result = obj;
    const isError = obj.is_error === true;
    if (isError) {
      if (obj.api_error === 'usage_limit_reached') noteUsageLimit(undefined);
      if (obj.api_error_status === 401) unauthenticated = true;
    }
    const usage = isRecord(obj.usage) ? obj.usage : {};
    const inputTokens = num(usage.input_tokens);
    const outputTokens = num(usage.output_tokens);
    const cost = runCost(obj);
    out.push({
      type: 'usage',
      ...(inputTokens !== undefined && { input_tokens: inputTokens }),
      ...(outputTokens !== undefined && { output_tokens: outputTokens }),
      ...(cost !== undefined && { cost_usd: cost }),
    });
    out.push({
      type: 'result',
      is_error: isError,
      text: isError ? errorMessage(obj) : (str(obj.result) ?? ''),
      ...(inputTokens !== undefined && { input_tokens: inputTokens }),
      ...(outputTokens !== undefined && { output_tokens: outputTokens }),
      ...(cost !== undefined && { cost_usd: cost }),
    });
  }

  return {
    push(line: string): AgentEvent[] {
      const obj = parseLine(line);
      if (!obj) return [];
      const out: AgentEvent[] = [];
      switch (obj.type) {
        case 'system':
          if (obj.subtype === 'init') noteSession(obj.session_id, out);
          else if (obj.subtype === 'api_retry') onApiRetry(obj, out);
          break;
        case 'assistant':
          noteSession(obj.session_id, out);
          onAssistant(obj, out);
          break;
        case 'user':
          onUser(obj, out);
          break;
        case 'rate_limit_event':
          onRateLimit(obj, out);
          break;
        case 'control_request':
          onControlRequest(obj, out);
          break;
        case 'control_cancel_request': {
          const id = str(obj.request_id);
          if (id) out.push({ type: 'input_canceled', request_id: id });
          break;
        }
        case 'result':
          onResult(obj, out);
          break;
      }
      return out;
    },

    finish(exit: RunExit): AgentVerdict {
      const usage = runUsage(result, sessionId);
      if (protocolError !== undefined) {
        return { kind: 'failed', reason: 'input_protocol_error', message: protocolError, ...usage };
      }
      const exitedBadly = exit.signal !== null || exit.code !== 0;
      const failed = result === undefined || result.is_error === true || exitedBadly;
      const resultError = result?.is_error === true ? errorMessage(result) : undefined;
      if (failed) {
        const limitSentence = resultError !== undefined && LIMIT_SENTENCE.test(resultError);
        if (usageLimit || limitSentence) {
          // The epoch wins; an implausible one is dropped, not replaced by the wall-clock text.
          const epoch = usageLimit?.resetsAt;
          const resetsAt =
            epoch !== undefined
              ? plausibleReset(epoch, exit.now)
              : resultError
                ? resetFromSentence(resultError, exit.now)
                : null;
          return {
            kind: 'usage_limit',
            resets_at: resetsAt,
            message: resultError ?? 'usage limit reached',
            ...usage,
          };
        }
        const unauthText = resultError ?? (result === undefined ? exit.stderr_tail : '');
        if (unauthenticated || UNAUTH_TEXT.test(unauthText)) {
          return {
            kind: 'failed',
            reason: 'agent_unauthenticated',
            message: resultError ?? (tail(exit.stderr_tail) || 'not authenticated'),
            ...usage,
          };
        }
      }
      // An error result explains the failure; the exit code 1 that follows it is only its echo
      // (and in input mode races with our closing stdin), so it stays agent_error (decision 116).
      if (resultError !== undefined) {
        return { kind: 'failed', reason: 'agent_error', message: resultError, ...usage };
      }
      const noResult = `stream ended without a result event${stderrSuffix(exit.stderr_tail)}`;
      if (exitedBadly) {
        const how =
          exit.signal !== null ? `killed by ${exit.signal}` : `exited with code ${exit.code}`;
        const message = result === undefined ? noResult : `${how} after a successful result`;
        return { kind: 'failed', reason: 'nonzero_exit', message, ...usage };
      }
      if (result === undefined) {
        return { kind: 'failed', reason: 'agent_error', message: noResult, ...usage };
      }
      return { kind: 'succeeded', result_text: str(result.result) ?? '', ...usage };
    },
  };

  function onApiRetry(obj: Json, out: AgentEvent[]): void {
    const attempt = num(obj.attempt);
    const max = num(obj.max_retries);
    const status = num(obj.error_status);
    const what = str(obj.error);
    const message = `API error${status !== undefined ? ` ${status}` : ''}${what ? ` (${what})` : ''}, retry ${attempt ?? '?'}/${max ?? '?'}`;
    if (obj.error === 'authentication_failed' || obj.error_status === 401) {
      unauthenticated = true;
      out.push({ type: 'error', message, reason: 'agent_unauthenticated' });
    } else {
      out.push({ type: 'error', message });
    }
  }
}

function stderrSuffix(stderr: string): string {
  const t = tail(stderr);
  return t === '' ? '' : `: ${t}`;
}

/** `result` text when non-empty, else the first of `errors[]`, else the subtype. */
function errorMessage(obj: Json): string {
  const text = str(obj.result);
  if (text) return text;
  if (Array.isArray(obj.errors) && typeof obj.errors[0] === 'string') return obj.errors[0];
  return str(obj.subtype) ?? 'agent reported an error';
}

/**
 * This run's cost. `total_cost_usd` is cumulative across turns of one process and, from 2.1.3xx,
 * across `--resume`; `model_usage_since_last_result` (2.1.330) is this turn only, so it wins.
 */
function runCost(obj: Json): number | undefined {
  const since = obj.model_usage_since_last_result;
  if (isRecord(since)) {
    let sum = 0;
    let seen = false;
    for (const v of Object.values(since)) {
      const c = isRecord(v) ? num(v.costUSD) : undefined;
      if (c !== undefined) {
        sum += c;
        seen = true;
      }
    }
    if (seen) return sum;
  }
  return num(obj.total_cost_usd);
}

function runUsage(result: Json | undefined, sessionId: string | null): RunUsage {
  const usage = result && isRecord(result.usage) ? result.usage : {};
  const input = num(usage.input_tokens) ?? null;
  const output = num(usage.output_tokens) ?? null;
  return {
    input_tokens: input,
    output_tokens: output,
    cost_usd: result ? (runCost(result) ?? null) : null,
    // claude's result usage is per turn already, so no baseline is needed on resume.
    session_totals: null,
    session_id: sessionId ?? (result ? (str(result.session_id) ?? null) : null),
  };
}

function firstLine(content: unknown): string | undefined {
  let text: string | undefined;
  if (typeof content === 'string') text = content;
  else if (Array.isArray(content)) {
    for (const b of content) {
      if (isRecord(b) && typeof b.text === 'string') {
        text = b.text;
        break;
      }
    }
  }
  if (text === undefined) return undefined;
  const line = text.split('\n').find((l) => l.trim() !== '');
  return line === undefined ? undefined : oneLine(line, 120);
}

const WINDOW_LABELS: Record<string, string> = { five_hour: '5h', seven_day: '7d' };

/** `unifiedWindows` (utilization is a 0–1 fraction) as SPEC §2.4 windows. */
function rateLimitWindows(info: Json): QuotaWindow[] {
  const out: QuotaWindow[] = [];
  const unified = isRecord(info.unifiedWindows) ? info.unifiedWindows : undefined;
  if (!unified) return out;
  for (const [name, w] of Object.entries(unified)) {
    if (!isRecord(w)) continue;
    const utilization = num(w.utilization);
    if (utilization === undefined) continue;
    const resetsAt = num(w.resetsAt);
    out.push({
      name,
      used_percent: Math.round(utilization * 1000) / 10,
      window: WINDOW_LABELS[name] ?? (name.startsWith('seven_day') ? '7d' : null),
      ...(resetsAt !== undefined && { resets_at: new Date(resetsAt * 1000).toISOString() }),
    });
  }
  return out;
}

/**
 * `resets 9:44pm (UTC)` names wall-clock time only; it is readable when the zone is UTC (the
 * next such time after `now`). Other zones give null, and the recheck interval applies.
 */
export function resetFromSentence(text: string, now: Date): string | null {
  const m = /resets (\d{1,2})(?::(\d{2}))?\s*(am|pm) \(UTC\)/i.exec(text);
  if (!m) return null;
  let hour = Number(m[1]) % 12;
  if (m[3]?.toLowerCase() === 'pm') hour += 12;
  const minute = Number(m[2] ?? '0');
  const at = new Date(
    Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), hour, minute),
  );
  if (at.getTime() <= now.getTime()) at.setUTCDate(at.getUTCDate() + 1);
  return at.toISOString();
}

/** A `can_use_tool` control request as an input request, or the protocol error it is. */
function parseControlRequest(obj: Json): InputRequest | string {
  const requestId = str(obj.request_id);
  const request = isRecord(obj.request) ? obj.request : undefined;
  if (!requestId || !request) return 'control request without request_id or request';
  if (request.subtype !== 'can_use_tool') {
    return `unsupported control request subtype ${JSON.stringify(request.subtype)}`;
  }
  const toolName = str(request.tool_name);
  if (!toolName) return 'can_use_tool request without tool_name';
  const input = isRecord(request.input) ? request.input : {};
  const toolUseId = str(request.tool_use_id);
  const payload: ClaudeRequestPayload = {
    tool_name: toolName,
    input,
    ...(toolUseId !== undefined && { tool_use_id: toolUseId }),
  };
  let pending: PendingInput;
  if (toolName === 'AskUserQuestion') {
    const questions = parseQuestions(input.questions);
    if (!questions) return 'AskUserQuestion request without parseable questions';
    pending = { kind: 'question', questions };
  } else {
    const summary = str(request.description) ?? toolSummary(input) ?? toolName;
    pending = {
      kind: 'permission',
      permission: { tool: toolName, summary: oneLine(summary, 200) },
    };
  }
  return { request_id: requestId, pending, payload };
}

function parseQuestions(raw: unknown): PendingInput['questions'] | undefined {
  if (!Array.isArray(raw) || raw.length === 0) return undefined;
  const out: NonNullable<PendingInput['questions']> = [];
  for (const q of raw) {
    if (!isRecord(q) || typeof q.question !== 'string' || q.question === '') return undefined;
    const labelled = Array.isArray(q.options)
      ? q.options
          .map((o) => ({
            label: isRecord(o) ? str(o.label) : str(o),
            description: isRecord(o) ? (str(o.description) ?? '') : '',
          }))
          .filter((o): o is { label: string; description: string } => o.label !== undefined)
      : undefined;
    const options = labelled?.map((o) => o.label);
    const descriptions = labelled?.map((o) => o.description);
    const header = str(q.header);
    out.push({
      text: q.question,
      ...(header !== undefined && { header }),
      ...(options !== undefined && options.length > 0 && { options }),
      ...(descriptions?.some((d) => d !== '') && { option_descriptions: descriptions }),
      multi_select: q.multiSelect === true,
    });
  }
  return out;
}
