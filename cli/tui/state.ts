/**
 * The board's state and its reducer. Keystrokes are reduced here too, purely: a terminal delivers
 * a paste or `text⏎` as several keys before React draws again, so key handling must see the state
 * each previous key produced, not the last drawn one. Whatever needs the daemon is queued as an
 * effect that the App performs and then acknowledges (decision 141).
 */
import type {
  DiffStat,
  FieldDecl,
  Project,
  TaskDetail,
  TaskRow,
  WorkflowRow,
} from '../../shared/wire-types.js';
import {
  type Call,
  isTaskOp,
  type Plan,
  type Prompt,
  planAction,
  submitAnswer,
  submitText,
  type TaskOp,
} from './actions.js';
import type { AgentsView } from './api.js';
import {
  type DiffEffect,
  type DiffState,
  type DiffStep,
  diffKey,
  diffPaneHeight,
  openDiff,
  withError,
  withFile,
  withStat,
} from './diff.js';
import {
  type FormState,
  formKey,
  initialForm,
  selectedProject,
  taskBody,
  validate,
  withDecls,
  withWorkflows,
} from './form.js';
import { boardLines, selectableIds } from './grouping.js';
import { buildKeymap, type Keymap, type Keystroke, moveFor, tokenOf } from './keys.js';
import { editLine, emptyLine, type Line } from './line-edit.js';
import type { TuiSettings } from './model.js';
import { appendOutput } from './output.js';
import type { StreamStatus } from './stream.js';

export type View = 'board' | 'detail' | 'form' | 'help' | 'diff';

export interface Flash {
  text: string;
  tone: 'info' | 'error';
}

/** Work for the App: each is performed once, then acknowledged by id. */
export type Effect =
  | { kind: 'quit' }
  | { kind: 'refresh' }
  | { kind: 'new_task' }
  /** Plan `op` again once the task's detail is read (the plan depends on it). */
  | { kind: 'plan_with_detail'; op: TaskOp; task: TaskRow }
  | { kind: 'call'; call: Call }
  /** The form's project, workflow or values changed: read what depends on them. */
  | { kind: 'form_workflows'; projectId: number }
  | { kind: 'form_definition'; projectId: number; workflow: string }
  | { kind: 'form_preview'; body: Record<string, unknown> }
  | { kind: 'form_submit'; body: Record<string, unknown> }
  | DiffEffect;

export interface TuiState {
  settings: TuiSettings;
  /** The settings came from the daemon (keys are not read before, lest a rebind be missed). */
  ready: boolean;
  tasks: TaskRow[];
  loaded: boolean;
  agents: AgentsView | null;
  selectedId: number | null;
  view: View;
  /** The view help was opened over, to return to. */
  under: Exclude<View, 'help'>;
  detail: TaskDetail | null;
  output: string[];
  prompt: Prompt | null;
  form: FormState | null;
  flash: Flash | null;
  connection: StreamStatus;
  effects: Array<Effect & { id: number }>;
  nextEffect: number;
  /** Rows a page key moves by (the board's visible height). */
  page: number;
  /** The board shows only tasks whose title, project, workflow or state hold this text. */
  filter: string;
  /** The filter line being typed, while it is. */
  filtering: Line | null;
  /** The diff view (cli/tui/diff.ts), while it is open. */
  diff: DiffState | null;
  /** The stat of the task open in the detail pane while it waits at a gate. */
  gateStat: { taskId: number; stat: DiffStat } | null;
}

const DEFAULT_SETTINGS: TuiSettings = {
  group_by: ['project', 'workflow'],
  hyperlinks: false,
  keys: {},
};

export const initialState = (settings: TuiSettings = DEFAULT_SETTINGS): TuiState => ({
  settings,
  ready: false,
  tasks: [],
  loaded: false,
  agents: null,
  selectedId: null,
  view: 'board',
  under: 'board',
  detail: null,
  output: [],
  prompt: null,
  form: null,
  flash: null,
  connection: 'connecting',
  effects: [],
  nextEffect: 1,
  page: 10,
  filter: '',
  filtering: null,
  diff: null,
  gateStat: null,
});

export type Msg =
  | { type: 'settings'; settings: TuiSettings }
  | { type: 'tasks'; tasks: TaskRow[] }
  | { type: 'agents'; agents: AgentsView }
  | { type: 'connection'; status: StreamStatus }
  | { type: 'key'; key: Keystroke }
  | { type: 'select'; id: number }
  | { type: 'detail'; detail: TaskDetail }
  | { type: 'output'; taskId: number; lines: string[]; reset?: boolean }
  | { type: 'planned'; op: TaskOp; task: TaskRow; detail: TaskDetail }
  | { type: 'prompt'; prompt: Prompt | null }
  | { type: 'form_open'; projects: Project[] }
  | { type: 'form_close' }
  | { type: 'form_workflows'; projectId: number; rows: WorkflowRow[] }
  | { type: 'form_decls'; projectId: number; workflow: string; decls: FieldDecl[] }
  | { type: 'form_preview'; preview: FormState['preview']; error?: string }
  | { type: 'form_error'; message: string; field?: string }
  | { type: 'flash'; flash: Flash | null }
  | { type: 'page'; rows: number }
  | { type: 'done'; ids: number[] }
  | { type: 'diff_stat'; taskId: number; stat: DiffStat }
  | { type: 'diff_file'; taskId: number; path: string; text: string }
  | { type: 'diff_error'; taskId: number; message: string; path?: string }
  | { type: 'review_sent'; taskId: number; text: string }
  | { type: 'gate_stat'; taskId: number; stat: DiffStat | null };

const keymaps = new WeakMap<object, Keymap>();

/** The bindings in force (cached per settings object). */
export function keymapOf(settings: TuiSettings): Keymap {
  let k = keymaps.get(settings.keys);
  if (!k) {
    k = buildKeymap(settings.keys);
    keymaps.set(settings.keys, k);
  }
  return k;
}

/** The states a task waits on the user in (the header counts them; the board opens on one). */
export const WAITING_STATES = new Set(['blocked', 'awaiting_gate', 'awaiting_input', 'paused']);

/** Whether `t` matches the board filter: text in its title, project, workflow, state or id. */
export function matchesFilter(t: TaskRow, filter: string): boolean {
  const f = filter.trim().toLowerCase();
  if (f === '') return true;
  const hay = [
    t.title,
    t.project_name ?? '',
    t.workflow,
    t.state,
    t.block_reason ?? '',
    t.lane_id ?? '',
    `#${t.id}`,
  ]
    .join(' ')
    .toLowerCase();
  return f.split(/\s+/).every((word) => hay.includes(word));
}

/** The tasks the board shows: all of them, or those the filter matches (issue 19 point 13). */
export function visibleTasks(s: Pick<TuiState, 'tasks' | 'filter'>): TaskRow[] {
  return s.filter.trim() === '' ? s.tasks : s.tasks.filter((t) => matchesFilter(t, s.filter));
}

function orderedIds(s: Pick<TuiState, 'tasks' | 'settings' | 'filter'>): number[] {
  return selectableIds(boardLines(visibleTasks(s), s.settings.group_by));
}

/** On first load: the first task in board order that waits on the user, else the first. */
function firstWaiting(s: Pick<TuiState, 'tasks' | 'settings' | 'filter'>): number | null {
  const ids = orderedIds(s);
  const waiting = new Set(s.tasks.filter((t) => WAITING_STATES.has(t.state)).map((t) => t.id));
  return ids.find((id) => waiting.has(id)) ?? ids[0] ?? null;
}

/** The task keys act on: the open one in the detail pane, else the board's selection. */
export function selectedTask(s: TuiState): TaskRow | null {
  const row = s.tasks.find((t) => t.id === s.selectedId) ?? null;
  if (s.under === 'detail' && s.detail && s.detail.id === s.selectedId)
    // The detail has steps and pending input; the list row has the rollups. Fresh list fields win.
    return row ? { ...s.detail, ...row } : s.detail;
  return row;
}

function emit(s: TuiState, ...effects: Effect[]): TuiState {
  let id = s.nextEffect;
  return {
    ...s,
    effects: [...s.effects, ...effects.map((e) => ({ ...e, id: id++ }))],
    nextEffect: id,
  };
}

const flash = (s: TuiState, text: string, tone: Flash['tone'] = 'info'): TuiState => ({
  ...s,
  flash: { text, tone },
});

/** Keeps the selection on the same task; when it left the list, on its neighbour in the old order. */
function reselect(prev: TuiState, tasks: TaskRow[]): number | null {
  if (!prev.loaded) return firstWaiting({ ...prev, tasks });
  const next = orderedIds({ tasks, settings: prev.settings, filter: prev.filter });
  if (prev.under === 'detail' && prev.selectedId !== null) return prev.selectedId;
  if (next.length === 0) return null;
  if (prev.selectedId !== null && next.includes(prev.selectedId)) return prev.selectedId;
  const old = orderedIds(prev);
  const at = prev.selectedId === null ? 0 : Math.max(0, old.indexOf(prev.selectedId));
  for (let i = at; i < old.length; i++) {
    const id = old[i];
    if (id !== undefined && next.includes(id)) return id;
  }
  return next[Math.min(at, next.length - 1)] ?? null;
}

function move(s: TuiState, by: number | 'first' | 'last'): TuiState {
  const ids = orderedIds(s);
  if (ids.length === 0) return s;
  const at = s.selectedId === null ? -1 : ids.indexOf(s.selectedId);
  const to =
    by === 'first'
      ? 0
      : by === 'last'
        ? ids.length - 1
        : Math.max(0, Math.min(ids.length - 1, Math.max(at, 0) + by));
  return { ...s, selectedId: ids[to] ?? s.selectedId, flash: null };
}

function applyPlan(s: TuiState, op: TaskOp, task: TaskRow, plan: Plan): TuiState {
  switch (plan.kind) {
    case 'unavailable':
      return flash(s, plan.message, 'error');
    case 'prompt':
      return { ...s, prompt: plan.prompt, flash: null };
    case 'call':
      return emit({ ...s, flash: null }, { kind: 'call', call: plan.call });
    case 'needs_detail':
      return emit(s, { kind: 'plan_with_detail', op, task });
  }
}

function promptKey(s: TuiState, p: Prompt, k: Keystroke): TuiState {
  if (p.kind === 'confirm') {
    if (k.input === 'y' || k.input === 'Y')
      return emit({ ...s, prompt: null }, { kind: 'call', call: p.call });
    if (k.input === 'n' || k.input === 'N' || k.key.escape)
      return { ...s, prompt: null, flash: { text: 'nothing done', tone: 'info' } };
    return s;
  }
  if (p.kind === 'text' && k.key.tab)
    return { ...s, prompt: { ...p, mode: (p.mode + 1) % p.modes.length } };
  const r = editLine(p.line, k);
  if (r.kind === 'cancel') return { ...s, prompt: null, flash: null };
  if (r.kind === 'edit') return { ...s, prompt: { ...p, line: r.line } };
  if (p.kind === 'text') {
    const c = submitText(p);
    if ('error' in c) return flash(s, c.error, 'error');
    return emit({ ...s, prompt: null, flash: null }, { kind: 'call', call: c });
  }
  const a = submitAnswer(p);
  if ('error' in a) return flash(s, a.error, 'error');
  if ('next' in a) return { ...s, prompt: a.next, flash: null };
  return emit({ ...s, prompt: null, flash: null }, { kind: 'call', call: a.call });
}

/** The effect that reads what a form change makes stale. */
function formFollowUp(f: FormState, changed: string): Effect | null {
  const project = selectedProject(f);
  if (!project) return null;
  if (changed === 'project') return { kind: 'form_workflows', projectId: project.id };
  if (changed === 'workflow')
    return { kind: 'form_definition', projectId: project.id, workflow: f.values.workflow ?? '' };
  return { kind: 'form_preview', body: taskBody(f) };
}

function formKeyState(s: TuiState, f: FormState, k: Keystroke): TuiState {
  const ev = formKey(f, k);
  if (ev.kind === 'cancel') return { ...s, form: null, view: 'board', under: 'board' };
  if (ev.kind === 'submit') {
    const errors = validate(f);
    if (Object.keys(errors).length > 0)
      return { ...s, form: { ...f, errors, message: 'fix the marked rows first' } };
    return emit(
      { ...s, form: { ...f, errors: {}, message: 'creating…' } },
      { kind: 'form_submit', body: taskBody(f) },
    );
  }
  const next: TuiState = { ...s, form: ev.state };
  const follow = ev.changed ? formFollowUp(ev.state, ev.changed) : null;
  return follow ? emit(next, follow) : next;
}

/** Maps a refused create's `details.field` (`title`, `fields.ticket`) to the form row it names. */
function rowForField(f: FormState, field: string): string {
  const name = field.replace(/^fields\./, '');
  return f.decls.some((d) => d.name === name) && field !== 'title' && field !== 'description'
    ? `field:${name}`
    : field;
}

function formMsg(s: TuiState, m: Msg): TuiState {
  const f = s.form;
  if (m.type === 'form_open') {
    const form = initialForm(m.projects, selectedTask(s)?.project_id);
    const opened: TuiState = { ...s, form, view: 'form', under: 'form', flash: null };
    const project = selectedProject(form);
    return project ? emit(opened, { kind: 'form_workflows', projectId: project.id }) : opened;
  }
  if (m.type === 'form_close') return { ...s, form: null, view: 'board', under: 'board' };
  if (!f) return s;
  // Answers for a project or workflow the user has moved away from are dropped.
  switch (m.type) {
    case 'form_workflows': {
      if (selectedProject(f)?.id !== m.projectId) return s;
      const form = withWorkflows(f, m.rows);
      return emit(
        { ...s, form },
        { kind: 'form_definition', projectId: m.projectId, workflow: form.values.workflow ?? '' },
      );
    }
    case 'form_decls': {
      if (selectedProject(f)?.id !== m.projectId || f.values.workflow !== m.workflow) return s;
      const form = withDecls(f, m.decls);
      return emit({ ...s, form }, { kind: 'form_preview', body: taskBody(form) });
    }
    case 'form_preview':
      return { ...s, form: { ...f, preview: m.preview, previewError: m.error ?? null } };
    case 'form_error':
      return {
        ...s,
        form: {
          ...f,
          message: m.message,
          errors: m.field ? { ...f.errors, [rowForField(f, m.field)]: m.message } : f.errors,
        },
      };
    default:
      return s;
  }
}

function boardKey(s: TuiState, k: Keystroke): TuiState {
  const token = tokenOf(k);
  if (token === null) return s;
  const keymap = keymapOf(s.settings);
  const op = keymap.opFor(token);
  if (s.view === 'help') return op === 'quit' ? emit(s, { kind: 'quit' }) : { ...s, view: s.under };
  if (s.view === 'board') {
    const by = moveFor(token, s.page);
    if (by !== null) return move(s, by);
  }
  switch (op) {
    case undefined:
      return s;
    case 'quit':
      return emit(s, { kind: 'quit' });
    case 'help':
      return { ...s, view: 'help', under: s.view as Exclude<View, 'help'> };
    case 'back':
      if (s.view === 'board' && s.filter !== '') return refilter(s, '');
      return s.view === 'detail'
        ? { ...s, view: 'board', under: 'board', detail: null, output: [], flash: null }
        : s;
    case 'filter':
      return s.view === 'board' ? { ...s, filtering: emptyLine(s.filter), flash: null } : s;
    case 'open':
      return s.view === 'board' && s.selectedId !== null
        ? { ...s, view: 'detail', under: 'detail', detail: null, output: [], flash: null }
        : s;
    case 'refresh':
      return emit(flash(s, 'refreshing…'), { kind: 'refresh' });
    case 'new_task':
      return emit(s, { kind: 'new_task' });
    case 'diff': {
      const task = selectedTask(s);
      if (!task) return flash(s, 'no task selected', 'error');
      const from = s.view === 'detail' ? 'detail' : 'board';
      return applyDiffStep({ ...s, view: 'diff', flash: null }, openDiff(task.id, from));
    }
    default: {
      if (!isTaskOp(op)) return s;
      const task = selectedTask(s);
      if (!task) return flash(s, 'no task selected', 'error');
      const detail = s.detail?.id === task.id ? s.detail : null;
      return applyPlan(s, op, task, planAction(op, task, detail));
    }
  }
}

const plain = (k: Keystroke) => !Object.values(k.key).some(Boolean);

/** A control character inside a chunk as the key Ink would have reported on its own. */
function controlKey(c: string): Keystroke | null {
  const code = c.charCodeAt(0);
  if (c === '\r' || c === '\n') return { input: '', key: { return: true } };
  if (c === '\t') return { input: '', key: { tab: true } };
  if (code === 0x7f || code === 0x08) return { input: '', key: { delete: true } };
  if (code >= 1 && code <= 26)
    return { input: String.fromCharCode(code + 96), key: { ctrl: true } };
  return null;
}

/**
 * A terminal may deliver several keys as one chunk (a paste, `text⏎` sent quickly, fast typing);
 * Ink splits escape sequences but hands the rest over whole. Control characters inside a chunk
 * become their keys; outside a text line every character is its own key.
 */
export function splitChunk(k: Keystroke, editing: boolean): Keystroke[] {
  if (!plain(k) || [...k.input].length <= 1) return [k];
  const out: Keystroke[] = [];
  let text = '';
  const flush = () => {
    if (text === '') return;
    if (editing) out.push({ input: text, key: {} });
    else for (const c of text) out.push({ input: c, key: {} });
    text = '';
  };
  for (const c of k.input.replace(/\r\n/g, '\n')) {
    const ctl = controlKey(c);
    if (ctl) {
      flush();
      out.push(ctl);
    } else text += c;
  }
  flush();
  return out.length === 1 && out[0]?.input === k.input && plain(out[0]) ? [k] : out;
}

const editingText = (s: TuiState) =>
  (s.prompt !== null && s.prompt.kind !== 'confirm') ||
  (s.view === 'form' && s.form !== null) ||
  (s.view === 'diff' && s.diff?.editing != null) ||
  s.filtering !== null;

/** The filter changed: the selection stays if it still shows, else moves to the first shown. */
function refilter(s: TuiState, filter: string): TuiState {
  const next = { ...s, filter };
  const ids = orderedIds(next);
  const selectedId =
    s.selectedId !== null && ids.includes(s.selectedId) ? s.selectedId : (ids[0] ?? null);
  return { ...next, selectedId };
}

/** Typing the filter: it applies as it is typed; enter keeps it, escape drops it. */
function filterKey(s: TuiState, line: Line, k: Keystroke): TuiState {
  const r = editLine(line, k);
  if (r.kind === 'submit') return { ...s, filtering: null };
  if (r.kind === 'cancel') return { ...refilter(s, ''), filtering: null };
  return { ...refilter(s, r.line.value), filtering: r.line };
}

function onKey(s: TuiState, k: Keystroke): TuiState {
  const keys = splitChunk(k, editingText(s));
  if (keys.length !== 1 || keys[0] !== k) return keys.reduce(onKey, s);
  if (tokenOf(k) === 'ctrl+c') return emit(s, { kind: 'quit' });
  if (!s.ready) return s;
  if (s.prompt) return promptKey(s, s.prompt, k);
  if (s.filtering) return filterKey(s, s.filtering, k);
  if (s.view === 'form' && s.form) return formKeyState(s, s.form, k);
  if (s.view === 'diff' && s.diff)
    return applyDiffStep(s, diffKey(s.diff, k, keymapOf(s.settings), diffPaneHeight(s.page)));
  return boardKey(s, k);
}

export function reduce(s: TuiState, m: Msg): TuiState {
  switch (m.type) {
    case 'settings':
      return { ...s, settings: m.settings, ready: true };
    case 'tasks':
      return { ...s, tasks: m.tasks, loaded: true, selectedId: reselect(s, m.tasks) };
    case 'agents':
      return { ...s, agents: m.agents };
    case 'connection':
      return { ...s, connection: m.status };
    case 'key':
      return onKey(s, m.key);
    case 'select':
      return { ...s, selectedId: m.id };
    case 'detail':
      // A late answer for a task the user already left is dropped.
      if (s.under !== 'detail' || m.detail.id !== s.selectedId) return s;
      return { ...s, detail: m.detail };
    case 'output':
      if (s.under !== 'detail' || m.taskId !== s.selectedId) return s;
      return { ...s, output: m.reset ? m.lines : appendOutput(s.output, m.lines) };
    case 'planned':
      return applyPlan(s, m.op, m.task, planAction(m.op, m.task, m.detail));
    case 'prompt':
      return { ...s, prompt: m.prompt };
    case 'form_open':
    case 'form_close':
    case 'form_workflows':
    case 'form_decls':
    case 'form_preview':
    case 'form_error':
      return formMsg(s, m);
    case 'flash':
      return { ...s, flash: m.flash };
    case 'page':
      return { ...s, page: Math.max(1, m.rows) };
    case 'done':
      return { ...s, effects: s.effects.filter((e) => !m.ids.includes(e.id)) };
    case 'diff_stat':
    case 'diff_file':
    case 'diff_error':
    case 'review_sent':
    case 'gate_stat':
      return diffMsg(s, m);
  }
}

/** Applies what a key or an answer did in the diff view to the board's state. */
function applyDiffStep(s: TuiState, step: DiffStep): TuiState {
  const from = s.diff?.from ?? 'board';
  let next: TuiState = step.diff
    ? { ...s, diff: step.diff }
    : { ...s, diff: null, view: from, under: from };
  if (step.flash) next = { ...next, flash: step.flash };
  if (step.effects.length > 0) next = emit(next, ...step.effects);
  if (step.quit) return emit(next, { kind: 'quit' });
  if (step.help) return { ...next, view: 'help', under: 'diff' };
  if (step.action && s.diff) {
    // The gate's own actions, planned as on the board; a call leaves the view for the task.
    const id = s.diff.taskId;
    const detail = s.detail?.id === id ? s.detail : null;
    const task = s.tasks.find((t) => t.id === id) ?? detail;
    if (!task) return flash(next, `#${id} is no longer listed`, 'error');
    const plan = planAction(step.action, task, detail);
    const left: TuiState = { ...next, diff: null, view: from, under: from };
    return applyPlan(plan.kind === 'call' ? left : next, step.action, task, plan);
  }
  return next;
}

function diffMsg(
  s: TuiState,
  m: Extract<Msg, { type: 'diff_stat' | 'diff_file' | 'diff_error' | 'review_sent' | 'gate_stat' }>,
): TuiState {
  if (m.type === 'gate_stat')
    return { ...s, gateStat: m.stat ? { taskId: m.taskId, stat: m.stat } : null };
  // A late answer for a diff the user already left is dropped.
  const d = s.diff;
  if (!d || d.taskId !== m.taskId) return s;
  switch (m.type) {
    case 'diff_stat':
      return applyDiffStep(s, withStat(d, m.stat));
    case 'diff_file':
      return { ...s, diff: withFile(d, m.path, m.text) };
    case 'diff_error':
      return { ...s, diff: withError(d, m.message, m.path) };
    case 'review_sent':
      return {
        ...s,
        diff: null,
        view: d.from,
        under: d.from,
        flash: { text: m.text, tone: 'info' },
      };
  }
}
