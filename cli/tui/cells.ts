/**
 * What one board row and the header show, as plain strings: state with its reason, the current
 * step with loop progress and lane counts, cost, duration, the quota badge per agent, and
 * terminal hyperlinks (OSC 8) when `tui.hyperlinks` is on. No React here, so each is unit-tested.
 */
import type { AgentRecord, TaskRow } from '../../shared/wire-types.js';
import { elapsed } from '../format.js';
import type { LaneCounts } from './grouping.js';

export type Tone = 'normal' | 'good' | 'warn' | 'bad' | 'muted' | 'accent';

/** `14:05` today, `11-23 14:05` another day, in the terminal's local time. */
export function clockTime(iso: string, now = Date.now()): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const hm = `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
  const today = new Date(now);
  if (d.toDateString() === today.toDateString()) return hm;
  return `${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')} ${hm}`;
}

/** `45s`, `59m`, `3h05m`, `2d04h` until `iso` (0s once passed). */
export function timeLeft(iso: string, now = Date.now()): string {
  const s = Math.max(0, Math.round((Date.parse(iso) - now) / 1000));
  if (Number.isNaN(s)) return iso;
  if (s < 60) return `${s}s`;
  const m = Math.round(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h${String(m % 60).padStart(2, '0')}m`;
  return `${Math.floor(h / 24)}d${String(h % 24).padStart(2, '0')}h`;
}

/** SPEC §2.4: a reported window that named no reset carries the zero time, never rendered. */
export function isZeroTime(iso: string | null | undefined): boolean {
  if (!iso) return true;
  const t = Date.parse(iso);
  return Number.isNaN(t) || new Date(t).getUTCFullYear() < 1971;
}

export function stateCell(t: TaskRow, now = Date.now()): { text: string; tone: Tone } {
  let text = t.state;
  if (t.state === 'blocked' && t.block_reason) text = `blocked: ${t.block_reason}`;
  else if (t.state === 'queued' && t.queued_reason)
    text = `queued: ${t.queued_reason}${t.admit_not_before ? `, ${timeLeft(t.admit_not_before, now)} left` : ''}`;
  else if (t.state === 'running' && t.pause_requested) text = 'running (pausing)';
  if (t.open_chat_id !== undefined) text += ` · chat #${t.open_chat_id}`;
  // Work only the worktree holds, never invisible (decision 204).
  if (t.worktree_changes) text += ` · ${t.worktree_changes.files} uncommitted`;
  return { text, tone: stateTone(t.state) };
}

function stateTone(state: string): Tone {
  switch (state) {
    case 'running':
      return 'accent';
    case 'done':
      return 'good';
    case 'blocked':
    case 'aborted':
      return 'bad';
    case 'awaiting_gate':
    case 'awaiting_input':
      return 'warn';
    case 'archived':
    case 'paused':
      return 'muted';
    default:
      return 'normal';
  }
}

/** `loop 2/5 item=api` (SPEC §2.1: total when present, else max_iterations). */
export function loopCell(loop: TaskRow['loop']): string {
  if (!loop) return '';
  const of = loop.total ?? loop.max_iterations;
  return `loop ${loop.iteration}/${of}${loop.item ? ` ${loop.item}` : ''}`;
}

/** `lanes 1/3` settled of total, with the ones waiting on a human. */
export function lanesCell(c: LaneCounts | undefined): string {
  if (!c) return '';
  const extra = [
    c.blocked > 0 ? `${c.blocked} blocked` : '',
    c.awaiting_gate > 0 ? `${c.awaiting_gate} at gate` : '',
  ].filter(Boolean);
  return `lanes ${c.settled}/${c.total}${extra.length ? ` (${extra.join(', ')})` : ''}`;
}

/** `2/5 test · loop 2/3 · lanes 1/2`: the step in progress and its progress. */
export function stepCell(t: TaskRow, lanes?: LaneCounts): string {
  const parts: string[] = [];
  if (t.follow_up && t.current_step >= t.step_total) parts.push(`follow-up ${t.follow_up.round}`);
  else if (t.step_total > 0) {
    const n = Math.min(t.current_step + 1, t.step_total);
    parts.push(`${n}/${t.step_total}${t.step_name ? ` ${t.step_name}` : ''}`);
  }
  const loop = loopCell(t.loop);
  if (loop) parts.push(loop);
  const l = lanesCell(lanes);
  if (l) parts.push(l);
  return parts.join(' · ');
}

/** `$0.12`, `<$0.01`, or `—` when no step reported a cost (SPEC §2.1: null is not zero). */
export function costCell(cost: number | null | undefined): string {
  if (cost === null || cost === undefined) return '—';
  if (cost > 0 && cost < 0.01) return '<$0.01';
  return `$${cost.toFixed(2)}`;
}

/** Time since the task started (or was created, while it waits), frozen once it finished. */
export function durationCell(t: TaskRow, now = Date.now()): string {
  return elapsed(t.started_at ?? t.created_at, t.finished_at, now);
}

/** One badge per agent (SPEC §2.4): `claude 42% 5h`, `codex spent until 14:05`, `cursor —`. */
export function quotaBadge(a: AgentRecord, now = Date.now()): { text: string; tone: Tone } {
  if (!a.available) return { text: `${a.name} not installed`, tone: 'muted' };
  const q = a.quota;
  if (!q) return { text: `${a.name} —`, tone: 'muted' };
  if (q.spent) {
    const until = isZeroTime(q.resets_at) ? '' : ` until ${clockTime(q.resets_at, now)}`;
    return { text: `${a.name} spent${until}`, tone: 'bad' };
  }
  if (q.used_percent !== null) {
    const pct = Math.round(q.used_percent);
    return {
      text: `${a.name} ${pct}%${q.window ? ` ${q.window}` : ''}`,
      tone: pct >= 80 ? 'warn' : 'good',
    };
  }
  return { text: `${a.name} ok`, tone: 'good' };
}

/** OSC 8 hyperlink when enabled, else the text alone. */
export function hyperlink(text: string, url: string | undefined, enabled: boolean): string {
  if (!enabled || !url) return text;
  return `\u001b]8;;${url}\u0007${text}\u001b]8;;\u0007`;
}

/** `file://` URL for a local path, percent-encoded per segment. */
export function fileUrl(path: string): string {
  return `file://${path.split('/').map(encodeURIComponent).join('/')}`;
}

/** Cuts to `width` columns with an ellipsis (code points; the board's text is mostly ASCII). */
export function clip(text: string, width: number): string {
  const chars = [...text];
  if (width <= 0) return '';
  return chars.length <= width ? text : `${chars.slice(0, width - 1).join('')}…`;
}

/**
 * At most `max` lines of `lines`, keeping the first (a table header) and a window around the first
 * line `focus` picks (the current step), with `…` where lines were left out.
 */
export function windowAround(
  lines: string[],
  focus: (line: string) => boolean,
  max: number,
): string[] {
  const [head, ...rest] = lines;
  const room = max - 1;
  if (head === undefined || rest.length <= room || max < 4) return lines;
  const at = Math.max(0, rest.findIndex(focus));
  // Near the top: one marker below; near the end: one above; else both.
  if (at < room - 1) return [head, ...rest.slice(0, room - 1), '…'];
  if (at >= rest.length - (room - 1)) return [head, '…', ...rest.slice(rest.length - (room - 1))];
  const from = at - Math.floor((room - 2) / 2);
  return [head, '…', ...rest.slice(from, from + room - 2), '…'];
}
