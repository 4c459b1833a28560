// Issue 22 point 3 (decision 233): GET /v1/tasks builds a page with one set-based statement, never
// parsing a snapshot or asking per row. Its rows must be exactly what they were when each row was
// built from the whole task: a list row is the task's detail (still built that way) less the
// detail-only keys — for every filter, every page, on a database holding every kind of row.
import { describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../support/app.js';
import { DETAIL_ONLY, NAMED, type Row, seedEveryKindOfRow } from '../../support/list-seed.js';
import { addProject, createTask } from '../../support/tasks.js';

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
    const { a, b, loop } = await seedEveryKindOfRow(t);
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
