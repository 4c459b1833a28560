/**
 * Task and step-run rows written straight into the real database, for ops tests that need tasks
 * in given states (archived long ago, done with a run left open) without running workflows.
 * The engine's own tables do the writing, so rows look like the engine's; transcripts are written
 * in its line format.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  newStepRun,
  newTask,
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
  const row = newTask({
    project_id: projectId,
    title: 'a task',
    workflow: 'test',
    workflow_snapshot: JSON.stringify({ name: 'test', steps: [{ id: 'one', type: 'command' }] }),
    base_branch: 'main',
    step_total: 1,
    created_at: NOW,
    updated_at: NOW,
    ...fields,
  });
  return new TasksTable(store.db).insert(row);
}

/** A step run; with `lines`, a real transcript file under {transcripts}/{task}/, in the engine's line format. */
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
    // Written at once, in the writer's format (a line and its break): the engine's writer queues
    // and writes off the event loop (decision 232), and a fixture must be on disk when it returns.
    mkdirSync(dirname(transcript), { recursive: true, mode: 0o700 });
    writeFileSync(transcript, lines.map((l) => (l.endsWith('\n') ? l : `${l}\n`)).join(''), {
      mode: 0o600,
    });
  }
  const id = new StepRunsTable(store.db).insert(
    newStepRun({
      task_id: taskId,
      step_index: index,
      step_id: 'one',
      step_name: 'one',
      step_type: 'command',
      attempt,
      state: 'succeeded',
      exit_code: 0,
      transcript_path: transcript,
      counts_retry: 1,
      started_at: NOW,
      finished_at: NOW,
      ...rest,
    }),
  );
  return { id, transcript };
}
