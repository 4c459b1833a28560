/**
 * Seeds a large history straight through the store (far faster than driving tasks): projects,
 * tasks in settled states, step runs and events shaped like the ones the engine writes.
 */
import { ensurePrivateDir, type Paths } from '../../kernel/daemon/index.js';
import {
  newStepRun,
  newTask,
  openDatabase,
  type StepRunInsert,
  type TaskInsert,
} from '../../kernel/store/index.js';

const STATES = ['done', 'done', 'done', 'done', 'done', 'blocked', 'aborted', 'paused', 'archived'];

export interface Seeded {
  tasks: number;
  runs: number;
  events: number;
  maxEventId: number;
}

export function seedHistory(
  paths: Paths,
  repo: string,
  opts: { tasks: number; runsPerTask: number; events: number },
): Seeded {
  ensurePrivateDir(paths.dataDir);
  const db = openDatabase(paths.dbFile);
  const ts = new Date().toISOString().replace(/\.\d+Z$/, '.000Z');
  // Shaped like a real snapshot: an agent prompt of a couple of KiB, a command, a gate.
  const snapshot = JSON.stringify({
    name: 'one',
    description: 'Plan, build and test a change',
    fields: [{ name: 'ticket', type: 'string', required: true }],
    steps: [
      {
        id: 'plan',
        type: 'agent',
        agent: 'claude',
        prompt: `Read the ticket {{ .Fields.ticket }} and plan the change. ${'Keep the diff small. '.repeat(100)}`,
      },
      { id: 'build', type: 'command', run: 'make', timeout: '15m' },
      { id: 'test', type: 'manual', instructions: 'Check the result.' },
    ],
  });
  // Two projects, tasks alternating between them, so `project_id=` selects half of the history.
  const insProject = db.prepare(
    `INSERT INTO projects (name, path, default_branch, default_workflow, max_parallel_tasks,
       branch_template, created_at, updated_at) VALUES (?, ?, 'main', NULL, NULL, NULL, ?, ?)`,
  );
  insProject.run('repo', repo, ts, ts);
  insProject.run('other', `${repo}-other`, ts, ts);
  const task = (i: number): TaskInsert =>
    newTask({
      project_id: 1 + (i % 2),
      title: `seeded task ${i}: refactor the parser and fix its tests`,
      description: 'A seeded task. '.repeat(8),
      state: STATES[i % STATES.length] as TaskInsert['state'],
      workflow: 'one',
      workflow_origin: JSON.stringify({ scope: 'global', path: '/tmp/one.yaml' }),
      workflow_snapshot: snapshot,
      fields: '{"ticket":"ABC-123"}',
      branch_name: `svc/${i}-seeded-task`,
      base_branch: 'main',
      current_step: 2,
      step_total: 3,
      block_reason: STATES[i % STATES.length] === 'blocked' ? 'step_failed' : null,
      block_detail:
        STATES[i % STATES.length] === 'blocked' ? 'nonzero_exit at step test: exit 2' : null,
      created_via: 'api',
      created_at: ts,
      started_at: ts,
      finished_at: ts,
      archived_at: STATES[i % STATES.length] === 'archived' ? ts : null,
    });
  const sample = task(1);
  const taskKeys = Object.keys(sample);
  const insTask = db.prepare(
    `INSERT INTO tasks (${taskKeys.join(', ')}) VALUES (${taskKeys.map((k) => `@${k}`).join(', ')})`,
  );
  const run = (taskId: number, j: number): StepRunInsert =>
    newStepRun({
      task_id: taskId,
      step_index: j % 3,
      step_id: ['plan', 'build', 'test'][j % 3] as string,
      step_name: ['plan', 'build', 'test'][j % 3] as string,
      step_type: 'command',
      attempt: Math.floor(j / 3) + 1,
      state: 'succeeded',
      exit_code: 0,
      result_summary: 'ok\n'.repeat(10),
      transcript_path: `${paths.transcriptsDir}/${taskId}/${j % 3}-${Math.floor(j / 3) + 1}.jsonl`,
      input_tokens: 1200,
      output_tokens: 340,
      cost_usd: 0.0123,
      started_at: ts,
      finished_at: ts,
    });
  const runKeys = Object.keys(run(1, 0));
  const insRun = db.prepare(
    `INSERT INTO step_runs (${runKeys.join(', ')}) VALUES (${runKeys.map((k) => `@${k}`).join(', ')})`,
  );
  const insEvent = db.prepare(
    `INSERT INTO events (ts, kind, project_id, task_id, chat_id, trigger_id, payload)
     VALUES (?, 'task.state_changed', 1, ?, NULL, NULL, ?)`,
  );
  db.transaction(() => {
    for (let i = 1; i <= opts.tasks; i++) {
      insTask.run(task(i));
      for (let j = 0; j < opts.runsPerTask; j++) insRun.run(run(i, j));
    }
    for (let e = 0; e < opts.events; e++) {
      const taskId = (e % opts.tasks) + 1;
      insEvent.run(
        ts,
        taskId,
        JSON.stringify({
          type: 'task.state_changed',
          task_id: taskId,
          title: `seeded task ${taskId}`,
          from: 'running',
          to: 'done',
          block_reason: '',
          current_step: 2,
          current_step_name: 'test',
          steps_total: 3,
          worktree_path: `${paths.worktreesDir}/${taskId}`,
          branch: `svc/${taskId}-seeded-task`,
          project_id: 1,
          project: 'repo',
          workflow: 'one',
          parent_task_id: null,
        }),
      );
    }
  })();
  const maxEventId = (db.prepare('SELECT MAX(id) AS m FROM events').get() as { m: number }).m;
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return {
    tasks: opts.tasks,
    runs: opts.tasks * opts.runsPerTask,
    events: opts.events,
    maxEventId,
  };
}
