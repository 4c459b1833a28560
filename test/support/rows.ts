/**
 * Task and step-run rows written straight into the real database, for ops tests that need tasks
 * in given states (archived long ago, done with a run left open) without running workflows.
 * The engine's own tables and transcript writer do the writing, so rows look like the engine's.
 */
import { join } from 'node:path';
import { TranscriptWriter } from '../../kernel/proc/index.js';
import {
  ProjectsTable,
  type StepRunInsert,
  StepRunsTable,
  type Store,
  type TaskInsert,
  TasksTable,
} from '../../kernel/store/index.js';
import type { TaskState } from '../../kernel/task-states.js';
import { gitRepo } from './git.js';

const NOW = '2026-01-01T00:00:00Z';

/** A project row over a real repository. */
export function insertProject(store: Store, path = gitRepo().path, name = 'proj'): number {
  return new ProjectsTable(store.db).insert({
    name,
    path,
    default_branch: 'main',
    default_workflow: null,
    max_parallel_tasks: null,
    branch_template: null,
    created_at: NOW,
    updated_at: NOW,
  }).id;
}

export function insertTask(
  store: Store,
  projectId: number,
  fields: Partial<TaskInsert> & { state: TaskState },
): number {
  const row: TaskInsert = {
    project_id: projectId,
    parent_task_id: null,
    root_task_id: null,
    depth: 0,
    lane_id: null,
    spawned_by_index: null,
    lane_order: null,
    title: 'a task',
    description: '',
    prompt: null,
    workflow: 'test',
    workflow_origin: null,
    workflow_snapshot: JSON.stringify({ name: 'test', steps: [{ id: 'one', type: 'command' }] }),
    fields: '{}',
    fields_defaulted: '[]',
    branch_name: null,
    base_branch: 'main',
    worktree_path: null,
    priority: 0,
    agent_override: null,
    model_override: null,
    effort_override: null,
    restricted: 0,
    max_task_cost_usd: null,
    current_step: 0,
    step_total: 1,
    block_reason: null,
    block_detail: null,
    queued_reason: null,
    admit_not_before: null,
    pause_requested: 0,
    pending_input: null,
    followup_origin: null,
    followup_round: 0,
    followup_spec: null,
    repair_spec: null,
    pending_override: null,
    retry_floor: 0,
    source_chat_id: null,
    forge_issue: null,
    forge_pull: null,
    created_via: null,
    created_by_task_id: null,
    mcp_origin_task_id: null,
    mcp_depth: 0,
    created_at: NOW,
    updated_at: NOW,
    started_at: null,
    finished_at: null,
    archived_at: null,
    ...fields,
  };
  return new TasksTable(store.db).insert(row);
}

/** A step run; with `lines`, a real transcript file under {transcripts}/{task}/ written by the engine's writer. */
export function insertStepRun(
  store: Store,
  transcriptsDir: string,
  taskId: number,
  fields: Partial<StepRunInsert> & { lines?: string[] } = {},
): { id: number; transcript: string | null } {
  const { lines, ...rest } = fields;
  const attempt = rest.attempt ?? 1;
  const index = rest.step_index ?? 0;
  let transcript: string | null = null;
  if (lines) {
    transcript = join(transcriptsDir, String(taskId), `${index}-${attempt}.jsonl`);
    const w = new TranscriptWriter(transcript, 0);
    for (const l of lines) w.write(l);
    w.close();
  }
  const id = new StepRunsTable(store.db).insert({
    loop_total: null,
    task_id: taskId,
    step_index: index,
    step_id: 'one',
    step_name: 'one',
    step_type: 'command',
    group_id: null,
    attempt,
    iteration: 0,
    loop_item: null,
    state: 'succeeded',
    agent: null,
    model: null,
    effort: null,
    pid: null,
    proc_started_at: null,
    exit_code: 0,
    check_exit_code: null,
    failure_reason: null,
    skip_reason: null,
    result_summary: '',
    transcript_path: transcript,
    input_tokens: null,
    output_tokens: null,
    cost_usd: null,
    input_wait_ms: 0,
    prompt_override: null,
    run_override: null,
    counts_retry: 1,
    session_id: null,
    started_at: NOW,
    finished_at: NOW,
    ...rest,
  });
  return { id, transcript };
}
