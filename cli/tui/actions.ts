/**
 * Task actions by key (SPEC §3.2, §4.4): whether an operation applies to a task right now, and
 * what it takes — a plain call, a confirmation, a line of text (retry override, repair prompt,
 * follow-up), or an answer to the agent's questions. Pure: the board executes the calls.
 */
import { TASK_OPERATIONS } from '../../shared/tui-keys.js';
import type { PendingInput, TaskDetail, TaskRow } from '../../shared/wire-types.js';
import { emptyLine, type Line } from './line-edit.js';

/** One request to make: POST `path` with `body`. */
export interface Call {
  taskId: number;
  op: TaskOp;
  path: string;
  body?: Record<string, unknown>;
}

export type TaskOp = (typeof TASK_OPERATIONS)[number];

export function isTaskOp(op: string): op is TaskOp {
  return (TASK_OPERATIONS as readonly string[]).includes(op);
}

export interface TextMode {
  /** The body field the text goes into. */
  field: string;
  label: string;
  required: boolean;
}

export type Prompt =
  | { kind: 'confirm'; question: string; call: Call }
  | { kind: 'text'; taskId: number; op: TaskOp; modes: TextMode[]; mode: number; line: Line }
  | {
      kind: 'answer';
      taskId: number;
      pending: PendingInput;
      index: number;
      answers: Record<string, string | string[]>;
      line: Line;
    };

export type Plan =
  | { kind: 'call'; call: Call }
  | { kind: 'prompt'; prompt: Prompt }
  | { kind: 'unavailable'; message: string }
  /** The plan depends on the task's detail (the blocked step's type); fetch it and plan again. */
  | { kind: 'needs_detail' };

const CHAT_STATES = new Set(['blocked', 'awaiting_gate', 'done', 'aborted']);

const call = (t: TaskRow, op: TaskOp, path: string, body?: Record<string, unknown>): Call => ({
  taskId: t.id,
  op,
  path: `/v1/tasks/${t.id}/${path}`,
  ...(body ? { body } : {}),
});

function unavailable(op: TaskOp, t: TaskRow): Plan {
  const why =
    t.open_chat_id !== undefined && op !== 'cancel'
      ? `chat #${t.open_chat_id} is open on it`
      : `it is ${t.state}`;
  return {
    kind: 'unavailable',
    message: `${op.replace('_', '-')} does not apply to #${t.id}: ${why}`,
  };
}

/** Retry's text modes: override what the blocked step runs, and rename the branch (SPEC §4.4). */
export function retryModes(t: TaskRow, detail: TaskDetail): TextMode[] {
  const step = detail.workflow_steps?.find((s) => s.index === t.current_step);
  const inFollowUp = t.current_step >= t.step_total;
  const modes: TextMode[] = [];
  if (!inFollowUp && step?.type === 'agent')
    modes.push({ field: 'prompt_override', label: 'prompt override', required: false });
  if (!inFollowUp && step?.type === 'command')
    modes.push({ field: 'run_override', label: 'command override', required: false });
  const branch: TextMode = { field: 'branch_override', label: 'new branch name', required: false };
  if (t.block_reason === 'branch_exists') modes.unshift(branch);
  else modes.push(branch);
  return modes;
}

/** A line of text to take for `op`, starting in its first mode with an empty line. */
function textPrompt(t: TaskRow, op: TaskOp, modes: TextMode[]): Plan {
  return {
    kind: 'prompt',
    prompt: { kind: 'text', taskId: t.id, op, modes, mode: 0, line: emptyLine() },
  };
}

export function planAction(op: TaskOp, t: TaskRow, detail: TaskDetail | null = null): Plan {
  if (op === 'chat') {
    if (t.open_chat_id !== undefined)
      return {
        kind: 'unavailable',
        message: `chat #${t.open_chat_id} is already open on #${t.id}`,
      };
    if (!CHAT_STATES.has(t.state)) return unavailable(op, t);
    if (!t.worktree_path)
      return { kind: 'unavailable', message: `#${t.id} has no worktree to chat in` };
    return { kind: 'call', call: call(t, 'chat', 'chat', {}) };
  }
  if (!t.available_actions.includes(op)) return unavailable(op, t);
  switch (op) {
    case 'cancel':
      return {
        kind: 'prompt',
        prompt: {
          kind: 'confirm',
          question: `Cancel #${t.id} ${t.title}?${t.state === 'awaiting_children' ? ' Its unfinished lanes are cancelled too.' : ''}`,
          call: call(t, 'cancel', 'cancel'),
        },
      };
    case 'archive':
      return {
        kind: 'prompt',
        prompt: {
          kind: 'confirm',
          question: `Archive #${t.id}? Its worktree is removed and an empty branch deleted.`,
          call: call(t, 'archive', 'archive', {}),
        },
      };
    case 'approve': {
      // A gate is where a person reviews the branch: work only the worktree holds is said first.
      const c = t.worktree_changes;
      if (!c) return { kind: 'call', call: call(t, 'approve', 'approve') };
      return {
        kind: 'prompt',
        prompt: {
          kind: 'confirm',
          question: `#${t.id}'s worktree has ${c.files} uncommitted file${c.files === 1 ? '' : 's'} its branch ${t.branch_name ?? ''} does not have. Approve anyway?`,
          call: call(t, 'approve', 'approve'),
        },
      };
    }
    case 'answer': {
      const pending = t.pending_input ?? detail?.pending_input ?? null;
      if (!pending) return detail ? unavailable(op, t) : { kind: 'needs_detail' };
      return {
        kind: 'prompt',
        prompt: { kind: 'answer', taskId: t.id, pending, index: 0, answers: {}, line: emptyLine() },
      };
    }
    case 'retry':
      // From awaiting_children a retry re-admits blocked lanes and takes no override.
      if (t.state === 'awaiting_children')
        return { kind: 'call', call: call(t, 'retry', 'retry', {}) };
      if (!detail) return { kind: 'needs_detail' };
      return textPrompt(t, op, retryModes(t, detail));
    case 'merge_finished':
      return {
        kind: 'prompt',
        prompt: {
          kind: 'confirm',
          question: `Merge what finished for #${t.id}? Lanes still working are cancelled; lanes that did not finish or do not merge are left out, their work kept on their branches.`,
          call: call(t, 'merge_finished', 'merge_finished'),
        },
      };
    case 'repair':
      return textPrompt(t, op, [{ field: 'prompt', label: 'repair prompt', required: true }]);
    case 'follow_up':
      return textPrompt(t, op, [
        { field: 'prompt', label: 'follow-up prompt', required: true },
        { field: 'run', label: 'follow-up command', required: true },
        { field: 'workflow', label: 'follow-up workflow', required: true },
      ]);
    default:
      return { kind: 'call', call: call(t, op, op) };
  }
}

/** Submitting a text prompt: the call, or why not yet. Empty optional text sends no override. */
export function submitText(p: Extract<Prompt, { kind: 'text' }>): Call | { error: string } {
  const mode = p.modes[p.mode];
  const text = p.line.value.trim();
  if (!mode) return { error: 'nothing to submit' };
  if (mode.required && text === '') return { error: `${mode.label} is required` };
  return {
    taskId: p.taskId,
    op: p.op,
    path: `/v1/tasks/${p.taskId}/${p.op}`,
    body: text === '' ? {} : { [mode.field]: text },
  };
}

/** The question being answered, or null for a permission request. */
export function currentQuestion(p: Extract<Prompt, { kind: 'answer' }>) {
  return p.pending.kind === 'permission' ? null : (p.pending.questions?.[p.index] ?? null);
}

/**
 * Reads one typed answer: option numbers (`2`, or `1,3` for a multi-select) pick options; any
 * other text is the answer itself (the agent decides what to do with free text).
 */
export function readAnswer(
  text: string,
  q: { options?: string[]; multi_select?: boolean },
): string | string[] | { error: string } {
  const value = text.trim();
  if (value === '') return { error: 'type an answer' };
  const opts = q.options ?? [];
  const picks = value.split(',').map((s) => s.trim());
  if (opts.length > 0 && picks.every((s) => /^\d+$/.test(s))) {
    const chosen = picks.map((s) => opts[Number(s) - 1]);
    if (chosen.some((c) => c === undefined))
      return { error: `pick a number from 1 to ${opts.length}` };
    if (!q.multi_select && chosen.length > 1) return { error: 'pick one option' };
    return q.multi_select ? (chosen as string[]) : (chosen[0] as string);
  }
  return q.multi_select ? picks.filter(Boolean) : value;
}

/**
 * Submits the current question's line: the next question, the final call, or an error. A
 * permission request is answered with `y` or `n` (SPEC §4.4 `allow`).
 */
export function submitAnswer(
  p: Extract<Prompt, { kind: 'answer' }>,
): { next: Extract<Prompt, { kind: 'answer' }> } | { call: Call } | { error: string } {
  const path = `/v1/tasks/${p.taskId}/answer`;
  if (p.pending.kind === 'permission') {
    const v = p.line.value.trim().toLowerCase();
    if (v !== 'y' && v !== 'n') return { error: 'answer y to allow or n to deny' };
    return { call: { taskId: p.taskId, op: 'answer', path, body: { allow: v === 'y' } } };
  }
  const q = currentQuestion(p);
  if (!q) return { error: 'the request has no question' };
  const got = readAnswer(p.line.value, q);
  if (typeof got === 'object' && !Array.isArray(got)) return got;
  const answers = { ...p.answers, [q.text]: got };
  if (p.index + 1 < (p.pending.questions?.length ?? 0))
    return { next: { ...p, index: p.index + 1, answers, line: emptyLine() } };
  return { call: { taskId: p.taskId, op: 'answer', path, body: { answers } } };
}
