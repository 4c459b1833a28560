/**
 * The diff view's work against the daemon (decision 174): the stat, one file's text, the review
 * sent; and the stat the detail pane shows for a task at a gate. Each answer goes back to the
 * reducer as a message; a failure is the view's own error, never a crash.
 */
import { ApiError } from '../client.js';
import type { TuiApi } from './api.js';
import type { DiffEffect } from './diff.js';
import type { Msg } from './state.js';

function message(err: unknown): string {
  if (err instanceof ApiError) {
    const reason = err.details?.reason;
    return reason ? `${err.message} (${String(reason)})` : err.message;
  }
  return (err as Error)?.message ?? String(err);
}

const SENT_AS: Record<string, string> = {
  follow_up: 'as a follow-up',
  reject_repair: 'rejecting the gate, then repairing',
  repair: 'as a repair',
};

export async function performDiff(
  api: TuiApi,
  e: DiffEffect,
  dispatch: (m: Msg) => void,
  after: () => void,
): Promise<void> {
  try {
    switch (e.kind) {
      case 'diff_stat':
        dispatch({ type: 'diff_stat', taskId: e.taskId, stat: await api.diffStat(e.taskId) });
        return;
      case 'diff_file': {
        const text = await api.diffFile(e.taskId, e.path);
        dispatch({ type: 'diff_file', taskId: e.taskId, path: e.path, text });
        return;
      }
      case 'review_send': {
        const r = await api.review(e.taskId, e.body);
        const n = e.body.comments.length;
        dispatch({
          type: 'review_sent',
          taskId: e.taskId,
          text: `#${e.taskId} review of ${n} comment${n === 1 ? '' : 's'} sent ${SENT_AS[r.review.action] ?? r.review.action}: now ${r.state ?? '?'}`,
        });
        after();
        return;
      }
    }
  } catch (err) {
    if (e.kind === 'review_send')
      dispatch({ type: 'flash', flash: { text: message(err), tone: 'error' } });
    else
      dispatch({
        type: 'diff_error',
        taskId: e.taskId,
        message: message(err),
        ...(e.kind === 'diff_file' ? { path: e.path } : {}),
      });
  }
}

/** The detail pane of a task at a gate shows what the gate is asked to judge. */
export async function loadGateStat(
  api: TuiApi,
  task: { id: number; state: string },
  dispatch: (m: Msg) => void,
): Promise<void> {
  if (task.state !== 'awaiting_gate') {
    dispatch({ type: 'gate_stat', taskId: task.id, stat: null });
    return;
  }
  try {
    dispatch({ type: 'gate_stat', taskId: task.id, stat: await api.diffStat(task.id) });
  } catch {
    // A daemon without the diff route, or a task it cannot diff: the pane shows no stat.
    dispatch({ type: 'gate_stat', taskId: task.id, stat: null });
  }
}
