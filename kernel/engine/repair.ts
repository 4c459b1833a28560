/**
 * The context a repair agent gets around the human's literal prompt (SPEC §4.4 repair): the task,
 * the failed step's rendered prompt or command, the reason and exit codes, the last 200 lines of
 * the failed attempt's transcript and the path to the rest.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { StepRunRow, TaskRow } from '../store/index.js';
import type { WorkflowSnapshot } from './model.js';

export const REPAIR_TAIL_LINES = 200;

function transcriptTail(path: string | null): string {
  if (!path || !existsSync(path)) return '';
  const lines = readFileSync(path, 'utf8').split('\n');
  return lines
    .slice(-REPAIR_TAIL_LINES - 1)
    .join('\n')
    .trimEnd();
}

export function repairPrompt(
  task: TaskRow,
  rows: StepRunRow[],
  prompt: string,
  snapshot: WorkflowSnapshot,
): string {
  const failed = rows
    .filter(
      (r) => r.step_index === task.current_step && r.state === 'failed' && r.step_id !== '__repair',
    )
    .at(-1);
  const step = snapshot.steps[task.current_step];
  const what = step
    ? typeof step.prompt === 'string'
      ? `Prompt of the step:\n${failed?.prompt_override ?? step.prompt}`
      : typeof step.run === 'string'
        ? `Command of the step:\n${failed?.run_override ?? step.run}`
        : `Step type: ${step.type}`
    : '';
  return [
    `You are repairing task ${task.id} "${task.title}", which is blocked. Work in the current directory (the task's worktree).`,
    task.description ? `Task description:\n${task.description}` : '',
    `Blocked at step ${task.current_step + 1} of ${snapshot.steps.length}${step ? ` (${step.id}, ${step.type})` : ''}.`,
    what,
    `Reason: ${task.block_reason ?? 'unknown'}${task.block_detail ? ` — ${task.block_detail}` : ''}`,
    failed
      ? `Exit code: ${failed.exit_code ?? 'none'}; check exit code: ${failed.check_exit_code ?? 'none'}`
      : '',
    failed?.transcript_path
      ? `Last ${REPAIR_TAIL_LINES} lines of the failed attempt's transcript (full transcript: ${failed.transcript_path}):\n${transcriptTail(failed.transcript_path)}`
      : '',
    '--- What the human asks you to do ---',
    prompt,
  ]
    .filter((s) => s !== '')
    .join('\n\n');
}
