// Every kind of row the task list shows, written the way the engine writes them: shared by the
// list's row tests (test/integration/engine/list-rows.test.ts) and its body tests
// (test/integration/http/list-walk.test.ts).

import type { ChatState } from '../../kernel/chats/index.js';
import { newStepRun, type StepRunInsert } from '../../kernel/store/index.js';
import type { TestApp } from './app.js';
import { addProject, commandWorkflow, createTask } from './tasks.js';

export const LOOP = `name: loopy
steps:
  - id: prep
    type: command
    run: "true"
  - id: again
    name: Try again
    type: loop
    count: 3
    steps:
      - id: attempt
        type: command
        run: "true"
      - id: check
        type: command
        run: "true"
`;

export const NAMED = `name: named
steps:
  - id: build
    name: Build it
    type: command
    run: "true"
  - id: approve
    type: manual
    instructions: look
`;

export type Row = Record<string, unknown> & { id: number };

/** A chat row of `project` in `state`, linked to `task`, as the chats room writes one; its id. */
export function linkChat(t: TestApp, project: number, task: number, state: ChatState): number {
  return t.kernel.services.chats.table.insert({
    project_id: project,
    title: 'c',
    agent: 'claude',
    model: '',
    effort: '',
    state,
    linked_task_id: task,
    worktree_path: '',
    branch_name: '',
    base_branch: 'main',
    existing_branch: 0,
    restricted: 0,
    context: null,
    created_at: '2026-11-27T10:00:00.000Z',
    updated_at: '2026-11-27T10:00:00.000Z',
  });
}

/** Every kind of row a list shows, written the way the engine writes them. */
export async function seedEveryKindOfRow(t: TestApp) {
  const a = await addProject(t, { one: commandWorkflow('one', 'true'), loopy: LOOP, named: NAMED });
  const b = await addProject(t, { one: commandWorkflow('one', 'true') });
  const db = t.kernel.services.store.db;
  const ids: number[] = [];
  const make = async (project: number, workflow: string, title: string) => {
    const task = await createTask(t, { project_id: project, title, workflow, paused: true });
    ids.push(task.id);
    return task.id;
  };
  const set = (id: number, fields: Record<string, unknown>) =>
    db
      .prepare(
        `UPDATE tasks SET ${Object.keys(fields)
          .map((k) => `${k} = @${k}`)
          .join(', ')} WHERE id = @id`,
      )
      .run({ ...fields, id });
  const run = (task: number, fields: Partial<StepRunInsert>) =>
    t.kernel.services.engine.runs.insert(
      newStepRun({
        task_id: task,
        step_index: 0,
        step_id: 'run',
        step_name: 'run',
        step_type: 'command',
        attempt: 1,
        state: 'succeeded',
        exit_code: 0,
        counts_retry: 1,
        started_at: '2026-11-27T10:00:00.000Z',
        finished_at: '2026-11-27T10:00:01.000Z',
        ...fields,
      }),
    );

  const done = await make(a.project.id, 'one', 'done one');
  set(done, { state: 'done', current_step: 1, finished_at: '2026-11-27T10:00:02.000Z' });
  run(done, { cost_usd: 0.25, input_tokens: 100, output_tokens: 7 });
  run(done, { attempt: 2, cost_usd: 0.5, input_tokens: 1, output_tokens: null });

  const blocked = await make(a.project.id, 'named', 'blocked "quoted" \\ title');
  set(blocked, { state: 'blocked', block_reason: 'step_failed', block_detail: 'exit 2 at build' });
  run(blocked, { state: 'failed', input_tokens: 5 });

  const gate = await make(a.project.id, 'named', 'at the gate');
  set(gate, { state: 'awaiting_gate', current_step: 1 });

  const input = await make(a.project.id, 'named', 'asks');
  set(input, {
    state: 'awaiting_input',
    pending_input: JSON.stringify({ kind: 'question', question: 'which?' }),
  });

  const loop = await make(a.project.id, 'loopy', 'in a loop');
  set(loop, { state: 'running', current_step: 1, worktree_path: '/tmp/nowhere' });
  run(loop, { step_index: 1, step_id: 'attempt', iteration: 1, loop_total: 3 });
  run(loop, { step_index: 1, step_id: 'check', iteration: 2, loop_item: 'x', loop_total: 3 });

  const queued = await make(b.project.id, 'one', 'waits for a clock');
  set(queued, {
    state: 'queued',
    queued_reason: 'retry_backoff',
    admit_not_before: '2026-11-27T11:00:00Z',
  });

  const archived = await make(b.project.id, 'one', 'archived');
  set(archived, { state: 'archived', archived_at: '2026-11-27T12:00:00.000Z' });

  const linked = await make(b.project.id, 'one', 'forge and trigger');
  set(linked, {
    state: 'done',
    created_via: 'trigger:nightly',
    forge_issue: JSON.stringify({ number: 7, url: 'https://example.invalid/7' }),
    forge_pull: JSON.stringify({ number: 8, url: 'https://example.invalid/8' }),
    followup_origin: 'done',
    followup_round: 2,
    priority: 5,
    restricted: 1,
    max_task_cost_usd: 1.5,
  });

  const chatted = await make(a.project.id, 'one', 'has a chat');
  set(chatted, { state: 'done' });
  for (const [state, linkedTo] of [
    ['closed', chatted],
    ['idle', chatted],
    ['archived', done],
  ] as const)
    linkChat(t, a.project.id, linkedTo, state);

  // Lanes of the loop task, out of id order in lane order.
  for (const [lane, order] of [
    ['b', 1],
    ['a', 0],
  ] as const) {
    const id = await make(a.project.id, 'one', `lane ${lane}`);
    set(id, {
      parent_task_id: loop,
      root_task_id: loop,
      depth: 1,
      lane_id: lane,
      lane_order: order,
    });
  }
  // The forge's live look at the pull request, which the list reads for that row as it builds it.
  db.prepare(
    "INSERT INTO forge_pull_state (task_id, state, head_sha, checked_at) VALUES (?, 'open', 'abc123', '2026-11-27T10:00:00.000Z')",
  ).run(linked);

  // Text beyond Latin-1, escapes and control characters in the row's own columns.
  const wide = await make(b.project.id, 'one', 'émoji 🚀, 中文 and an em dash — in a title');
  set(wide, {
    description: 'quotes " and \\ backslash, \t tab, \u2028 separators \u2029 and \u0001',
    state: 'blocked',
    block_reason: 'step_failed',
    block_detail: 'exit 2 — déjà vu',
  });

  // A task past its last step, and a wide page of plain ones.
  const past = await make(a.project.id, 'named', 'past the end');
  set(past, { state: 'done', current_step: 9 });
  for (let i = 0; i < 25; i++) await make(i % 2 ? a.project.id : b.project.id, 'one', `plain ${i}`);
  return { a: a.project.id, b: b.project.id, loop, ids };
}

// The prompt is the detail's alone: up to 1 MiB a task, a list row leaves it out (issue 18).
export const DETAIL_ONLY = ['workflow_steps', 'steps', 'children', 'prompt'];
