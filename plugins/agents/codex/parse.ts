import type {
  AgentEvent,
  AgentStreamParser,
  AgentVerdict,
  ParserOptions,
  RunExit,
  RunUsage,
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
} from '../../../kernel/plugin/index.js';

/**
 * The CLI's own usage-limit sentence on `turn.failed` (0.169 writes U+2019, 0.142.5 an ASCII
 * apostrophe). Only the terminal error field is read, never an agent message (decision 111).
 */
const LIMIT_SENTENCE = /^You['\u2019]ve hit your usage limit/;
const UNAUTH_TEXT =
  /\b401 Unauthorized\b|unexpected status 401|invalid api key|not logged in|please log ?in/i;

/** `/bin/bash -lc 'npm test'` → `npm test`: the wrapper says nothing about the command. */
export function unwrapShell(command: string): string {
  const m = /^\S*\/(?:ba|z)?sh -lc (['"])([\s\S]*)\1$/.exec(command);
  if (!m?.[2]) return command;
  // Inside double quotes the shell removes the backslash before \ " $ and `.
  return m[1] === '"' ? m[2].replace(/\\([\\"$`])/g, '$1') : m[2];
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/**
 * `try again at 9:19 PM.` (today) or `try again at Nov 24th, 2026 8:03 PM.` names local wall-clock
 * time only. It is read in the daemon's zone, which the child inherits through the environment
 * policy; a time already past today means tomorrow. Undefined when no time is named.
 */
export function resetFromSentence(text: string, now: Date): Date | undefined {
  const m =
    /try again at (?:([A-Z][a-z]{2})[a-z]* (\d{1,2})(?:st|nd|rd|th)?, (\d{4}) )?(\d{1,2}):(\d{2})\s*([AP]M)/i.exec(
      text,
    );
  if (!m) return undefined;
  let hour = Number(m[4]) % 12;
  if (m[6]?.toUpperCase() === 'PM') hour += 12;
  const minute = Number(m[5]);
  if (m[1] !== undefined) {
    const month = MONTHS.indexOf(m[1].toLowerCase());
    if (month < 0) return undefined;
    return new Date(Number(m[3]), month, Number(m[2]), hour, minute);
  }
  const at = new Date(now.getFullYear(), now.getMonth(), now.getDate(), hour, minute);
  if (at.getTime() <= now.getTime()) at.setDate(at.getDate() + 1);
  return at;
}

const MAX_RESET_AHEAD_MS = 7 * 24 * 3600 * 1000;

function plausible(at: Date | undefined, now: Date): string | null {
  if (!at) return null;
  const d = at.getTime() - now.getTime();
  return d > 0 && d <= MAX_RESET_AHEAD_MS ? at.toISOString() : null;
}

function toolOf(item: Json): ToolUse | undefined {
  const id = str(item.id);
  const withId = (t: ToolUse): ToolUse => (id !== undefined ? { ...t, call_id: id } : t);
  switch (item.type) {
    case 'command_execution': {
      const command = str(item.command);
      return withId({
        name: 'shell',
        ...(command && { summary: oneLine(unwrapShell(command), 200) }),
      });
    }
    case 'file_change': {
      const paths = Array.isArray(item.changes)
        ? item.changes
            .map((c) => (isRecord(c) ? str(c.path) : undefined))
            .filter((p) => p !== undefined)
        : [];
      return withId({
        name: 'file_change',
        ...(paths.length > 0 && { summary: oneLine(paths.join(' '), 200) }),
      });
    }
    case 'mcp_tool_call': {
      const server = str(item.server) ?? 'mcp';
      const tool = str(item.tool) ?? 'tool';
      return withId({ name: `mcp__${server}__${tool}` });
    }
    case 'web_search': {
      const query = str(item.query);
      return withId({ name: 'web_search', ...(query && { summary: oneLine(query, 200) }) });
    }
    default:
      return undefined;
  }
}

function resultSummary(item: Json): { summary?: string; is_error: boolean } {
  const status = str(item.status);
  if (item.type === 'command_execution') {
    const code = num(item.exit_code);
    if (code !== undefined) return { summary: `exit ${code}`, is_error: code !== 0 };
    return { ...(status && { summary: status }), is_error: status === 'failed' };
  }
  if (item.type === 'mcp_tool_call' && isRecord(item.error)) {
    return { summary: oneLine(str(item.error.message) ?? 'failed', 120), is_error: true };
  }
  return {
    ...(status && status !== 'completed' && { summary: status }),
    is_error: status === 'failed',
  };
}

/**
 * One `codex exec --json` run. codex has no result event: `turn.completed` is success (the last
 * `agent_message` is the result text), `turn.failed` is failure; a top-level `error` line is only a
 * notice (`Reconnecting... 2/5`). Token counts are cumulative across `exec resume`, so a resumed run
 * subtracts `resume_baseline` (the previous turn's `session_totals`).
 */
export function createCodexParser(options: ParserOptions = {}): AgentStreamParser {
  let threadId: string | null = null;
  let lastMessage: string | undefined;
  let terminal: { ok: true; usage: Json } | { ok: false; message: string } | undefined;
  const started = new Set<string>();

  function onItem(kind: 'started' | 'completed', item: Json, out: AgentEvent[]): void {
    const id = str(item.id);
    if (kind === 'completed') {
      if (item.type === 'agent_message' && typeof item.text === 'string') {
        lastMessage = item.text;
        out.push({ type: 'output', text: item.text });
        return;
      }
      if (item.type === 'reasoning' && typeof item.text === 'string') {
        out.push({ type: 'thinking', text: item.text });
        return;
      }
      if (item.type === 'error' && typeof item.message === 'string') {
        out.push({ type: 'error', message: item.message });
        return;
      }
    }
    const tool = toolOf(item);
    if (!tool) return;
    if (kind === 'started') {
      if (id) started.add(id);
      out.push({ type: 'tool_use', tools: [tool] });
      return;
    }
    // Items that never started (file_change, web_search) announce themselves as they complete.
    if (!id || !started.has(id)) out.push({ type: 'tool_use', tools: [tool] });
    out.push({
      type: 'tool_result',
      results: [{ ...(id && { call_id: id }), name: tool.name, ...resultSummary(item) }],
    });
  }

  function usageOf(raw: Json | undefined): RunUsage {
    const input = raw ? num(raw.input_tokens) : undefined;
    const output = raw ? num(raw.output_tokens) : undefined;
    const base = options.resume_baseline;
    const delta = (v: number | undefined, b: number | undefined) =>
      v === undefined ? null : Math.max(0, v - (b ?? 0));
    return {
      input_tokens: delta(input, base?.input_tokens),
      output_tokens: delta(output, base?.output_tokens),
      cost_usd: null,
      session_totals:
        input !== undefined && output !== undefined
          ? { input_tokens: input, output_tokens: output }
          : null,
      session_id: threadId,
    };
  }

  return {
    push(line: string): AgentEvent[] {
      const obj = parseLine(line);
      if (!obj) return [];
      const out: AgentEvent[] = [];
      switch (obj.type) {
        case 'thread.started': {
          const id = str(obj.thread_id);
          if (id && threadId === null) {
            threadId = id;
            out.push({ type: 'session', id });
          }
          break;
        }
        case 'item.started':
        case 'item.completed':
          if (isRecord(obj.item))
            onItem(obj.type === 'item.started' ? 'started' : 'completed', obj.item, out);
          break;
        case 'error':
          if (typeof obj.message === 'string') out.push({ type: 'error', message: obj.message });
          break;
        case 'turn.completed': {
          const usage = isRecord(obj.usage) ? obj.usage : {};
          terminal ??= { ok: true, usage };
          const u = usageOf(usage);
          const tokens = {
            ...(u.input_tokens !== null && { input_tokens: u.input_tokens }),
            ...(u.output_tokens !== null && { output_tokens: u.output_tokens }),
          };
          out.push({ type: 'usage', ...tokens });
          out.push({ type: 'result', is_error: false, text: lastMessage ?? '', ...tokens });
          break;
        }
        case 'turn.failed': {
          const message =
            (isRecord(obj.error) ? str(obj.error.message) : undefined) ?? 'codex turn failed';
          terminal ??= { ok: false, message };
          out.push({ type: 'result', is_error: true, text: message });
          break;
        }
      }
      return out;
    },

    finish(exit: RunExit): AgentVerdict {
      const usage = usageOf(terminal?.ok ? terminal.usage : undefined);
      const exitedBadly = exit.signal !== null || exit.code !== 0;
      const failure = terminal && !terminal.ok ? terminal.message : undefined;
      if (failure !== undefined && LIMIT_SENTENCE.test(failure)) {
        return {
          kind: 'usage_limit',
          resets_at: plausible(resetFromSentence(failure, exit.now), exit.now),
          message: failure,
          ...usage,
        };
      }
      if (failure !== undefined && UNAUTH_TEXT.test(failure)) {
        return { kind: 'failed', reason: 'agent_unauthenticated', message: failure, ...usage };
      }
      // turn.failed explains the failure; the exit code 1 that follows is its echo (decision 116).
      if (failure !== undefined)
        return { kind: 'failed', reason: 'agent_error', message: failure, ...usage };
      const stderr = tail(exit.stderr_tail);
      const noResult = `stream ended without a result event${stderr ? `: ${stderr}` : ''}`;
      if (exitedBadly) {
        const how =
          exit.signal !== null ? `killed by ${exit.signal}` : `exited with code ${exit.code}`;
        return {
          kind: 'failed',
          reason: 'nonzero_exit',
          message: terminal === undefined ? noResult : `${how} after turn.completed`,
          ...usage,
        };
      }
      if (terminal === undefined)
        return { kind: 'failed', reason: 'agent_error', message: noResult, ...usage };
      return { kind: 'succeeded', result_text: lastMessage ?? '', ...usage };
    },
  };
}
