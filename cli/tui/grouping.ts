/**
 * The board's lines: root tasks grouped per `tui.board.group_by` (project, workflow; `[]` flat),
 * newest first inside a group, each root followed by its fan-out lanes at every depth, and the
 * lane counts a root shows, rolled up over its whole subtree from the same list (decision 143).
 */
import type { TaskRow } from '../../shared/wire-types.js';

export type BoardLine =
  | { kind: 'group'; depth: number; label: string; count: number }
  | { kind: 'task'; depth: number; task: TaskRow };

export interface LaneCounts {
  total: number;
  settled: number;
  blocked: number;
  awaiting_gate: number;
}

const SETTLED = new Set(['done', 'aborted', 'archived']);

function childrenOf(rows: TaskRow[]): Map<number, TaskRow[]> {
  const out = new Map<number, TaskRow[]>();
  for (const t of rows) {
    if (t.parent_task_id === null) continue;
    out.set(t.parent_task_id, [...(out.get(t.parent_task_id) ?? []), t]);
  }
  for (const list of out.values())
    list.sort((a, b) => (a.lane_order ?? 0) - (b.lane_order ?? 0) || a.id - b.id);
  return out;
}

/** Lane counts per task that has lanes in `rows`, over its whole subtree. */
export function laneCounts(rows: TaskRow[]): Map<number, LaneCounts> {
  const kids = childrenOf(rows);
  const out = new Map<number, LaneCounts>();
  const count = (id: number): LaneCounts => {
    const cached = out.get(id);
    if (cached) return cached;
    const c: LaneCounts = { total: 0, settled: 0, blocked: 0, awaiting_gate: 0 };
    for (const k of kids.get(id) ?? []) {
      c.total++;
      if (SETTLED.has(k.state)) c.settled++;
      if (k.state === 'blocked') c.blocked++;
      if (k.state === 'awaiting_gate') c.awaiting_gate++;
      const sub = count(k.id);
      c.total += sub.total;
      c.settled += sub.settled;
      c.blocked += sub.blocked;
      c.awaiting_gate += sub.awaiting_gate;
    }
    if (c.total > 0) out.set(id, c);
    return c;
  };
  for (const id of kids.keys()) count(id);
  return out;
}

function levelLabel(t: TaskRow, level: string): string {
  if (level === 'project') return t.project_name ?? `project ${t.project_id}`;
  if (level === 'workflow') return t.workflow;
  return String((t as unknown as Record<string, unknown>)[level] ?? '—');
}

/**
 * Roots are tasks without a parent, or whose parent is not in `rows` (a lane whose root is
 * archived still shows). Unknown levels group by the field of that name, so a newer daemon's
 * level still draws something.
 */
export function boardLines(rows: TaskRow[], groupBy: readonly string[]): BoardLine[] {
  const ids = new Set(rows.map((t) => t.id));
  const kids = childrenOf(rows);
  const roots = rows
    .filter((t) => t.parent_task_id === null || !ids.has(t.parent_task_id))
    .sort((a, b) => b.id - a.id);
  const out: BoardLine[] = [];
  const pushTask = (t: TaskRow, depth: number) => {
    out.push({ kind: 'task', depth, task: t });
    for (const k of kids.get(t.id) ?? []) pushTask(k, depth + 1);
  };
  const walk = (list: TaskRow[], levels: readonly string[], depth: number) => {
    const [level, ...rest] = levels;
    if (level === undefined) {
      for (const t of list) pushTask(t, depth);
      return;
    }
    const groups = new Map<string, TaskRow[]>();
    for (const t of list) {
      const label = levelLabel(t, level);
      groups.set(label, [...(groups.get(label) ?? []), t]);
    }
    const labels = [...groups.keys()].sort((a, b) =>
      a.localeCompare(b, undefined, { sensitivity: 'base' }),
    );
    for (const label of labels) {
      const members = groups.get(label) ?? [];
      out.push({ kind: 'group', depth, label, count: members.length });
      walk(members, rest, depth + 1);
    }
  };
  walk(roots, groupBy, 0);
  return out;
}

/** Task ids in board order: what the selection moves through. */
export function selectableIds(lines: BoardLine[]): number[] {
  return lines.flatMap((l) => (l.kind === 'task' ? [l.task.id] : []));
}
