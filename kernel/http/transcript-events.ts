/**
 * A stored transcript as a reader wants it (issue 19 point 7, decision 207): the raw lines of an
 * agent step are each CLI's own stream format, so `?format=events` runs them through the step's
 * adapter parser and answers the normalized events instead — the same kinds, with the same fields,
 * the task's event stream carries live (`agent.output`, `agent.tool_use`, `agent.tool_result`,
 * `agent.result`, `agent.error`, …). The daemon's own `svc.*` lines pass through untouched, and
 * offsets stay the raw file's, so a reader pages with `X-Next-Offset` exactly as with raw lines.
 * A page gets a fresh parser: rendering is line by line, so no state crosses a page boundary that
 * a reader would miss.
 */
import type { AgentAdapter, AgentEvent } from '../plugin/index.js';

export const TRANSCRIPT_FORMATS = ['raw', 'events'] as const;
export type TranscriptFormat = (typeof TRANSCRIPT_FORMATS)[number];

/** Normalized kinds a reader renders; session ids, usage and quota readings are bookkeeping. */
const RENDERED = new Set(['output', 'thinking', 'tool_use', 'tool_result', 'result', 'error']);

function inputSummary(ev: Extract<AgentEvent, { type: 'input_request' }>): string {
  const p = ev.request.pending;
  if (p.kind === 'permission')
    return `permission: ${p.permission?.tool ?? 'tool'} ${p.permission?.summary ?? ''}`.trimEnd();
  return (p.questions ?? []).map((q) => q.text).join(' / ');
}

function eventLines(ev: AgentEvent): string[] {
  if (ev.type === 'input_request')
    return [JSON.stringify({ type: 'agent.input_request', summary: inputSummary(ev) })];
  if (!RENDERED.has(ev.type)) return [];
  const { type, ...data } = ev;
  return [JSON.stringify({ ...data, type: `agent.${type}` })];
}

/** The page `body` (complete lines) with an agent's raw stream lines replaced by its events. */
export function normalizeTranscript(body: Buffer, adapter: AgentAdapter | undefined): Buffer {
  if (!adapter || body.length === 0) return body;
  const parser = adapter.createParser({});
  const out: string[] = [];
  for (const line of body.toString('utf8').split('\n')) {
    if (line === '') continue;
    let type: unknown;
    try {
      type = (JSON.parse(line) as { type?: unknown })?.type;
    } catch {
      // Not JSON: text the CLI printed outside its stream format.
      out.push(JSON.stringify({ type: 'agent.output', text: line }));
      continue;
    }
    if (typeof type === 'string' && type.startsWith('svc.')) {
      out.push(line);
      continue;
    }
    let events: AgentEvent[] = [];
    try {
      events = parser.push(line);
    } catch {
      // The contract says parsers never throw; a reader still gets the rest.
    }
    for (const ev of events) out.push(...eventLines(ev));
  }
  return Buffer.from(out.length > 0 ? `${out.join('\n')}\n` : '');
}
