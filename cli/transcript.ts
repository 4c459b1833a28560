/**
 * Transcripts for people (issue 19 point 7, decision 207): one renderer for a stored line and a
 * live frame, so `svc task logs` prints a finished task exactly as `-f` prints a live one (agent
 * text, tool calls as `→ Tool summary`, their results, errors), and one reader that follows
 * `X-Next-Offset` page by page to the end of the file instead of stopping at the first page.
 */
import type { Client } from './client.js';

type Json = Record<string, unknown>;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const lines = (text: string) => text.replace(/\n$/, '').split('\n');

/**
 * Lines for one event, stored (`svc.*` annotations, `agent.*` normalized events) or live
 * (`command.output`, `agent.*` frames of the task's stream). Bookkeeping kinds render nothing.
 */
export function renderEvent(type: string, d: Json): string[] {
  switch (type) {
    case 'svc.output':
    case 'command.output':
      // A live frame carries every line of a chunk of output (decision 232): each stderr line is marked.
      return d.stream === 'stderr' ? lines(str(d.text)).map((l) => `! ${l}`) : lines(str(d.text));
    case 'svc.stderr':
      return lines(str(d.text)).map((l) => `! ${l}`);
    case 'svc.command_started':
      return d.phase === 'check' ? [`$ (check) ${str(d.command)}`] : [`$ ${str(d.command)}`];
    case 'svc.step_finished':
      return d.state === 'failed'
        ? [
            `✗ failed: ${str(d.failure_reason) || 'step_failed'}${typeof d.exit_code === 'number' ? ` (exit ${d.exit_code})` : ''}`,
          ]
        : [];
    case 'svc.transcript_limit':
      return [
        `! transcript_max_bytes (${String(d.max_bytes)} bytes) reached: nothing past it was kept`,
      ];
    case 'svc.committed':
      return [
        `✓ committed ${str(d.commit).slice(0, 12)} (${String(d.files)} file${d.files === 1 ? '' : 's'}; commit: true)`,
      ];
    case 'svc.input_request':
      return ['? the agent asked for input'];
    case 'svc.input_response':
      return ['  answered'];
    case 'svc.input_timeout':
      return ['! nobody answered in time'];
    case 'svc.input_denied':
      return [`! input request denied${d.reason ? ` (${str(d.reason)})` : ''}`];
    case 'agent.output':
      return lines(str(d.text));
    case 'agent.tool_use':
      return (Array.isArray(d.tools) ? (d.tools as Json[]) : []).map(
        (t) => `→ ${str(t.name)}${t.summary ? ` ${str(t.summary)}` : ''}`,
      );
    case 'agent.tool_result':
      return (Array.isArray(d.results) ? (d.results as Json[]) : []).flatMap((r) =>
        r.summary || r.is_error
          ? [`  ${r.is_error ? '✗' : '←'} ${str(r.summary) || 'failed'}`]
          : [],
      );
    case 'agent.result':
      // A successful result repeats the last text; a failed one is the agent's last word.
      return d.is_error ? lines(`✗ ${str(d.text) || 'the agent reported an error'}`) : [];
    case 'agent.error':
      return lines(`! ${str(d.message)}`);
    case 'agent.input_request':
      return [`? ${str(d.summary)}`];
    default:
      return [];
  }
}

/** A stored transcript line (normalized with `?format=events`) as the lines a person reads. */
export function renderStoredLine(line: string): string[] {
  let j: Json;
  try {
    j = JSON.parse(line) as Json;
  } catch {
    return [line];
  }
  if (typeof j !== 'object' || j === null) return [line];
  return renderEvent(str(j.type), j);
}

export interface TranscriptPage {
  lines: string[];
  nextOffset: number;
  size: number;
}

/**
 * Reads a run's transcript from `from` to its end, a page (at most 4 MiB) at a time, handing each
 * page's lines to `onPage` before the next is asked for: the whole file is never in memory. Stops
 * at the end as it was when the last page was read; the offset it reached is returned. A line
 * longer than a page cannot be served (decision 016); the reader stops there and says so.
 */
export async function readTranscriptPages(
  client: Client,
  path: string,
  opts: { from?: number; format: 'raw' | 'events'; tail?: number },
  onPage: (page: TranscriptPage) => Promise<void> | void,
): Promise<{ offset: number; stuck: boolean } | null> {
  let offset = opts.from ?? 0;
  let first = true;
  for (;;) {
    const query: Record<string, string | number> =
      first && opts.tail !== undefined ? { tail: opts.tail } : { offset };
    if (opts.format === 'events') query.format = 'events';
    const res = await client.raw('GET', path, { query });
    if (!res.ok) {
      await res.arrayBuffer();
      return first ? null : { offset, stuck: false };
    }
    const text = await res.text();
    const nextOffset = Number(res.headers.get('x-next-offset') ?? offset);
    const size = Number(res.headers.get('x-transcript-size') ?? nextOffset);
    await onPage({ lines: text.split('\n').filter((l) => l !== ''), nextOffset, size });
    const moved = nextOffset !== offset || (first && opts.tail !== undefined);
    first = false;
    offset = nextOffset;
    if (offset >= size) return { offset, stuck: false };
    if (!moved) return { offset, stuck: true };
  }
}
