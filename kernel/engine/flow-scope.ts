/**
 * What every part of one structural step's run shares (flow.ts splits runFlow into named steps):
 * the engine's parts, the task and step it runs at, and the template context a child or the step
 * itself renders in at a loop position.
 */
import type { LoopPosition } from '../plugin/index.js';
import type { Project } from '../projects/index.js';
import type { TaskRow } from '../store/index.js';
import { buildContext } from './context.js';
import type { StepDef, WorkflowSnapshot } from './model.js';
import type { WorkflowPort } from './ports.js';
import type { RunnerDeps } from './runner-deps.js';

export interface FlowDeps extends RunnerDeps {
  workflows: WorkflowPort;
}

/** One structural step's run: built once by runFlow, read by the context, runChild and the rows. */
export interface FlowScope {
  deps: FlowDeps;
  task: TaskRow;
  project: Project;
  snapshot: WorkflowSnapshot;
  step: StepDef;
  index: number;
  /** The structural step's name: every row at its index carries it. */
  topName: string;
  worktree: string;
  /** Cancel, shutdown, or the whole-step timeout. */
  signal: AbortSignal;
}

/** The template context of `def` at a loop position and attempt, with extra keys on top. */
export function contextAt(
  s: FlowScope,
  def: StepDef,
  at: LoopPosition | undefined,
  attempt: number,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const rows = s.deps.runs.ofTask(s.task.id);
  const base = buildContext(
    s.task,
    s.project,
    s.snapshot,
    def,
    {
      index: s.index,
      attempt,
      iteration: at?.iteration ?? 0,
      item: at?.item ?? null,
      loopTotal: at?.total,
    },
    rows,
    { conflicts: Array.isArray(extra.Conflicts) ? (extra.Conflicts as string[]) : undefined },
  );
  return { ...base, ...extra };
}
