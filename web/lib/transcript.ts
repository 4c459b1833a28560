/**
 * A step's output as a reader wants it (issue 23 point 4): the transcript's NDJSON lines and the
 * live frames of the task's stream, both turned into typed lines. svc's own lines (`svc.output`,
 * `svc.command_started`, `svc.stderr`) are read exactly. Live chunks carry the transcript offset
 * after them, so a chunk the transcript already held is dropped (decision 145). Pure.
 */

export type LineKind = 'out' | 'err' | 'cmd' | 'agent' | 'thinking' | 'tool' | 'result' | 'note';

export interface OutLine {
  kind: LineKind;
  text: string;
}

type Json = Record<string, unknown>;
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function split(kind: LineKind, text: string): OutLine[] {
  return text
    .replace(/\n$/, '')
    .split('\n')
    .map((t) => ({ kind, text: t }));
}

export function transcriptLines(ndjson: string, taskId: number): OutLine[] {
  const note = `… earlier agent output: svc task logs ${taskId}`;
  const out: OutLine[] = [];
  for (const line of ndjson.split('\n')) {
    if (!line) continue;
    let j: Json;
    try {
      j = JSON.parse(line) as Json;
    } catch {
      out.push({ kind: 'out', text: line });
      continue;
    }
    if (j.type === 'svc.output')
      out.push(...split(j.stream === 'stderr' ? 'err' : 'out', str(j.text)));
    else if (j.type === 'svc.command_started')
      out.push({ kind: 'cmd', text: `$ ${str(j.command)}` });
    else if (j.type === 'svc.stderr') out.push(...split('err', str(j.text)));
    // Raw agent-stream lines are each CLI's own format; as on the terminal board (decision 145)
    // a run of them is one pointer to `svc task logs`, and the live view renders what the adapter
    // parsed.
    else if (!str(j.type).startsWith('svc.') && out.at(-1)?.text !== note)
      out.push({ kind: 'note', text: note });
  }
  return out;
}

/** Lines of one live frame of `GET /v1/tasks/{id}/events` for run `runId`, or none. */
export function liveLines(
  event: string | undefined,
  data: Json,
  runId: number,
  readUpTo: number,
): OutLine[] {
  if (data.run_id !== runId) return [];
  if (typeof data.offset === 'number' && data.offset <= readUpTo) return [];
  switch (event) {
    case 'command.output':
      return split(data.stream === 'stderr' ? 'err' : 'out', str(data.text));
    case 'agent.output':
      return split('agent', str(data.text));
    case 'agent.thinking':
      return split('thinking', str(data.text));
    case 'agent.tool_use':
      return (Array.isArray(data.tools) ? (data.tools as Json[]) : []).map((t) => ({
        kind: 'tool' as const,
        text: `→ ${str(t.name)}${t.summary ? ` ${str(t.summary)}` : ''}`,
      }));
    default:
      return [];
  }
}

export const MAX_LINES = 2000;

export function append(prev: readonly OutLine[], lines: readonly OutLine[]): OutLine[] {
  if (lines.length === 0) return prev as OutLine[];
  const next = [...prev, ...lines];
  return next.length > MAX_LINES ? next.slice(next.length - MAX_LINES) : next;
}
