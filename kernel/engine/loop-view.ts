/**
 * The task's `loop` object (SPEC §2.1) while its current step is of a type that declares the loop
 * view (StepTypeMeta.view: `loop`; decision 225), computed per request from
 * rows: `driver`, `iteration` (0 before the first), `max_iterations` (the count, or the ceiling a
 * for_each is bounded by), `total` (the extent, once a body row exists), `item`, and
 * `body_step`/`body_index`/`body_total` for the latest row when it belongs to the body.
 */
import type { LoopProgress } from '../../shared/wire-types.js';
import type { StepRunsTable, TaskRow } from '../store/index.js';
import type { StepDef, WorkflowSnapshot } from './model.js';

/** The shape the clients read (shared/wire-types.ts), its driver always named. */
export interface LoopView extends LoopProgress {
  driver: 'count' | 'for_each';
}

export function loopView(
  task: TaskRow,
  snapshot: WorkflowSnapshot | null,
  runs: StepRunsTable,
  ceiling: number,
  showsLoopView: (type: string) => boolean,
): LoopView | undefined {
  const step = snapshot?.steps[task.current_step];
  if (!step || !showsLoopView(step.type)) return undefined;
  const body = (Array.isArray(step.steps) ? step.steps : []) as StepDef[];
  const driver = typeof step.count === 'number' ? 'count' : 'for_each';
  const max =
    typeof step.count === 'number'
      ? step.count
      : typeof step.max_iterations === 'number'
        ? step.max_iterations
        : ceiling;
  const rows = runs.atIndex(task.id, task.current_step).filter((r) => r.id > 0);
  const bodyRows = rows.filter((r) => r.iteration > 0);
  const view: LoopView = {
    driver,
    iteration: Math.max(0, ...bodyRows.map((r) => r.iteration)),
    max_iterations: max,
  };
  const latestBody = bodyRows.at(-1);
  if (latestBody?.loop_total !== null && latestBody?.loop_total !== undefined)
    view.total = latestBody.loop_total;
  const current = bodyRows.filter((r) => r.iteration === view.iteration).at(-1);
  if (current?.loop_item) view.item = current.loop_item;
  const latest = rows.at(-1);
  const at = latest ? body.findIndex((s) => s.id === latest.step_id) : -1;
  if (latest && at >= 0) {
    view.body_step = latest.step_id;
    view.body_index = at + 1;
    view.body_total = body.length;
  }
  return view;
}
