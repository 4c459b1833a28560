/**
 * Every action the task's state allows (`available_actions`), through the same routes the CLI
 * uses: approve, reject, skip, pause, resume, cancel (confirmed), retry with overrides, repair,
 * follow-up, archive (forced after a dirty-worktree refusal, confirmed), answer, and opening a
 * chat. Refusals show the API's message and change nothing.
 */
import { useState } from 'preact/hooks';
import type { PendingInput, TaskRow } from '../../shared/wire-types.js';
import { type Api, ApiError } from '../api.js';
import { go } from '../hooks.js';

type Form = 'retry' | 'repair' | 'follow_up' | 'cancel' | 'archive' | 'force_archive' | null;

const ORDER = [
  'approve',
  'reject',
  'answer',
  'retry',
  'repair',
  'skip',
  'resume',
  'pause',
  'follow_up',
  'archive',
  'cancel',
];
const LABEL: Record<string, string> = {
  approve: 'Approve',
  reject: 'Reject',
  retry: 'Retry…',
  repair: 'Repair…',
  skip: 'Skip step',
  pause: 'Pause',
  resume: 'Resume',
  cancel: 'Cancel…',
  archive: 'Archive…',
  follow_up: 'Follow up…',
};
const CHAT_STATES = new Set(['blocked', 'awaiting_gate', 'done', 'aborted']);

function describe(err: unknown): string {
  if (err instanceof ApiError) {
    const d = err.details;
    const extra = d.state
      ? ` (state: ${String(d.state)})`
      : d.reason
        ? ` (${String(d.reason)})`
        : '';
    return `${err.message}${extra}`;
  }
  return (err as Error).message;
}

export function ActionBar({
  api,
  task: t,
  onTask,
}: {
  api: Api;
  task: TaskRow;
  onTask(t: TaskRow): void;
}) {
  const [form, setForm] = useState<Form>(null);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ text: string; bad: boolean } | null>(null);
  const [text, setText] = useState<Record<string, string>>({});
  const set = (k: string) => (e: Event) =>
    setText({ ...text, [k]: (e.currentTarget as HTMLInputElement).value });

  const act = async (
    op: string,
    body?: Record<string, unknown>,
    query?: Record<string, string>,
  ) => {
    setBusy(true);
    setMessage(null);
    try {
      const r = await api.post<TaskRow & { warnings?: string[] }>(
        `/v1/tasks/${t.id}/${op}`,
        body ?? {},
        query,
      );
      onTask(r);
      setForm(null);
      setText({});
      const warn = r.warnings?.length ? ` — ${r.warnings.join('; ')}` : '';
      setMessage({ text: `${op.replace('_', '-')}: now ${r.state}${warn}`, bad: false });
    } catch (err) {
      if (op === 'archive' && err instanceof ApiError && err.details.reason === 'worktree_dirty')
        setForm('force_archive');
      setMessage({ text: describe(err), bad: true });
    } finally {
      setBusy(false);
    }
  };

  const openChat = async () => {
    setBusy(true);
    try {
      const c = await api.post<{ id: number }>(`/v1/tasks/${t.id}/chat`, {
        title: `Chat on #${t.id}`,
      });
      go(`#/chats/${c.id}`);
    } catch (err) {
      setMessage({ text: describe(err), bad: true });
    } finally {
      setBusy(false);
    }
  };

  const nonBlank = (keys: string[]) =>
    Object.fromEntries(keys.filter((k) => (text[k] ?? '').trim() !== '').map((k) => [k, text[k]]));
  const actions = ORDER.filter((a) => t.available_actions.includes(a) && a !== 'answer');
  const direct = new Set(['approve', 'reject', 'skip', 'pause', 'resume']);

  return (
    <div class="actions" data-testid="actions">
      <div class="action-buttons">
        {actions.map((a) => (
          <button
            type="button"
            key={a}
            disabled={busy}
            class={a === 'approve' ? 'primary' : a === 'reject' || a === 'cancel' ? 'danger' : ''}
            data-action={a}
            onClick={() => (direct.has(a) ? void act(a) : setForm(form === a ? null : (a as Form)))}
          >
            {LABEL[a] ?? a}
          </button>
        ))}
        {t.open_chat_id !== undefined ? (
          <a class="button" href={`#/chats/${t.open_chat_id}`}>
            Chat #{t.open_chat_id}
          </a>
        ) : (
          CHAT_STATES.has(t.state) &&
          t.worktree_path && (
            <button
              type="button"
              disabled={busy}
              data-action="chat"
              onClick={() => void openChat()}
            >
              Open chat
            </button>
          )
        )}
      </div>
      {form === 'cancel' && (
        <div class="inline-form confirm">
          <span>Cancel #{t.id}? Running work stops; the worktree stays.</span>
          <button
            type="button"
            class="danger"
            data-confirm="cancel"
            disabled={busy}
            onClick={() => void act('cancel')}
          >
            Yes, cancel it
          </button>
          <button type="button" onClick={() => setForm(null)}>
            Keep it
          </button>
        </div>
      )}
      {form === 'archive' && (
        <div class="inline-form confirm">
          <span>Archive #{t.id}? Its worktree is removed; the branch stays.</span>
          <button
            type="button"
            data-confirm="archive"
            disabled={busy}
            onClick={() => void act('archive')}
          >
            Archive
          </button>
          <button type="button" onClick={() => setForm(null)}>
            Keep it
          </button>
        </div>
      )}
      {form === 'force_archive' && (
        <div class="inline-form confirm">
          <span>The worktree has changes that are not committed. Archive anyway, losing them?</span>
          <button
            type="button"
            class="danger"
            disabled={busy}
            onClick={() => void act('archive', { force: true })}
          >
            Archive anyway
          </button>
          <button type="button" onClick={() => setForm(null)}>
            Keep it
          </button>
        </div>
      )}
      {form === 'retry' && (
        <form
          class="inline-form grid"
          onSubmit={(e) => {
            e.preventDefault();
            void act('retry', nonBlank(['prompt_override', 'run_override', 'branch_override']));
          }}
        >
          <label>
            Prompt override <span class="muted">(agent step)</span>
            <textarea
              rows={3}
              value={text.prompt_override ?? ''}
              onInput={set('prompt_override')}
              name="prompt_override"
            />
          </label>
          <label>
            Command override <span class="muted">(command step)</span>
            <input
              value={text.run_override ?? ''}
              onInput={set('run_override')}
              name="run_override"
            />
          </label>
          <label>
            New branch name <span class="muted">(optional)</span>
            <input
              value={text.branch_override ?? ''}
              onInput={set('branch_override')}
              name="branch_override"
            />
          </label>
          <div class="row">
            <button type="submit" class="primary" disabled={busy}>
              Retry
            </button>
            <button type="button" onClick={() => setForm(null)}>
              Close
            </button>
          </div>
        </form>
      )}
      {(form === 'repair' || form === 'follow_up') && (
        <form
          class="inline-form grid"
          onSubmit={(e) => {
            e.preventDefault();
            void act(form, {
              prompt: text.prompt ?? '',
              ...nonBlank(['agent', 'model', 'effort']),
            });
          }}
        >
          <label>
            {form === 'repair' ? 'What should the agent fix?' : 'What should happen next?'}
            <textarea
              rows={4}
              value={text.prompt ?? ''}
              onInput={set('prompt')}
              name="prompt"
              required
            />
          </label>
          <div class="row three">
            <label>
              Agent <input value={text.agent ?? ''} onInput={set('agent')} placeholder="default" />
            </label>
            <label>
              Model <input value={text.model ?? ''} onInput={set('model')} placeholder="default" />
            </label>
            <label>
              Effort{' '}
              <input value={text.effort ?? ''} onInput={set('effort')} placeholder="default" />
            </label>
          </div>
          <div class="row">
            <button type="submit" class="primary" disabled={busy}>
              {form === 'repair' ? 'Repair' : 'Follow up'}
            </button>
            <button type="button" onClick={() => setForm(null)}>
              Close
            </button>
          </div>
        </form>
      )}
      {message && (
        <p class={`action-message ${message.bad ? 'bad' : 'good'}`} data-testid="action-message">
          {message.text}
        </p>
      )}
    </div>
  );
}

/** An agent's pending question (options as buttons, several for a multi-select) or permission request. */
export function InputPanel({
  api,
  task: t,
  pending,
  onTask,
}: {
  api: Api;
  task: TaskRow;
  pending: PendingInput;
  onTask(t: TaskRow): void;
}) {
  const [answers, setAnswers] = useState<Record<string, string | string[]>>({});
  const [free, setFree] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const send = async (body: Record<string, unknown>) => {
    setBusy(true);
    setError(null);
    try {
      onTask(await api.post<TaskRow>(`/v1/tasks/${t.id}/answer`, body));
    } catch (err) {
      setError(describe(err));
    } finally {
      setBusy(false);
    }
  };
  if (pending.kind === 'permission' && pending.permission)
    return (
      <div class="input-panel" data-testid="input-panel">
        <h3>The agent asks to use {pending.permission.tool}</h3>
        <p>{pending.permission.summary}</p>
        <div class="row">
          <button
            type="button"
            class="primary"
            disabled={busy}
            onClick={() => void send({ allow: true })}
          >
            Allow
          </button>
          <button
            type="button"
            class="danger"
            disabled={busy}
            onClick={() => void send({ allow: false })}
          >
            Deny
          </button>
        </div>
        {error && <p class="action-message bad">{error}</p>}
      </div>
    );
  const questions = pending.questions ?? [];
  const complete = questions.every((q) => {
    const a = answers[q.text] ?? free[q.text];
    return Array.isArray(a) ? a.length > 0 : (a ?? '').trim() !== '';
  });
  return (
    <form
      class="input-panel"
      data-testid="input-panel"
      onSubmit={(e) => {
        e.preventDefault();
        const out: Record<string, string | string[]> = {};
        for (const q of questions) out[q.text] = answers[q.text] ?? free[q.text] ?? '';
        void send({ answers: out });
      }}
    >
      <h3>The agent asks</h3>
      {questions.map((q) => {
        const picked = answers[q.text];
        return (
          <fieldset class="question" key={q.text}>
            <legend>{q.header ? `${q.header}: ${q.text}` : q.text}</legend>
            {(q.options ?? []).length > 0 ? (
              <div class="options">
                {(q.options ?? []).map((o) => {
                  const on = Array.isArray(picked) ? picked.includes(o) : picked === o;
                  return (
                    <button
                      type="button"
                      key={o}
                      class={`option ${on ? 'on' : ''}`}
                      aria-pressed={on}
                      onClick={() => {
                        if (q.multi_select) {
                          const list = Array.isArray(picked) ? picked : [];
                          setAnswers({
                            ...answers,
                            [q.text]: on ? list.filter((x) => x !== o) : [...list, o],
                          });
                        } else setAnswers({ ...answers, [q.text]: o });
                      }}
                    >
                      {o}
                    </button>
                  );
                })}
              </div>
            ) : (
              <input
                value={free[q.text] ?? ''}
                onInput={(e) =>
                  setFree({ ...free, [q.text]: (e.currentTarget as HTMLInputElement).value })
                }
                placeholder="Your answer"
              />
            )}
          </fieldset>
        );
      })}
      <div class="row">
        <button
          type="submit"
          class="primary"
          disabled={busy || !complete}
          data-action="send-answer"
        >
          Send answer
        </button>
      </div>
      {error && <p class="action-message bad">{error}</p>}
    </form>
  );
}
