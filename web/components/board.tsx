/**
 * The board (issue 23 point 3): five columns by state group, filtered by project and workflow,
 * one card per root task with its step, lanes, cost, elapsed time and why it waits.
 */
import { useState } from 'preact/hooks';
import type { TaskRow } from '../../shared/wire-types.js';
import { useLive, useNow } from '../hooks.js';
import { columns, elapsedLine, laneCounts, stateLine, stepLine } from '../lib/board.js';
import { money } from '../lib/format.js';
import type { Live } from '../live.js';

const FILTER_KEY = 'svc.board.filter';

function savedFilter(): { project_id?: number; workflow?: string } {
  try {
    return JSON.parse(localStorage.getItem(FILTER_KEY) ?? '{}');
  } catch {
    return {};
  }
}

export function BoardView({ live }: { live: Live }) {
  useLive(live);
  const now = useNow(1000);
  const [filter, setFilter] = useState(savedFilter);
  const update = (f: typeof filter) => {
    setFilter(f);
    localStorage.setItem(FILTER_KEY, JSON.stringify(f));
  };
  const all = [...live.tasks.values()];
  const workflows = [
    ...new Set(
      all
        .filter((t) => filter.project_id === undefined || t.project_id === filter.project_id)
        .map((t) => t.workflow),
    ),
  ].sort();
  const lanes = laneCounts(all);
  const cols = columns(all, filter);
  return (
    <div class="board-wrap">
      <div class="filters">
        <label>
          Project
          <select
            data-testid="filter-project"
            value={filter.project_id ?? ''}
            onChange={(e) => {
              const v = (e.currentTarget as HTMLSelectElement).value;
              update({ ...filter, project_id: v ? Number(v) : undefined, workflow: undefined });
            }}
          >
            <option value="">All projects</option>
            {live.projects.map((p) => (
              <option value={p.id} key={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Workflow
          <select
            data-testid="filter-workflow"
            value={filter.workflow ?? ''}
            onChange={(e) => {
              const v = (e.currentTarget as HTMLSelectElement).value;
              update({ ...filter, workflow: v || undefined });
            }}
          >
            <option value="">All workflows</option>
            {workflows.map((w) => (
              <option value={w} key={w}>
                {w}
              </option>
            ))}
          </select>
        </label>
        {live.error && <span class="error-note">{live.error}</span>}
        {live.loaded && all.length === 0 && (
          <span class="muted">No tasks yet — start one with “New task”, or `svc task create`.</span>
        )}
      </div>
      <div class="board" data-testid="board">
        {cols.map((c) => (
          <section class={`column col-${c.id}`} key={c.id} data-column={c.id}>
            <h2>
              {c.title} <span class="pill">{c.tasks.length}</span>
            </h2>
            <div class="cards">
              {c.tasks.map((t) => (
                <Card task={t} lanes={lanes.get(t.id)} now={now} key={t.id} />
              ))}
            </div>
          </section>
        ))}
      </div>
    </div>
  );
}

function Card({
  task: t,
  lanes,
  now,
}: {
  task: TaskRow;
  lanes?: ReturnType<typeof laneCounts> extends Map<number, infer V> ? V : never;
  now: number;
}) {
  const step = stepLine(t, lanes);
  const state = stateLine(t, now);
  return (
    <a class={`card state-${t.state}`} href={`#/tasks/${t.id}`} data-task={t.id}>
      <div class="card-head">
        <span class="card-id">#{t.id}</span>
        <span class={`chip ${t.state}`}>{state}</span>
      </div>
      <div class="card-title">{t.title}</div>
      <div class="card-meta">
        <span>{t.project_name ?? `project ${t.project_id}`}</span>
        <span class="sep">·</span>
        <span>{t.workflow}</span>
      </div>
      {step && <div class="card-step">{step}</div>}
      {t.status_message && !['done', 'paused'].includes(t.state) && (
        <div class="card-status">{t.status_message}</div>
      )}
      <div class="card-foot">
        <span title="cost">
          {t.cost_usd === null || t.cost_usd === undefined ? '' : money(t.cost_usd)}
        </span>
        <span title="elapsed">{elapsedLine(t, now)}</span>
        {t.open_chat_id !== undefined && <span class="chat-tag">chat #{t.open_chat_id}</span>}
      </div>
    </a>
  );
}
