// Issue 22 point 3 (decision 233): GET /v1/tasks builds a page with one set-based statement, never
// parsing a snapshot or asking per row. Its rows must be exactly what they were when each row was
// built from the whole task: a list row is the task's detail (still built that way) less the
// detail-only keys — for every filter, every page, on a database holding every kind of row.
import { describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../support/app.js';
import { addProject, commandWorkflow, createTask } from '../../support/tasks.js';

const LOOP = `name: loopy
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

const NAMED = `name: named
steps:
  - id: build
    name: Build it
    type: command
    run: "true"
  - id: approve
    type: manual
    instructions: look
`;

type Row = Record<string, unknown> & { id: number };

/** Every kind of row a list shows, written the way the engine writes them. */
async function seed(t: TestApp) {
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
  const run = (task: number, fields: Record<string, unknown>) =>
    t.kernel.services.engine.runs.insert({
      task_id: task,
      step_index: 0,
      step_id: 'run',
      step_name: 'run',
      step_type: 'command',
      group_id: null,
      attempt: 1,
      iteration: 0,
      loop_item: null,
      loop_total: null,
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
      transcript_path: null,
      input_tokens: null,
      output_tokens: null,
      cost_usd: null,
      input_wait_ms: 0,
      prompt_override: null,
      run_override: null,
      counts_retry: 1,
      session_id: null,
      head_before: null,
      head_after: null,
      started_at: '2026-11-27T10:00:00.000Z',
      finished_at: '2026-11-27T10:00:01.000Z',
      ...fields,
    });

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
    t.kernel.services.chats.table.insert({
      project_id: a.project.id,
      title: 'c',
      agent: 'claude',
      model: '',
      effort: '',
      state,
      linked_task_id: linkedTo,
      worktree_path: '',
      branch_name: '',
      base_branch: 'main',
      existing_branch: 0,
      restricted: 0,
      context: null,
      created_at: '2026-11-27T10:00:00.000Z',
      updated_at: '2026-11-27T10:00:00.000Z',
    });

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
  // A task past its last step, and a wide page of plain ones.
  const past = await make(a.project.id, 'named', 'past the end');
  set(past, { state: 'done', current_step: 9 });
  for (let i = 0; i < 25; i++) await make(i % 2 ? a.project.id : b.project.id, 'one', `plain ${i}`);
  return { a: a.project.id, b: b.project.id, loop, ids };
}

// The prompt is the detail's alone: up to 1 MiB a task, a list row leaves it out (issue 18).
const DETAIL_ONLY = ['workflow_steps', 'steps', 'children', 'prompt'];

async function expectRowsAreDetails(t: TestApp, rows: Row[]) {
  for (const row of rows) {
    const detail = await t.json<Row>('GET', `/v1/tasks/${row.id}`);
    for (const k of DETAIL_ONLY) delete detail[k];
    expect(row, `task ${row.id}`).toStrictEqual(detail);
  }
}

/** Every page of a query, walking the cursor. */
async function walk(t: TestApp, query: string, limit: number) {
  const rows: Row[] = [];
  let cursor: string | undefined;
  do {
    const sep = query ? '&' : '';
    const res = await t.api(
      'GET',
      `/v1/tasks?${query}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
    );
    expect(res.statusCode).toBe(200);
    rows.push(...(res.json() as Row[]));
    cursor = res.headers['x-next-cursor'] as string | undefined;
  } while (cursor);
  return rows;
}

describe('list rows from one statement per page', () => {
  it('are the detail rows, for every filter and page, in the order and number the filters say', async () => {
    const t = await buildTestApp({ kernel: { startEngine: false } });
    const { a, b, loop } = await seed(t);
    const all = t.kernel.services.store.db
      .prepare('SELECT id, state, project_id, parent_task_id FROM tasks ORDER BY id DESC')
      .all() as Array<{
      id: number;
      state: string;
      project_id: number;
      parent_task_id: number | null;
    }>;
    const roots = all.filter((r) => r.parent_task_id === null);
    const cases: Array<[string, number[]]> = [
      ['', roots.filter((r) => r.state !== 'archived').map((r) => r.id)],
      ['archived=all', roots.map((r) => r.id)],
      ['archived=true', roots.filter((r) => r.state === 'archived').map((r) => r.id)],
      ['state=done', roots.filter((r) => r.state === 'done').map((r) => r.id)],
      ['state=blocked', roots.filter((r) => r.state === 'blocked').map((r) => r.id)],
      [
        `project_id=${a}`,
        roots.filter((r) => r.project_id === a && r.state !== 'archived').map((r) => r.id),
      ],
      [`project_id=${b}&archived=all`, roots.filter((r) => r.project_id === b).map((r) => r.id)],
      [
        `project_id=${a}&state=done`,
        roots.filter((r) => r.project_id === a && r.state === 'done').map((r) => r.id),
      ],
      ['include_children=true', all.filter((r) => r.state !== 'archived').map((r) => r.id)],
    ];
    for (const [query, ids] of cases) {
      for (const limit of [1, 7, 1000]) {
        const rows = await walk(t, query, limit);
        expect(
          rows.map((r) => r.id),
          `${query} limit ${limit}`,
        ).toEqual(ids);
        if (limit === 1000) await expectRowsAreDetails(t, rows);
      }
    }
    // Lanes come whole, in lane order.
    const lanes = (await t.api('GET', `/v1/tasks?parent_id=${loop}`)).json() as Row[];
    expect(lanes.map((r) => r.lane_id)).toEqual(['a', 'b']);
    await expectRowsAreDetails(t, lanes);

    // The kinds of row this database holds, as the list shows them.
    const byTitle = new Map(
      (await walk(t, 'archived=all', 1000)).map((r) => [r.title as string, r]),
    );
    expect(byTitle.get('done one')).toMatchObject({
      cost_usd: 0.75,
      input_tokens: 101,
      output_tokens: 7,
      step_name: '',
      status_message: 'done',
    });
    expect(byTitle.get('in a loop')).toMatchObject({
      step_name: 'Try again',
      loop: { driver: 'count', iteration: 2, max_iterations: 3, total: 3, item: 'x' },
    });
    expect(byTitle.get('at the gate')?.step_name).toBe('approve');
    expect(byTitle.get('has a chat')?.open_chat_id).toBeTypeOf('number');
    expect(byTitle.get('done one')).not.toHaveProperty('open_chat_id');
    expect(byTitle.get('forge and trigger')).toMatchObject({ triggered_by: 'nightly' });
    expect(byTitle.get('asks')?.pending_input).toEqual({ kind: 'question', question: 'which?' });
  });

  it('rows written before migration 0015 get their step outline from it', async () => {
    const t = await buildTestApp({ kernel: { startEngine: false } });
    const { project } = await addProject(t, { named: NAMED });
    const task = await createTask(t, {
      project_id: project.id,
      title: 'x',
      workflow: 'named',
      paused: true,
    });
    const db = t.kernel.services.store.db;
    const outline = () =>
      (
        db.prepare('SELECT steps_outline AS o FROM tasks WHERE id = ?').get(task.id) as {
          o: string;
        }
      ).o;
    expect(JSON.parse(outline())).toEqual([
      ['Build it', 'command'],
      ['approve', 'manual'],
    ]);
    // As an older database holds it; the migration's backfill is the same statement.
    db.prepare("UPDATE tasks SET steps_outline = '[]' WHERE id = ?").run(task.id);
    const { migrations } = await import('../../../kernel/store/index.js');
    const m = migrations.find((x) => x.version === 15);
    const backfill = m?.sql.split(';').find((s) => s.trim().startsWith('UPDATE tasks'));
    db.exec(`${backfill};`);
    expect(JSON.parse(outline())[0]).toEqual(['Build it', 'command']);
  });
});
