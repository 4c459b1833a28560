/**
 * The context block a chat opened on a task starts its first turn with (SPEC §4.5): title,
 * description and fields, then per state the failure block (reason, transcript tail and path) for
 * blocked, the gate text for awaiting_gate, the last step's summary and the abort reason for done
 * and aborted. Assembled when the chat opens, so it describes the task as the human saw it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { jsonOr } from '../engine/index.js';
import type { StepRunRow, TaskRow } from '../store/index.js';

export const CONTEXT_TAIL_LINES = 200;

function tail(path: string | null): string {
  if (!path || !existsSync(path)) return '';
  return readFileSync(path, 'utf8')
    .split('\n')
    .slice(-CONTEXT_TAIL_LINES - 1)
    .join('\n')
    .trimEnd();
}

function fieldsText(task: TaskRow): string {
  const entries = Object.entries(jsonOr<Record<string, string>>(task.fields, {}));
  return entries.length ? `Fields:\n${entries.map(([k, v]) => `- ${k}: ${v}`).join('\n')}` : '';
}

/** `isGate`: whether a row's step type waits for a human (StepTypeMeta.waitsForHuman). */
export function taskContext(
  task: TaskRow,
  runs: StepRunRow[],
  isGate: (stepType: string) => boolean,
): string {
  const parts = [
    `This conversation is about task ${task.id} "${task.title}", which is ${task.state}. You work in its worktree (the current directory).`,
    task.description ? `Task description:\n${task.description}` : '',
    fieldsText(task),
  ];
  const last = runs.at(-1);
  if (task.state === 'blocked') {
    const failed = runs.filter((r) => r.state === 'failed').at(-1);
    parts.push(
      `The task is blocked: ${task.block_reason ?? 'unknown'}${task.block_detail ? ` — ${task.block_detail}` : ''}.`,
    );
    if (failed) {
      parts.push(
        `Failed step: ${failed.step_id} (${failed.step_type}), reason ${failed.failure_reason ?? 'unknown'}, exit code ${failed.exit_code ?? 'none'}.`,
      );
      if (failed.transcript_path)
        parts.push(
          `Last ${CONTEXT_TAIL_LINES} lines of its transcript (full transcript: ${failed.transcript_path}):\n${tail(failed.transcript_path)}`,
        );
    }
  } else if (task.state === 'awaiting_gate') {
    const gate = runs.filter((r) => isGate(r.step_type)).at(-1);
    parts.push(
      `The task waits at a manual gate${gate ? ` (${gate.step_id})` : ''}:\n${gate?.result_summary ?? ''}`,
    );
  } else {
    // The last step that said something, whatever its verdict: an aborted task's last words matter.
    const summary = runs.filter((r) => r.result_summary).at(-1);
    if (summary)
      parts.push(
        `Summary of the last step (${summary.step_id}, ${summary.state}):\n${summary.result_summary}`,
      );
    const failed = runs.filter((r) => r.state === 'failed').at(-1);
    if (task.state === 'aborted' && failed)
      parts.push(
        `Last failed step: ${failed.step_id}, reason ${failed.failure_reason ?? 'unknown'}${failed.transcript_path ? ` (transcript: ${failed.transcript_path})` : ''}.`,
      );
    if (task.state === 'aborted')
      parts.push(
        `The task was aborted${task.block_reason ? ` (${task.block_reason}${task.block_detail ? ` — ${task.block_detail}` : ''})` : ' by a cancel'}${last ? `, last at step ${last.step_id}` : ''}.`,
      );
  }
  parts.push('--- The human says ---');
  return parts.filter((p) => p !== '').join('\n\n');
}
