// Issue 23 point 3: the board's columns by state group, filters, lane counts and card lines.
import { describe, expect, it } from 'vitest';
import type { TaskRow } from '../../../shared/wire-types.js';
import { columns, laneCounts, needsYouCount, stateLine, stepLine } from '../../../web/lib/board.js';

let next = 1;
function task(p: Partial<TaskRow> = {}): TaskRow {
  return {
    id: next++,
    project_id: 1,
    title: 't',
    state: 'queued',
    workflow: 'w',
    branch_name: null,
    worktree_path: null,
    current_step: 0,
    step_total: 2,
    block_reason: null,
    queued_reason: null,
    admit_not_before: null,
    available_actions: [],
    parent_task_id: null,
    lane_id: null,
    created_at: '2026-11-27T10:00:00Z',
    started_at: null,
    finished_at: null,
    ...p,
  };
}

describe('board columns', () => {
  it('groups states: gate, input and blocked need you; paused is queued; archived is gone', () => {
    const rows = [
      task({ state: 'queued' }),
      task({ state: 'paused' }),
      task({ state: 'running' }),
      task({ state: 'awaiting_children' }),
      task({ state: 'awaiting_gate' }),
      task({ state: 'awaiting_input' }),
      task({ state: 'blocked' }),
      task({ state: 'done' }),
      task({ state: 'aborted' }),
      task({ state: 'archived' }),
      task({ state: 'some_new_state' }),
    ];
    const cols = Object.fromEntries(columns(rows).map((c) => [c.id, c.tasks.map((t) => t.state)]));
    expect(cols).toEqual({
      queued: ['paused', 'queued'],
      running: ['some_new_state', 'awaiting_children', 'running'],
      needs_you: ['awaiting_gate', 'awaiting_input', 'blocked'],
      done: ['done'],
      aborted: ['aborted'],
    });
    expect(needsYouCount(rows)).toBe(3);
  });

  it('filters by project and workflow, and shows lanes on their root only', () => {
    const root = task({ state: 'awaiting_children', project_id: 2, workflow: 'fan' });
    const lanes = [
      task({ state: 'done', parent_task_id: root.id, project_id: 2, workflow: 'fan' }),
      task({ state: 'blocked', parent_task_id: root.id, project_id: 2, workflow: 'fan' }),
      task({ state: 'running', parent_task_id: root.id, project_id: 2, workflow: 'fan' }),
    ];
    const other = task({ project_id: 3 });
    const all = [root, ...lanes, other];
    const ids = (f: Parameters<typeof columns>[1]) =>
      columns(all, f).flatMap((c) => c.tasks.map((t) => t.id));
    expect(ids({ project_id: 2 })).toEqual([root.id]);
    expect(ids({ workflow: 'w' })).toEqual([other.id]);
    const counts = laneCounts(all).get(root.id);
    expect(counts).toEqual({ total: 3, settled: 1, waiting: 1 });
    expect(stepLine(root, counts)).toBe('1/2 · lanes 1/3 (1 waiting)');
    // Lanes waiting on a person count in the title even though their root has the card.
    expect(needsYouCount(all)).toBe(1);
  });
});

describe('card lines', () => {
  it('says why a task waits, with the time left before admission', () => {
    const now = Date.parse('2026-11-27T10:00:00Z');
    expect(stateLine(task({ state: 'blocked', block_reason: 'step_failed' }))).toBe(
      'blocked: step_failed',
    );
    expect(
      stateLine(
        task({
          state: 'queued',
          queued_reason: 'usage_limit',
          admit_not_before: '2026-11-27T10:04:00Z',
        }),
        now,
      ),
    ).toBe('queued: usage_limit, 4m left');
    expect(stateLine(task({ state: 'awaiting_gate' }))).toBe('awaiting approval');
    expect(stateLine(task({ state: 'running', pause_requested: true }))).toBe('running (pausing)');
  });

  it('shows the step with loop progress', () => {
    const t = task({
      current_step: 1,
      step_total: 3,
      step_name: 'test',
      loop: { iteration: 2, max_iterations: 5, item: 'api' },
    });
    expect(stepLine(t)).toBe('2/3 test · loop 2/5 api');
  });
});
