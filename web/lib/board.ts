/**
 * The board's columns and cards (issue 23 point 3): tasks by state group — queued, running,
 * needs you (awaiting_gate, awaiting_input, blocked), done, aborted — filtered by project and
 * workflow; each card's step with loop progress and lane counts, and the words for why it waits.
 * Pure, so it is unit-tested without a browser.
 */
import type { TaskRow } from '../../shared/wire-types.js';
import { span } from './format.js';

export type ColumnId = 'queued' | 'running' | 'needs_you' | 'done' | 'aborted';

export interface Column {
  id: ColumnId;
  title: string;
  tasks: TaskRow[];
}

export const NEEDS_YOU = new Set(['awaiting_gate', 'awaiting_input', 'blocked']);

const COLUMN_OF: Record<string, ColumnId> = {
  queued: 'queued',
  paused: 'queued',
  running: 'running',
  awaiting_children: 'running',
  awaiting_gate: 'needs_you',
  awaiting_input: 'needs_you',
  blocked: 'needs_you',
  done: 'done',
  aborted: 'aborted',
};

const TITLES: Record<ColumnId, string> = {
  queued: 'Queued',
  running: 'Running',
  needs_you: 'Needs you',
  done: 'Done',
  aborted: 'Aborted',
};

export interface Filter {
  project_id?: number;
  workflow?: string;
}

/** Root tasks: lanes show on their root's card as counts. A lane whose root is gone stands alone. */
export function roots(tasks: Iterable<TaskRow>): TaskRow[] {
  const all = [...tasks];
  const ids = new Set(all.map((t) => t.id));
  return all.filter((t) => t.parent_task_id === null || !ids.has(t.parent_task_id));
}

/**
 * The five columns. Needs-you cards come oldest first (the longest wait on top); the others
 * newest first. An unknown state (a newer daemon) lands in Running rather than vanishing.
 */
export function columns(tasks: Iterable<TaskRow>, filter: Filter = {}): Column[] {
  const byId = new Map<ColumnId, TaskRow[]>();
  for (const t of roots(tasks)) {
    if (t.state === 'archived') continue;
    if (filter.project_id !== undefined && t.project_id !== filter.project_id) continue;
    if (filter.workflow !== undefined && t.workflow !== filter.workflow) continue;
    const col = COLUMN_OF[t.state] ?? 'running';
    byId.set(col, [...(byId.get(col) ?? []), t]);
  }
  return (Object.keys(TITLES) as ColumnId[]).map((id) => {
    const list = byId.get(id) ?? [];
    list.sort((a, b) => (id === 'needs_you' ? a.id - b.id : b.id - a.id));
    return { id, title: TITLES[id], tasks: list };
  });
}

/** How many tasks, lanes included, wait on a person: the page title's count. */
export function needsYouCount(tasks: Iterable<TaskRow>): number {
  let n = 0;
  for (const t of tasks) if (NEEDS_YOU.has(t.state)) n++;
  return n;
}

export interface LaneCounts {
  total: number;
  settled: number;
  waiting: number;
}

/** Lane counts per task with lanes, over its whole subtree. */
export function laneCounts(tasks: Iterable<TaskRow>): Map<number, LaneCounts> {
  const kids = new Map<number, TaskRow[]>();
  for (const t of tasks)
    if (t.parent_task_id !== null)
      kids.set(t.parent_task_id, [...(kids.get(t.parent_task_id) ?? []), t]);
  const out = new Map<number, LaneCounts>();
  const walk = (id: number): LaneCounts => {
    const c: LaneCounts = { total: 0, settled: 0, waiting: 0 };
    for (const k of kids.get(id) ?? []) {
      c.total++;
      if (k.state === 'done' || k.state === 'aborted' || k.state === 'archived') c.settled++;
      if (NEEDS_YOU.has(k.state)) c.waiting++;
      const sub = walk(k.id);
      c.total += sub.total;
      c.settled += sub.settled;
      c.waiting += sub.waiting;
    }
    if (c.total > 0) out.set(id, c);
    return c;
  };
  for (const id of kids.keys()) walk(id);
  return out;
}

/** `2/5 test · loop 2/3 api · lanes 1/3 (1 waiting)`. */
export function stepLine(t: TaskRow, lanes?: LaneCounts): string {
  const parts: string[] = [];
  if (t.step_total > 0) {
    const n = Math.min(t.current_step + 1, t.step_total);
    parts.push(`${n}/${t.step_total}${t.step_name ? ` ${t.step_name}` : ''}`);
  }
  if (t.loop) {
    const of = t.loop.total ?? t.loop.max_iterations;
    parts.push(`loop ${t.loop.iteration}/${of}${t.loop.item ? ` ${t.loop.item}` : ''}`);
  }
  if (lanes)
    parts.push(
      `lanes ${lanes.settled}/${lanes.total}${lanes.waiting > 0 ? ` (${lanes.waiting} waiting)` : ''}`,
    );
  return parts.join(' · ');
}

const STATE_WORDS: Record<string, string> = {
  awaiting_gate: 'awaiting approval',
  awaiting_input: 'agent asks',
  awaiting_children: 'lanes running',
};

/** The state in words, with its reason: `blocked: step_failed`, `queued: slots_full, 4m left`. */
export function stateLine(t: TaskRow, now = Date.now()): string {
  if (t.state === 'blocked' && t.block_reason) return `blocked: ${t.block_reason}`;
  if (t.state === 'queued' && t.queued_reason) {
    const left =
      t.admit_not_before && Date.parse(t.admit_not_before) > now
        ? `, ${span(new Date(now).toISOString(), t.admit_not_before)} left`
        : '';
    return `queued: ${t.queued_reason}${left}`;
  }
  if (t.state === 'running' && t.pause_requested) return 'running (pausing)';
  return STATE_WORDS[t.state] ?? t.state;
}

/** Elapsed time since the task started (or was created, while it waits), frozen once finished. */
export function elapsedLine(t: TaskRow, now = Date.now()): string {
  return span(t.started_at ?? t.created_at, t.finished_at, now);
}
