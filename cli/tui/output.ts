/**
 * The detail pane's output: the tail of the current attempt's transcript, then live frames from
 * the task's event stream (docs/events.md: `command.output` and the `agent.*` kinds, no `id:`).
 * A live chunk carries its transcript offset, so one already read from the transcript is dropped
 * (decision 145).
 */
import type { Frame } from '../sse.js';
import { renderEvent } from '../transcript.js';

const MAX_OUTPUT_LINES = 500;

type Json = Record<string, unknown>;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Stands for raw agent-stream lines from a daemon that cannot normalize them (decision 145). */
export function agentStreamNote(taskId: number | string): string {
  return `… earlier agent output: svc task logs ${taskId}`;
}

/**
 * Transcript lines as a reader wants them. The board asks for them normalized (`?format=events`,
 * decision 207), so an agent step's text and tool calls render as `svc task logs` prints them; a
 * raw agent-stream line (a daemon without the format) becomes one note per run of them.
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
    const type = str(j.type);
    if (type.startsWith('svc.') || type.startsWith('agent.')) out.push(...renderEvent(type, j));
    else if (out.at(-1) !== note) out.push(note);
  }
  return out;
}

export interface LiveLines {
  /** Lines to append (may be empty). */
  lines: string[];
  /** A durable event: the task changed, so its detail should be read again. */
  durable: boolean;
}

/** `── test attempt 2`: the line above an attempt's output (issue 19 point 14). */
export function attemptHeader(stepId: string, attempt: number): string {
  return `── ${stepId} attempt ${attempt}`;
}

/** One frame of `GET /v1/tasks/{id}/events`. `readUpTo` maps run id → transcript bytes already shown. */
export function liveLines(f: Frame, readUpTo: Map<number, number>): LiveLines {
  let data: Json = {};
  try {
    data = f.data ? (JSON.parse(f.data) as Json) : {};
  } catch {
    return { lines: [], durable: f.id !== undefined };
  }
  if (f.id !== undefined) {
    // A new attempt's output starts under its own header, so a retry does not run into the last.
    const p = (data.payload ?? {}) as Json;
    if (f.event === 'step.started' && typeof p.step_id === 'string')
      return { lines: [attemptHeader(p.step_id, Number(p.attempt ?? 1))], durable: true };
    return { lines: [], durable: true };
  }
  const run = typeof data.run_id === 'number' ? data.run_id : -1;
  if (typeof data.offset === 'number' && (readUpTo.get(run) ?? -1) >= data.offset)
    return { lines: [], durable: false };
  return { lines: renderEvent(f.event ?? '', data), durable: false };
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
