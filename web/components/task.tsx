/**
 * A task's page (issue 23 point 4): its header and actions, what it waits for (a gate's
 * instructions, an agent's question), the step timeline with attempts, costs and tokens, and the
 * tabs for live output and the diff review. The task's own stream feeds both: durable events
 * re-read the detail, live chunks go to the output.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { StepRun, TaskDetail, TaskRow } from '../../shared/wire-types.js';
import { useNow } from '../hooks.js';
import { elapsedLine, stateLine } from '../lib/board.js';
import { count, money, span } from '../lib/format.js';
import type { Frame } from '../lib/sse.js';
import type { Live } from '../live.js';
import { ActionBar, InputPanel } from './actions.js';
import { DiffView } from './diff.js';
import type { FrameBus } from './frame-bus.js';
import { OutputView } from './output.js';

export function TaskView({ live, id, tab }: { live: Live; id: number; tab: string }) {
  const api = live.api;
  const [detail, setDetail] = useState<TaskDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const listeners = useRef(new Set<(f: Frame) => void>());
  const bus = useRef<FrameBus>({
    listen: (fn) => {
      listeners.current.add(fn);
      return () => listeners.current.delete(fn);
    },
  });
  const reloadTimer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const now = useNow(1000);

  const load = useCallback(async () => {
    try {
      const d = await api.get<TaskDetail>(`/v1/tasks/${id}`);
      setDetail(d);
      live.put(d);
      setError(null);
    } catch (err) {
      setError((err as Error).message);
    }
  }, [api, id, live]);

  useEffect(() => {
    const sub = api.follow(`/v1/tasks/${id}/events`, {
      onOpen: () => void load(),
      onFrame: (f) => {
        if (f.id !== undefined) {
          reloadTimer.current ??= setTimeout(() => {
            reloadTimer.current = null;
            void load();
          }, 80);
        }
        for (const l of listeners.current) l(f);
      },
    });
    return () => sub.close();
  }, [api, id, load]);

  const applied = (t: TaskRow) => {
    setDetail((d) => (d ? { ...d, ...t } : d));
    live.put(t);
    void load();
  };

  if (error && !detail)
    return (
      <div class="page-error">
        <a href="#/">← Board</a>
        <p>{error}</p>
      </div>
    );
  if (!detail) return <div class="loading">Loading task #{id}…</div>;
  const t = detail;
  const gateStep = t.state === 'awaiting_gate' ? t.workflow_steps?.[t.current_step] : undefined;
  return (
    <div class="task-page" data-testid="task-page">
      <div class="task-head">
        <a class="back" href="#/">
          ← Board
        </a>
        <div class="task-title-row">
          <h1>
            <span class="card-id">#{t.id}</span> {t.title}
          </h1>
          <span class={`chip big ${t.state}`} data-testid="task-state">
            {stateLine(t, now)}
          </span>
        </div>
        <div class="task-facts">
          <span>{t.project_name}</span>
          <span>{t.workflow}</span>
          {t.branch_name && <code>{t.branch_name}</code>}
          {t.cost_usd !== null && t.cost_usd !== undefined && (
            <span title="cost">{money(t.cost_usd)}</span>
          )}
          {(t.input_tokens ?? 0) + (t.output_tokens ?? 0) > 0 && (
            <span title="tokens in / out">
              {count(t.input_tokens)} in · {count(t.output_tokens)} out
            </span>
          )}
          <span title="elapsed">{elapsedLine(t, now)}</span>
          {t.parent_task_id !== null && (
            <a href={`#/tasks/${t.parent_task_id}`}>lane of #{t.parent_task_id}</a>
          )}
        </div>
        {t.status_message && <p class="status-message">{t.status_message}</p>}
        {t.block_detail && <pre class="block-detail">{t.block_detail}</pre>}
        <ActionBar api={api} task={t} onTask={applied} />
      </div>
      {gateStep && (
        <div class="gate-panel" data-testid="gate">
          <h3>Gate: {gateStep.name}</h3>
          {gateStep.instructions ? (
            <p class="instructions">{gateStep.instructions}</p>
          ) : (
            <p class="muted">Approve to go on, reject to stop here.</p>
          )}
        </div>
      )}
      {t.state === 'awaiting_input' && t.pending_input && (
        <InputPanel api={api} task={t} pending={t.pending_input} onTask={applied} />
      )}
      <div class="task-body">
        <aside class="timeline" data-testid="timeline">
          <h3>Steps</h3>
          <Timeline task={t} now={now} />
        </aside>
        <section class="task-main">
          <div class="tabs">
            <a class={tab === 'output' ? 'on' : ''} href={`#/tasks/${t.id}`}>
              Output
            </a>
            <a
              class={tab === 'review' ? 'on' : ''}
              href={`#/tasks/${t.id}/review`}
              data-testid="tab-review"
            >
              Review changes
            </a>
            <a class={tab === 'details' ? 'on' : ''} href={`#/tasks/${t.id}/details`}>
              Details
            </a>
          </div>
          {tab === 'review' ? (
            <DiffView api={api} task={t} onTask={applied} />
          ) : tab === 'details' ? (
            <Details task={t} />
          ) : (
            <OutputView api={api} task={t} bus={bus.current} />
          )}
        </section>
      </div>
    </div>
  );
}

function runLabel(r: StepRun): string {
  const parts = [`attempt ${r.attempt}`];
  if (r.loop_item) parts.push(r.loop_item);
  else if (r.iteration > 0) parts.push(`iteration ${r.iteration}`);
  if (r.follow_up) parts.push('follow-up');
  return parts.join(' · ');
}

function Timeline({ task: t, now }: { task: TaskDetail; now: number }) {
  const runs = t.steps ?? [];
  const steps = t.workflow_steps ?? [];
  const byIndex = new Map<number, StepRun[]>();
  for (const r of runs) byIndex.set(r.step_index, [...(byIndex.get(r.step_index) ?? []), r]);
  const extra = runs.filter((r) => r.step_index >= steps.length);
  return (
    <ol class="steps">
      {steps.map((s) => {
        const mine = byIndex.get(s.index) ?? [];
        const last = mine.at(-1);
        const current =
          s.index === t.current_step && !['done', 'aborted', 'archived'].includes(t.state);
        return (
          <li class={`step ${last?.state ?? 'pending'} ${current ? 'current' : ''}`} key={s.index}>
            <div class="step-head">
              <span class="step-dot" />
              <span class="step-name">{s.name}</span>
              <span class="step-type">{s.type}</span>
            </div>
            {mine.map((r) => (
              <RunRow r={r} now={now} key={r.id} />
            ))}
          </li>
        );
      })}
      {extra.map((r) => (
        <li class={`step ${r.state}`} key={r.id}>
          <div class="step-head">
            <span class="step-dot" />
            <span class="step-name">{r.step_id === '__repair' ? 'repair' : r.step_name}</span>
            <span class="step-type">{r.step_type}</span>
          </div>
          <RunRow r={r} now={now} />
        </li>
      ))}
    </ol>
  );
}

function RunRow({ r, now }: { r: StepRun; now: number }) {
  const why = r.failure_reason ?? r.skip_reason;
  return (
    <div class="run" title={r.result_summary ?? ''}>
      <span class={`run-state ${r.state}`}>{r.state}</span>
      <span>{runLabel(r)}</span>
      {r.agent && <span class="muted">{[r.agent, r.model].filter(Boolean).join(' ')}</span>}
      {r.cost_usd !== null && <span class="run-num">{money(r.cost_usd)}</span>}
      {(r.input_tokens ?? null) !== null && (
        <span class="run-num">
          {count(r.input_tokens)}/{count(r.output_tokens)}
        </span>
      )}
      <span class="run-num">{span(r.started_at, r.finished_at, now)}</span>
      {why && <span class="run-why">{why}</span>}
    </div>
  );
}

function Details({ task: t }: { task: TaskDetail }) {
  const fields = Object.entries(t.fields ?? {});
  return (
    <div class="details">
      {t.description ? (
        <p class="description">{t.description}</p>
      ) : (
        <p class="muted">No description.</p>
      )}
      {fields.length > 0 && (
        <table class="kv">
          <tbody>
            {fields.map(([k, v]) => (
              <tr key={k}>
                <th>{k}</th>
                <td>{v}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <table class="kv">
        <tbody>
          <tr>
            <th>branch</th>
            <td>{t.branch_name ?? '—'}</td>
          </tr>
          <tr>
            <th>base</th>
            <td>{t.base_branch ?? '—'}</td>
          </tr>
          <tr>
            <th>worktree</th>
            <td>{t.worktree_path ?? '—'}</td>
          </tr>
          <tr>
            <th>created</th>
            <td>{t.created_at}</td>
          </tr>
        </tbody>
      </table>
    </div>
  );
}
