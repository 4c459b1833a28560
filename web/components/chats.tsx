/**
 * Chats (issue 23 point 6): the list, a new chat, and a chat's turns with the live reply
 * streamed, sending a message, answering the agent's question, and handing the chat off to a
 * task. None of this is an MCP tool (SPEC §4.5); the page uses the chat routes the CLI uses.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { Chat, ChatTurn, TaskRow } from '../../shared/wire-types.js';
import { ApiError } from '../api.js';
import { go, useLive } from '../hooks.js';
import { clock, money } from '../lib/format.js';
import type { Live } from '../live.js';

const message = (err: unknown) => (err instanceof ApiError ? err.message : (err as Error).message);

export function ChatsView({ live }: { live: Live }) {
  useLive(live);
  const api = live.api;
  const [chats, setChats] = useState<Chat[] | null>(null);
  const [title, setTitle] = useState('');
  const [project, setProject] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(() => {
    void api
      .get<Chat[]>('/v1/chats')
      .then(setChats)
      .catch((e) => setError(message(e)));
  }, [api]);
  useEffect(() => {
    load();
    return live.onEvent((e) => {
      if (e.kind.startsWith('chat.')) load();
    });
  }, [load, live]);
  const projectId = project ?? live.projects[0]?.id ?? null;
  return (
    <div class="chats">
      <h1>Chats</h1>
      <form
        class="inline-form row"
        onSubmit={(e) => {
          e.preventDefault();
          if (projectId === null) return;
          void api
            .post<Chat>('/v1/chats', { project_id: projectId, title })
            .then((c) => go(`#/chats/${c.id}`))
            .catch((err) => setError(message(err)));
        }}
      >
        <select
          value={projectId ?? ''}
          onChange={(e) => setProject(Number((e.currentTarget as HTMLSelectElement).value))}
        >
          {live.projects.map((p) => (
            <option value={p.id} key={p.id}>
              {p.name}
            </option>
          ))}
        </select>
        <input
          placeholder="What do you want to talk about?"
          value={title}
          onInput={(e) => setTitle((e.currentTarget as HTMLInputElement).value)}
        />
        <button type="submit" class="primary" disabled={!title.trim() || projectId === null}>
          New chat
        </button>
      </form>
      {error && <p class="action-message bad">{error}</p>}
      {chats && chats.length === 0 && <p class="muted">No open chats.</p>}
      <ul class="chat-list">
        {(chats ?? []).map((c) => (
          <li key={c.id}>
            <a href={`#/chats/${c.id}`}>
              <span class="card-id">#{c.id}</span> {c.title}
              <span class={`chip ${c.state}`}>{c.state}</span>
              <span class="muted">
                {c.agent}
                {c.linked_task_id ? ` · on task #${c.linked_task_id}` : ''} ·{' '}
                {clock(c.updated_at ?? c.created_at)}
              </span>
            </a>
          </li>
        ))}
      </ul>
    </div>
  );
}

export function ChatView({ live, id }: { live: Live; id: number }) {
  const api = live.api;
  const [chat, setChat] = useState<Chat | null>(null);
  const [turns, setTurns] = useState<ChatTurn[]>([]);
  const [liveText, setLiveText] = useState('');
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [handoff, setHandoff] = useState(false);
  const [taskTitle, setTaskTitle] = useState('');
  const [answer, setAnswer] = useState('');
  const end = useRef<HTMLDivElement>(null);

  const load = useCallback(async () => {
    try {
      const d = await api.get<{ chat: Chat; turns: ChatTurn[] }>(`/v1/chats/${id}`);
      setChat(d.chat);
      setTurns(d.turns);
      if (d.turns.at(-1)?.state !== 'running') setLiveText('');
    } catch (err) {
      setError(message(err));
    }
  }, [api, id]);

  useEffect(() => {
    const sub = api.follow(`/v1/chats/${id}/events`, {
      onOpen: () => void load(),
      onFrame: (f) => {
        if (f.id !== undefined) return void load();
        if (f.event === 'agent.output' && f.data) {
          try {
            const d = JSON.parse(f.data) as { text?: string };
            setLiveText((t) => t + (d.text ?? ''));
          } catch {}
        }
      },
    });
    return () => sub.close();
  }, [api, id, load]);

  useEffect(() => end.current?.scrollIntoView({ block: 'end' }), [turns, liveText]);

  const post = async (path: string, body: unknown) => {
    setError(null);
    try {
      return await api.post<Record<string, unknown>>(path, body);
    } catch (err) {
      setError(message(err));
      return null;
    }
  };

  if (!chat) return <div class="loading">{error ?? `Loading chat #${id}…`}</div>;
  const running = chat.state === 'running';
  const request = chat.pending_input?.request as
    | { questions?: Array<{ text: string; options?: string[] }> }
    | undefined;
  return (
    <div class="chat-page" data-testid="chat-page">
      <a class="back" href="#/chats">
        ← Chats
      </a>
      <div class="task-title-row">
        <h1>
          <span class="card-id">#{chat.id}</span> {chat.title}
        </h1>
        <span class={`chip big ${chat.state}`}>{chat.state}</span>
      </div>
      <div class="task-facts">
        <span>{chat.agent}</span>
        {chat.branch_name && <code>{chat.branch_name}</code>}
        {chat.linked_task_id && (
          <a href={`#/tasks/${chat.linked_task_id}`}>on task #{chat.linked_task_id}</a>
        )}
        {chat.handoff_task_id && (
          <a href={`#/tasks/${chat.handoff_task_id}`}>handed off to #{chat.handoff_task_id}</a>
        )}
      </div>
      <div class="turns">
        {turns.map((t) => (
          <div class="turn" key={t.seq}>
            <div class="bubble you">{t.message}</div>
            {t.result_text && <div class="bubble agent">{t.result_text}</div>}
            {t.state === 'running' && liveText && (
              <div class="bubble agent streaming">{liveText}</div>
            )}
            {t.failure_reason && (
              <div class="bubble bad">{t.failure_message ?? t.failure_reason}</div>
            )}
            <div class="turn-meta muted">
              {t.state} · {money(t.cost_usd)} · {clock(t.started_at)}
            </div>
          </div>
        ))}
        <div ref={end} />
      </div>
      {chat.state === 'awaiting_input' && (
        <div class="input-panel">
          <h3>
            The agent asks{chat.pending_input?.summary ? `: ${chat.pending_input.summary}` : ''}
          </h3>
          {request?.questions?.map((q) => (
            <div class="options" key={q.text}>
              {(q.options ?? []).map((o) => (
                <button
                  type="button"
                  class="option"
                  key={o}
                  onClick={() =>
                    void post(`/v1/chats/${id}/answer`, { answers: { [q.text]: o } }).then(load)
                  }
                >
                  {o}
                </button>
              ))}
            </div>
          ))}
          {chat.pending_input?.kind === 'permission' ? (
            <div class="row">
              <button
                type="button"
                class="primary"
                onClick={() => void post(`/v1/chats/${id}/answer`, { allow: true }).then(load)}
              >
                Allow
              </button>
              <button
                type="button"
                class="danger"
                onClick={() => void post(`/v1/chats/${id}/answer`, { allow: false }).then(load)}
              >
                Deny
              </button>
            </div>
          ) : (
            <form
              class="row"
              onSubmit={(e) => {
                e.preventDefault();
                const q = request?.questions?.[0]?.text;
                void post(
                  `/v1/chats/${id}/answer`,
                  q ? { answers: { [q]: answer } } : { answers: { answer } },
                ).then(load);
              }}
            >
              <input
                value={answer}
                onInput={(e) => setAnswer((e.currentTarget as HTMLInputElement).value)}
                placeholder="Your answer"
              />
              <button type="submit">Answer</button>
            </form>
          )}
        </div>
      )}
      <form
        class="composer"
        onSubmit={(e) => {
          e.preventDefault();
          void post(`/v1/chats/${id}/send`, { message: text }).then((r) => {
            if (r) setText('');
            void load();
          });
        }}
      >
        <textarea
          rows={3}
          value={text}
          placeholder={running ? 'The agent is answering…' : 'Message the agent (Ctrl+Enter sends)'}
          onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && (e.ctrlKey || e.metaKey))
              (e.currentTarget as HTMLTextAreaElement).form?.requestSubmit();
          }}
        />
        <div class="row">
          {running && (
            <button
              type="button"
              onClick={() => void post(`/v1/chats/${id}/cancel`, {}).then(load)}
            >
              Stop
            </button>
          )}
          {!chat.linked_task_id && !chat.handoff_task_id && (
            <button type="button" onClick={() => setHandoff(!handoff)}>
              Hand off to a task…
            </button>
          )}
          {chat.linked_task_id && (
            <button type="button" onClick={() => void post(`/v1/chats/${id}/close`, {}).then(load)}>
              Close chat
            </button>
          )}
          <span class="grow" />
          <button type="submit" class="primary" disabled={!text.trim() || running}>
            Send
          </button>
        </div>
      </form>
      {handoff && (
        <form
          class="inline-form row"
          onSubmit={(e) => {
            e.preventDefault();
            void post(`/v1/chats/${id}/handoff`, {
              project_id: chat.project_id,
              title: taskTitle,
            }).then((r) => {
              const task = r?.task as TaskRow | undefined;
              if (task) go(`#/tasks/${task.id}`);
            });
          }}
        >
          <input
            placeholder="Task title"
            value={taskTitle}
            onInput={(e) => setTaskTitle((e.currentTarget as HTMLInputElement).value)}
          />
          <button type="submit" class="primary" disabled={!taskTitle.trim()}>
            Create task from this chat
          </button>
        </form>
      )}
      {error && <p class="action-message bad">{error}</p>}
    </div>
  );
}
