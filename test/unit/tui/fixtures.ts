/** Task rows for the board's unit tests, with every field a list row carries. */
import type { TaskRow } from '../../../shared/wire-types.js';

export function row(id: number, over: Partial<TaskRow> = {}): TaskRow {
  return {
    id,
    project_id: 1,
    project_name: 'app',
    title: `task ${id}`,
    state: 'running',
    workflow: 'build',
    branch_name: `svc/${id}`,
    worktree_path: `/wt/${id}`,
    current_step: 0,
    step_total: 3,
    step_name: 'plan',
    status_message: 'running plan (1/3)',
    block_reason: null,
    queued_reason: null,
    admit_not_before: null,
    available_actions: ['cancel', 'pause'],
    cost_usd: null,
    parent_task_id: null,
    lane_id: null,
    created_at: '2026-11-21T10:00:00Z',
    started_at: '2026-11-21T10:00:00Z',
    finished_at: null,
    ...over,
  };
}
