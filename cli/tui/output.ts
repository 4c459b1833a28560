/**
 * The detail pane's output: the tail of the current attempt's transcript, then live frames from
 * the task's event stream (docs/events.md: `command.output` and the `agent.*` kinds, no `id:`).
 * A live chunk carries its transcript offset, so one already read from the transcript is dropped
 * (decision 145).
 */
import type { Frame } from '../sse.js';

const MAX_OUTPUT_LINES = 500;

type Json = Record<string, unknown>;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Stands for agent-stream lines the pane does not render (decision 145). */
export function agentStreamNote(taskId: number | string): string {
  return `… earlier agent output: svc task logs ${taskId}`;
}

/**
 * Transcript lines (NDJSON) as a reader wants them: output text and the commands started. A run
 * of raw agent-stream lines becomes one note, so an agent step's pane never looks empty.
 */
export function transcriptLines(text: string, taskId: number | string = '<id>'): string[] {
  const note = agentStreamNote(taskId);
  const out: string[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    let j: Json;
    try {
      j = JSON.parse(line) as Json;
    } catch {
      out.push(line);
      continue;
    }
    if (j.type === 'svc.output') out.push(j.stream === 'stderr' ? `! ${str(j.text)}` : str(j.text));
    else if (j.type === 'svc.command_started') out.push(`$ ${str(j.command)}`);
    else if (j.type === 'svc.stderr') out.push(`! ${str(j.text)}`);
    // Raw agent stream lines are each CLI's own format, left to `svc task logs`; live frames
    // render them as they come.
    else if (!str(j.type).startsWith('svc.') && out.at(-1) !== note) out.push(note);
  }
  return out;
}

export interface LiveLines {
  /** Lines to append (may be empty). */
  lines: string[];
  /** A durable event: the task changed, so its detail should be read again. */
  durable: boolean;
}

/** One frame of `GET /v1/tasks/{id}/events`. `readUpTo` maps run id → transcript bytes already shown. */
export function liveLines(f: Frame, readUpTo: Map<number, number>): LiveLines {
  if (f.id !== undefined) return { lines: [], durable: true };
  let data: Json = {};
  try {
    data = f.data ? (JSON.parse(f.data) as Json) : {};
  } catch {
    return { lines: [], durable: false };
  }
  const run = typeof data.run_id === 'number' ? data.run_id : -1;
  if (typeof data.offset === 'number' && (readUpTo.get(run) ?? -1) >= data.offset)
    return { lines: [], durable: false };
  switch (f.event) {
    case 'command.output': {
      // One frame carries every line of a chunk of output (decision 232).
      const lines = splitLines(str(data.text));
      return {
        lines: data.stream === 'stderr' ? lines.map((l) => `! ${l}`) : lines,
        durable: false,
      };
    }
    case 'agent.output':
      return { lines: splitLines(str(data.text)), durable: false };
    case 'agent.tool_use': {
      const tools = Array.isArray(data.tools) ? (data.tools as Json[]) : [];
      return {
        lines: tools.map((t) => `→ ${str(t.name)}${t.summary ? ` ${str(t.summary)}` : ''}`),
        durable: false,
      };
    }
    default:
      return { lines: [], durable: false };
  }
}

function splitLines(text: string): string[] {
  return text.replace(/\n$/, '').split('\n');
}

/** Appends, keeping the last MAX_OUTPUT_LINES. */
export function appendOutput(
  prev: readonly string[],
  lines: readonly string[],
  max = MAX_OUTPUT_LINES,
): string[] {
  if (lines.length === 0) return prev as string[];
  const next = [...prev, ...lines];
  return next.length > max ? next.slice(next.length - max) : next;
}
