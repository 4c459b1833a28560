/**
 * The board's diff view (issue 16 point 3, decision 174): a task's files with their +/- counts, the
 * hunks of the selected file, a marked line, comments typed on lines and sent back to the agent as
 * a review. Pure: keys and answers are reduced here into a new view and the work the App performs
 * (read the stat, read a file, send the review); the gate's approve and reject go through the
 * board's own action plans.
 */
import { type DiffLine, type DiffSection, parseUnifiedDiff } from '../../shared/unified-diff.js';
import type { DiffFile, DiffStat } from '../../shared/wire-types.js';
import type { Keymap, Keystroke } from './keys.js';
import { moveFor, tokenOf } from './keys.js';
import { editLine, emptyLine, type Line } from './line-edit.js';

export interface ReviewNote {
  path: string;
  line: number;
  side: 'new' | 'old';
  body: string;
}

/** One drawn row of a file: a hunk header, a line of it, or a note (binary, empty). */
export interface DiffRow {
  kind: 'hunk' | DiffLine['kind'] | 'info';
  text: string;
  old: number | null;
  new: number | null;
}

export type FileBody = { rows: DiffRow[] } | { error: string } | 'loading';

export interface DiffState {
  taskId: number;
  /** Where esc returns to. */
  from: 'board' | 'detail';
  stat: DiffStat | null;
  error: string | null;
  file: number;
  bodies: Record<string, FileBody>;
  /** The marked row of the selected file, and the first row drawn. */
  cursor: number;
  top: number;
  notes: ReviewNote[];
  /** A comment being typed on the marked line. */
  editing: Line | null;
  /** Asking before sending the notes, or before leaving with unsent ones. */
  confirm: 'send' | 'discard' | null;
}

/** Work for the App. */
export type DiffEffect =
  | { kind: 'diff_stat'; taskId: number }
  | { kind: 'diff_file'; taskId: number; path: string }
  | { kind: 'review_send'; taskId: number; body: { comments: ReviewNote[] } };

/** What a key or an answer did: the view (null: closed), work, a message, a gate action. */
export interface DiffStep {
  diff: DiffState | null;
  effects: DiffEffect[];
  flash?: { text: string; tone: 'info' | 'error' };
  action?: 'approve' | 'reject';
  quit?: boolean;
  help?: boolean;
}

export function openDiff(taskId: number, from: DiffState['from']): DiffStep {
  return {
    diff: {
      taskId,
      from,
      stat: null,
      error: null,
      file: 0,
      bodies: {},
      cursor: 0,
      top: 0,
      notes: [],
      editing: null,
      confirm: null,
    },
    effects: [{ kind: 'diff_stat', taskId }],
  };
}

/** The rows of one file's diff text, hunk headers included. */
export function rowsOf(text: string): DiffRow[] {
  const section: DiffSection | undefined = parseUnifiedDiff(text)[0];
  if (!section) return [{ kind: 'info', text: 'no changes in this file', old: null, new: null }];
  if (section.binary) return [{ kind: 'info', text: 'binary file', old: null, new: null }];
  const rows: DiffRow[] = [];
  for (const h of section.hunks) {
    rows.push({ kind: 'hunk', text: h.header, old: null, new: null });
    for (const l of h.lines) rows.push({ ...l, text: l.text.replace(/\r$/, '') });
  }
  if (rows.length === 0) {
    const what = section.oldPath ? `renamed from ${section.oldPath}` : 'mode or name only';
    rows.push({ kind: 'info', text: `no line changes (${what})`, old: null, new: null });
  }
  return rows;
}

export function selectedFile(d: DiffState): DiffFile | null {
  return d.stat?.files[d.file] ?? null;
}

export function bodyOf(d: DiffState): FileBody | null {
  const f = selectedFile(d);
  return f ? (d.bodies[f.path] ?? null) : null;
}

/** The line a comment on `row` is anchored to, or null for a header or a note. */
export function anchorOf(row: DiffRow | undefined): { line: number; side: 'new' | 'old' } | null {
  if (!row) return null;
  if (row.kind === 'del' && row.old !== null) return { line: row.old, side: 'old' };
  if ((row.kind === 'add' || row.kind === 'context') && row.new !== null)
    return { line: row.new, side: 'new' };
  return null;
}

export function noteAt(d: DiffState, path: string, row: DiffRow | undefined): ReviewNote | null {
  const a = anchorOf(row);
  if (!a) return null;
  return d.notes.find((n) => n.path === path && n.line === a.line && n.side === a.side) ?? null;
}

function rows(d: DiffState): DiffRow[] {
  const b = bodyOf(d);
  return b && typeof b === 'object' && 'rows' in b ? b.rows : [];
}

/** Keeps the marked row inside the `height` rows drawn. */
function scrolled(d: DiffState, height: number): DiffState {
  const top = Math.min(d.cursor, Math.max(d.top, d.cursor - height + 1));
  return { ...d, top: Math.max(0, top) };
}

/** Selects file `index`, asking for its text unless it is already here. */
function toFile(d: DiffState, index: number): DiffStep {
  const files = d.stat?.files ?? [];
  if (files.length === 0) return { diff: d, effects: [] };
  const file = Math.max(0, Math.min(files.length - 1, index));
  const next = { ...d, file, cursor: 0, top: 0 };
  const path = (files[file] as DiffFile).path;
  if (next.bodies[path]) return { diff: next, effects: [] };
  return {
    diff: { ...next, bodies: { ...next.bodies, [path]: 'loading' } },
    effects: [{ kind: 'diff_file', taskId: d.taskId, path }],
  };
}

/** The stat arrived: the first file is selected and read. */
export function withStat(d: DiffState, stat: DiffStat): DiffStep {
  return toFile({ ...d, stat, error: null }, 0);
}

export function withFile(d: DiffState, path: string, text: string): DiffState {
  return { ...d, bodies: { ...d.bodies, [path]: { rows: rowsOf(text) } } };
}

export function withError(d: DiffState, message: string, path?: string): DiffState {
  if (path) return { ...d, bodies: { ...d.bodies, [path]: { error: message } } };
  return { ...d, error: message };
}

function saveNote(d: DiffState, text: string): DiffStep {
  const f = selectedFile(d);
  const a = anchorOf(rows(d)[d.cursor]);
  if (!f || !a) return { diff: { ...d, editing: null }, effects: [] };
  const others = d.notes.filter(
    (n) => !(n.path === f.path && n.line === a.line && n.side === a.side),
  );
  const body = text.trim();
  const notes = body === '' ? others : [...others, { path: f.path, ...a, body }];
  return {
    diff: { ...d, notes, editing: null },
    effects: [],
    flash: {
      text:
        body === ''
          ? `comment on ${f.path}:${a.line} removed`
          : `${notes.length} comment${notes.length === 1 ? '' : 's'} to send`,
      tone: 'info',
    },
  };
}

function confirmKey(d: DiffState, k: Keystroke): DiffStep {
  const yes = k.input === 'y' || k.input === 'Y';
  const no = k.input === 'n' || k.input === 'N' || k.key.escape === true;
  if (!yes && !no) return { diff: d, effects: [] };
  if (no)
    return {
      diff: { ...d, confirm: null },
      effects: [],
      flash: { text: 'nothing done', tone: 'info' },
    };
  if (d.confirm === 'discard') return { diff: null, effects: [] };
  return {
    diff: { ...d, confirm: null },
    effects: [{ kind: 'review_send', taskId: d.taskId, body: { comments: d.notes } }],
    flash: { text: 'sending the review…', tone: 'info' },
  };
}

/** One key in the diff view; `height` is how many rows of the file are drawn. */
export function diffKey(d: DiffState, k: Keystroke, keymap: Keymap, height: number): DiffStep {
  const same: DiffStep = { diff: d, effects: [] };
  if (d.confirm) return confirmKey(d, k);
  if (d.editing) {
    const r = editLine(d.editing, k);
    if (r.kind === 'cancel') return { diff: { ...d, editing: null }, effects: [] };
    if (r.kind === 'submit') return saveNote(d, d.editing.value);
    return { diff: { ...d, editing: r.line }, effects: [] };
  }
  const token = tokenOf(k);
  if (token === null) return same;
  const by = moveFor(token, Math.max(1, height - 1));
  if (by !== null) {
    const last = Math.max(0, rows(d).length - 1);
    const cursor =
      by === 'first' ? 0 : by === 'last' ? last : Math.max(0, Math.min(last, d.cursor + by));
    return { diff: scrolled({ ...d, cursor }, height), effects: [] };
  }
  switch (keymap.opFor(token, 'diff')) {
    case 'next_file':
      return toFile(d, d.file + 1);
    case 'prev_file':
      return toFile(d, d.file - 1);
    case 'comment': {
      const f = selectedFile(d);
      const row = rows(d)[d.cursor];
      if (!f || !anchorOf(row))
        return { ...same, flash: { text: 'mark a line of the diff to comment on', tone: 'error' } };
      return {
        diff: { ...d, editing: emptyLine(noteAt(d, f.path, row)?.body ?? '') },
        effects: [],
      };
    }
    case 'send_review':
      if (d.notes.length === 0)
        return {
          ...same,
          flash: {
            text: `no comments yet: mark a line and press ${keymap.label('comment')}`,
            tone: 'error',
          },
        };
      return { diff: { ...d, confirm: 'send' }, effects: [] };
    case 'approve':
    case 'reject':
      return { diff: d, effects: [], action: keymap.opFor(token, 'diff') as 'approve' | 'reject' };
    case 'back':
      return d.notes.length > 0
        ? { diff: { ...d, confirm: 'discard' }, effects: [] }
        : { diff: null, effects: [] };
    case 'refresh':
      return {
        diff: { ...d, bodies: {}, stat: null, error: null },
        effects: [{ kind: 'diff_stat', taskId: d.taskId }],
      };
    case 'help':
      return { ...same, help: true };
    case 'quit':
      return { ...same, quit: true };
    default:
      return same;
  }
}

/** The question the view asks before it sends or drops the notes. */
export function confirmQuestion(d: DiffState, state: string | undefined): string {
  const n = d.notes.length;
  const what = `${n} comment${n === 1 ? '' : 's'}`;
  if (d.confirm === 'discard') return `Leave the diff and drop ${what} not sent?`;
  const how =
    state === 'awaiting_gate'
      ? 'rejecting the gate, then repairing with them'
      : state === 'blocked'
        ? 'as a repair'
        : 'as a follow-up';
  return `Send ${what} to #${d.taskId}'s agent ${how}?`;
}

/** Rows of a file the diff view draws below its title line, for a board of `page` rows. */
export function diffPaneHeight(page: number): number {
  return Math.max(3, page - 1);
}
