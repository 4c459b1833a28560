/**
 * Fan-out lanes as child tasks (SPEC §2.8 fan_out, §2.1 lane fields): each lane is a task on its
 * own branch cut from the parent's, inserted with every sibling in one transaction (a partial spawn
 * leaves nothing behind), each announced with `task.created`.
 */
import { formatMs } from '../clock/index.js';
import { SvcError } from '../errors.js';
import type { EventLog } from '../events/index.js';
import type { LaneSpec } from '../plugin/index.js';
import type { Project } from '../projects/index.js';
import { newTask, type Store, type TaskRow, type TasksTable } from '../store/index.js';
import { branchFor } from './branch.js';
import { nextTaskId } from './create.js';
import { fieldsOf, type WorkflowOrigin, type WorkflowSnapshot } from './model.js';
import type { WorkflowPort } from './ports.js';

export interface LaneDeps {
  store: Store;
  tasks: TasksTable;
  events: EventLog;
  workflows: WorkflowPort;
  now(): number;
  configTemplate(): string;
  maxTasks(): number;
}

/** Descendants of a tree's root, the root excluded (what fan_out.max_tasks counts). */
function descendantCount(store: Store, rootId: number): number {
  return (
    store.db.prepare('SELECT COUNT(*) AS n FROM tasks WHERE root_task_id = ?').get(rootId) as {
      n: number;
    }
  ).n;
}

export function spawnLanes(
  d: LaneDeps,
  parent: TaskRow,
  project: Project,
  parentSnapshot: WorkflowSnapshot,
  stepId: string,
  index: number,
  specs: LaneSpec[],
): number[] {
  const root = parent.root_task_id ?? parent.id;
  // Resolve named workflows before the transaction: nothing is written when one fails.
  const resolved = specs.map((spec) => {
    // A template lane's item goes with its snapshot, for `.Loop.Item` in its steps (decision 197).
    const item = spec.item ? { lane_item: spec.item } : {};
    if (spec.workflow) {
      const wf = d.workflows.forTask(spec.workflow, project);
      return { spec, snapshot: { ...wf.snapshot, ...item }, name: wf.snapshot.name };
    }
    const name = `${parent.workflow}/${stepId}/${spec.id}`;
    const snapshot: WorkflowSnapshot = {
      name,
      steps: (spec.steps ?? []) as WorkflowSnapshot['steps'],
      ...item,
    };
    if (parentSnapshot.defaults) snapshot.defaults = parentSnapshot.defaults;
    return { spec, snapshot, name };
  });
  const now = formatMs(d.now());
  return d.store.tx(() => {
    const existing = descendantCount(d.store, root);
    if (existing + specs.length > d.maxTasks()) {
      throw new SvcError(
        'validation_failed',
        `fan-out would create more than fan_out.max_tasks (${d.maxTasks()}) child tasks under task ${root}`,
        { field: 'fan_out.max_tasks' },
      );
    }
    const ids: number[] = [];
    for (const { spec, snapshot, name } of resolved) {
      const nextId = nextTaskId(d.store);
      const title = `${parent.title} — ${spec.id}`;
      const fields = { ...fieldsOf(parent), ...spec.fields };
      const branch = branchFor({
        id: nextId,
        title,
        baseBranch: parent.branch_name ?? parent.base_branch,
        fields,
        project,
        configTemplate: d.configTemplate(),
      });
      const origin: WorkflowOrigin = { scope: 'derived', parent_task_id: parent.id };
      const id = d.tasks.insert(
        newTask({
          project_id: parent.project_id,
          parent_task_id: parent.id,
          root_task_id: root,
          depth: parent.depth + 1,
          lane_id: spec.id,
          lane_order: spec.order,
          spawned_by_index: index,
          title,
          description: parent.description,
          prompt: parent.prompt,
          state: 'queued',
          workflow: name,
          workflow_origin: JSON.stringify(origin),
          workflow_snapshot: JSON.stringify(snapshot),
          fields: JSON.stringify(fields),
          branch_name: branch.name,
          base_branch: parent.branch_name ?? parent.base_branch,
          priority: spec.priority ?? parent.priority,
          agent_override: spec.agent ?? parent.agent_override,
          model_override: spec.model ?? parent.model_override,
          effort_override: spec.effort ?? parent.effort_override,
          restricted: parent.restricted,
          max_task_cost_usd: parent.max_task_cost_usd,
          step_total: snapshot.steps.length,
          created_via: 'fan_out',
          created_at: now,
        }),
      );
      d.events.append(
        'task.created',
        { project_id: parent.project_id, task_id: id },
        {
          state: 'queued',
          title,
          workflow: name,
          workflow_origin: origin,
          parent_task_id: parent.id,
          lane_id: spec.id,
          lane_order: spec.order,
        },
      );
      ids.push(id);
    }
    return ids;
  });
}
