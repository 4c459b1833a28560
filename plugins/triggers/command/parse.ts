/**
 * Reading a trigger command's output: one JSON value per line. An object with an `id` (a
 * non-empty string or a number) is an event; an object whose only key is `cursor` is the
 * watermark (the last one wins); blank lines are ignored; anything else is counted as refused,
 * never guessed at, and so is a line nesting deeper than MAX_JSON_DEPTH. At most `max` events are kept; the rest are counted as truncated.
 */
import { jsonNestsDeeper, type TriggerEvent } from '../../../kernel/plugin/index.js';

export interface ParsedOutput {
  events: TriggerEvent[];
  /** The last `{"cursor": …}` line, as text. */
  watermark: string | null;
  truncated: number;
  refused: number;
  /** The events past `max`, in order (present only when there are some). */
  overflow?: TriggerEvent[];
}

export function parseCommandOutput(stdout: string, max: number): ParsedOutput {
  const out: ParsedOutput = { events: [], watermark: null, truncated: 0, refused: 0 };
  for (const raw of stdout.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    // A line nested past the bound is refused before anything walks it (decision 189).
    if (jsonNestsDeeper(line)) {
      out.refused++;
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      out.refused++;
      continue;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      out.refused++;
      continue;
    }
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj);
    if (keys.length === 1 && keys[0] === 'cursor') {
      const c = obj.cursor;
      if (typeof c === 'string' || (typeof c === 'number' && Number.isFinite(c)))
        out.watermark = String(c);
      else out.refused++;
      continue;
    }
    const id = obj.id;
    const validId =
      (typeof id === 'string' && id !== '') || (typeof id === 'number' && Number.isFinite(id));
    if (!validId) {
      out.refused++;
      continue;
    }
    if (out.events.length >= max) {
      out.truncated++;
      out.overflow ??= [];
      out.overflow.push({ ...obj, id: String(id) });
      continue;
    }
    out.events.push({ ...obj, id: String(id) });
  }
  return out;
}

/**
 * The cursor to keep after a poll. A seeding poll keeps the printed watermark: everything the
 * command knew of is before arming. A truncated poll keeps the `cursor` of the last kept event
 * when it carries one, so the dropped events come again next time; otherwise the watermark.
 */
export function nextCursor(parsed: ParsedOutput, seeding: boolean): string | null {
  if (resumesAfterCap(parsed, seeding)) return String(parsed.events.at(-1)?.cursor);
  return parsed.watermark;
}

/** Whether the next poll shows the events past the cap again: a live poll whose last kept event carries a cursor. */
function resumesAfterCap(parsed: ParsedOutput, seeding: boolean): boolean {
  const last = parsed.events.at(-1)?.cursor;
  return !seeding && parsed.truncated > 0 && (typeof last === 'string' || typeof last === 'number');
}

/**
 * The events past the cap the next poll will not show again (decision 196): all of them, unless
 * the poll resumes from the last kept event's cursor. The kernel records them in the ledger.
 */
export function droppedEvents(parsed: ParsedOutput, seeding: boolean): TriggerEvent[] {
  return resumesAfterCap(parsed, seeding) ? [] : (parsed.overflow ?? []);
}
