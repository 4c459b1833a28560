/**
 * The terminal board (`svc tui`): the API's task list kept current by the global event stream,
 * a detail pane fed by the task's own stream, actions by key, the new-task form and the quota
 * badges. Everything it knows comes from the API (SPEC §1). The logic lives in plain modules
 * (state.ts reduces keys too, actions.ts, form.ts, …); this component performs the effects the
 * reducer queues and draws the state.
 */
import { Box, useApp, useInput, useStdout } from 'ink';
import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import { ApiError } from '../../client.js';
import type { Frame } from '../../sse.js';
import type { Call } from '../actions.js';
import { isMissingRoute, type TuiApi } from '../api.js';
import { loadGateStat, performDiff } from '../diff-effects.js';
import { liveLines, transcriptLines } from '../output.js';
import { type Effect, initialState, keymapOf, reduce } from '../state.js';
import { subscribe } from '../stream.js';
import { Board } from './Board.js';
import { Detail } from './Detail.js';
import { DiffView } from './DiffView.js';
import { Footer } from './Footer.js';
import { Form } from './Form.js';
import { Header } from './Header.js';
import { Help } from './Help.js';

export interface AppProps {
  api: TuiApi;
  /** How often durations are redrawn; 0 never (tests). */
  tickMs?: number;
  /** How often quota badges are read again besides `agent.quota_changed` (SPEC §2.4: 5 minutes). */
  agentsPollMs?: number;
  /** Debounce for reloading after a burst of events. */
  settleMs?: number;
  /** Debounce for the new-task form's `/v1/resolve` preview while typing. */
  previewMs?: number;
}

function errorText(err: unknown): string {
  if (err instanceof ApiError) {
    const reason = err.details?.reason ?? err.details?.state;
    return `${err.message}${reason !== undefined && !err.message.includes(String(reason)) ? ` (${String(reason)})` : ''}`;
  }
  return (err as Error)?.message ?? String(err);
}

function doneText(call: Call, r: Record<string, unknown>): string {
  if (call.op === 'chat')
    return `chat #${String(r.id)} opened on #${call.taskId}; the task takes no other action until it closes`;
  const parts = [`#${call.taskId} ${call.op.replace('_', '-')}: now ${String(r.state)}`];
  if (typeof r.readmitted === 'number') parts.push(`${r.readmitted} lanes re-admitted`);
  const branch = r.branch as { name?: string; result?: string } | undefined;
  if (branch?.name) parts.push(`branch ${branch.name} ${branch.result ?? ''}`.trim());
  const warnings = Array.isArray(r.warnings) ? (r.warnings as string[]) : [];
  if (warnings.length > 0) parts.push(`warnings: ${warnings.join('; ')}`);
  return parts.join(' · ');
}

export function App({
  api,
  tickMs = 1000,
  agentsPollMs = 300_000,
  settleMs = 100,
  previewMs = 300,
}: AppProps) {
  const { exit } = useApp();
  const { stdout } = useStdout();
  const [state, dispatch] = useReducer(reduce, undefined, () => initialState());
  const [now, setNow] = useState(() => Date.now());
  const performed = useRef(new Set<number>());
  const timers = useRef(new Map<string, ReturnType<typeof setTimeout>>());
  const reloadDetail = useRef<() => void>(() => {});

  const width = stdout.columns || 100;
  const height = stdout.rows || 30;
  const boardHeight = Math.max(3, height - 5);

  /** Runs `fn` once `ms` pass without another call for the same key. */
  const soon = useCallback(
    (key: string, fn: () => unknown, ms = settleMs) => {
      const t = timers.current.get(key);
      if (t) clearTimeout(t);
      timers.current.set(
        key,
        setTimeout(() => {
          timers.current.delete(key);
          void fn();
        }, ms),
      );
    },
    [settleMs],
  );
  useEffect(() => {
    const all = timers.current;
    return () => {
      for (const t of all.values()) clearTimeout(t);
    };
  }, []);

  const fail = useCallback(
    (err: unknown) => dispatch({ type: 'flash', flash: { text: errorText(err), tone: 'error' } }),
    [],
  );
  const loadTasks = useCallback(async () => {
    try {
      dispatch({ type: 'tasks', tasks: await api.tasks() });
    } catch (err) {
      fail(err);
    }
  }, [api, fail]);
  const loadSettings = useCallback(async () => {
    try {
      dispatch({ type: 'settings', settings: await api.settings() });
    } catch (err) {
      fail(err);
    }
  }, [api, fail]);
  const loadAgents = useCallback(async () => {
    try {
      dispatch({ type: 'agents', agents: await api.agents() });
    } catch {
      // The badge is a courtesy: a daemon that cannot say leaves it empty.
    }
  }, [api]);

  useEffect(() => {
    dispatch({ type: 'page', rows: boardHeight });
  }, [boardHeight]);

  useEffect(() => {
    if (tickMs <= 0) return;
    const t = setInterval(() => setNow(Date.now()), tickMs);
    return () => clearInterval(t);
  }, [tickMs]);

  useEffect(() => {
    if (agentsPollMs <= 0) return;
    const t = setInterval(() => void loadAgents(), agentsPollMs);
    return () => clearInterval(t);
  }, [agentsPollMs, loadAgents]);

  // The global stream keeps the list, the settings and the badges current. Everything is read
  // again on each (re)connection, once the daemon has subscribed us, so nothing falls in a gap.
  useEffect(() => {
    const sub = subscribe(api.client, '/v1/events', {
      onOpen: () => {
        void loadSettings();
        void loadTasks();
        void loadAgents();
      },
      onFrame: (f: Frame) => {
        const kind = f.event ?? '';
        if (/^(task|step|project)\./.test(kind)) soon('tasks', loadTasks);
        else if (kind === 'config.changed') soon('settings', loadSettings);
        else if (kind === 'agent.quota_changed') soon('agents', loadAgents);
      },
      onStatus: (status) => dispatch({ type: 'connection', status }),
    });
    return () => sub.close();
  }, [api, loadTasks, loadSettings, loadAgents, soon]);

  // The open task's stream: its live output, and its detail read again on each durable event.
  const openId = state.under === 'detail' ? state.selectedId : null;
  useEffect(() => {
    if (openId === null) return;
    let stopped = false;
    const readUpTo = new Map<number, number>();
    let held: Frame[] | null = [];
    const loadDetail = async () => {
      const d = await api.task(openId);
      if (!stopped) dispatch({ type: 'detail', detail: d });
      if (!stopped) void loadGateStat(api, d, dispatch);
      return d;
    };
    reloadDetail.current = () => soon('detail', () => loadDetail().catch(fail));
    const take = (f: Frame) => {
      const r = liveLines(f, readUpTo);
      if (r.lines.length > 0) dispatch({ type: 'output', taskId: openId, lines: r.lines });
      if (r.durable) reloadDetail.current();
    };
    const sub = subscribe(api.client, `/v1/tasks/${openId}/events`, {
      onOpen: () => {
        held = [];
        void (async () => {
          try {
            const d = await loadDetail();
            const last = d.steps?.filter((s) => s.has_transcript).at(-1);
            const tail = last ? await api.transcriptTail(openId, last.id) : null;
            if (stopped) return;
            if (last && tail) readUpTo.set(last.id, tail.nextOffset);
            dispatch({
              type: 'output',
              taskId: openId,
              lines: tail ? transcriptLines(tail.text, openId) : [],
              reset: true,
            });
          } catch (err) {
            fail(err);
          } finally {
            // Frames that arrived while the transcript was read, minus what it already held.
            const frames = held ?? [];
            held = null;
            for (const f of frames) take(f);
          }
        })();
      },
      onFrame: (f) => {
        if (held) held.push(f);
        else take(f);
      },
    });
    return () => {
      stopped = true;
      reloadDetail.current = () => {};
      sub.close();
    };
  }, [api, openId, soon, fail]);

  const runCall = useCallback(
    async (call: Call) => {
      try {
        const r = await api.act(call);
        dispatch({ type: 'flash', flash: { text: doneText(call, r), tone: 'info' } });
      } catch (err) {
        if (call.op === 'chat' && isMissingRoute(err))
          dispatch({
            type: 'flash',
            flash: {
              text: `this daemon does not serve task chats yet (POST /v1/tasks/${call.taskId}/chat)`,
              tone: 'error',
            },
          });
        else if (
          call.op === 'archive' &&
          err instanceof ApiError &&
          err.details?.reason === 'worktree_dirty' &&
          !call.body?.force
        )
          dispatch({
            type: 'prompt',
            prompt: {
              kind: 'confirm',
              question: `#${call.taskId} has uncommitted changes. Archive anyway, discarding them?`,
              call: { ...call, body: { force: true } },
            },
          });
        else fail(err);
      }
      void loadTasks();
      reloadDetail.current();
    },
    [api, fail, loadTasks],
  );

  const submitForm = useCallback(
    async (body: Record<string, unknown>) => {
      try {
        const t = await api.createTask(body);
        dispatch({ type: 'form_close' });
        dispatch({ type: 'tasks', tasks: await api.tasks() });
        dispatch({ type: 'select', id: t.id });
        const warnings = t.warnings?.length ? ` · warnings: ${t.warnings.join('; ')}` : '';
        dispatch({
          type: 'flash',
          flash: { text: `created #${t.id} (${t.state})${warnings}`, tone: 'info' },
        });
      } catch (err) {
        const field = err instanceof ApiError ? err.details?.field : undefined;
        dispatch({
          type: 'form_error',
          message: errorText(err),
          ...(typeof field === 'string' ? { field } : {}),
        });
      }
    },
    [api],
  );

  const perform = useCallback(
    async (e: Effect) => {
      switch (e.kind) {
        case 'quit':
          exit();
          return;
        case 'refresh':
          await Promise.all([loadSettings(), loadTasks(), loadAgents()]);
          reloadDetail.current();
          dispatch({ type: 'flash', flash: null });
          return;
        case 'new_task':
          try {
            const projects = await api.projects();
            if (projects.length === 0)
              dispatch({
                type: 'flash',
                flash: { text: 'no projects yet: svc project add <path>', tone: 'error' },
              });
            else dispatch({ type: 'form_open', projects });
          } catch (err) {
            fail(err);
          }
          return;
        case 'plan_with_detail':
          try {
            const detail = await api.task(e.task.id);
            dispatch({ type: 'planned', op: e.op, task: e.task, detail });
          } catch (err) {
            fail(err);
          }
          return;
        case 'call':
          await runCall(e.call);
          return;
        case 'form_workflows':
          try {
            const rows = await api.workflows(e.projectId);
            dispatch({ type: 'form_workflows', projectId: e.projectId, rows });
          } catch (err) {
            dispatch({ type: 'form_error', message: errorText(err) });
          }
          return;
        case 'form_definition':
          try {
            const def = e.workflow ? await api.definition(e.workflow, e.projectId) : null;
            dispatch({
              type: 'form_decls',
              projectId: e.projectId,
              workflow: e.workflow,
              decls: def?.definition?.fields ?? [],
            });
          } catch (err) {
            dispatch({ type: 'form_error', message: errorText(err) });
          }
          return;
        case 'form_preview':
          // Typing sends a change per key: ask once the typing pauses.
          soon(
            'preview',
            async () => {
              try {
                const r = await api.resolve(e.body);
                dispatch({ type: 'form_preview', preview: r ?? 'unavailable' });
              } catch (err) {
                dispatch({ type: 'form_preview', preview: null, error: errorText(err) });
              }
            },
            previewMs,
          );
          return;
        case 'form_submit':
          await submitForm(e.body);
          return;
        case 'diff_stat':
        case 'diff_file':
        case 'review_send':
          await performDiff(api, e, dispatch, () => {
            void loadTasks();
            reloadDetail.current();
          });
          return;
      }
    },
    [api, exit, fail, loadAgents, loadSettings, loadTasks, runCall, soon, submitForm, previewMs],
  );

  useEffect(() => {
    const todo = state.effects.filter((e) => !performed.current.has(e.id));
    if (todo.length === 0) return;
    for (const e of todo) performed.current.add(e.id);
    dispatch({ type: 'done', ids: todo.map((e) => e.id) });
    for (const e of todo) void perform(e);
  }, [state.effects, perform]);

  useInput((input, key) => dispatch({ type: 'key', key: { input, key } }));

  const keymap = keymapOf(state.settings);
  return (
    <Box flexDirection="column" width={width}>
      <Header state={state} now={now} />
      {state.view === 'help' ? (
        <Help keymap={keymap} />
      ) : state.view === 'diff' && state.diff ? (
        <DiffView state={state} width={width} />
      ) : state.view === 'form' && state.form ? (
        <Form form={state.form} height={height - 4} />
      ) : state.under === 'detail' ? (
        <Detail state={state} width={width} height={height - 4} now={now} />
      ) : (
        <Board state={state} width={width} height={boardHeight} now={now} />
      )}
      <Footer state={state} keymap={keymap} />
    </Box>
  );
}
