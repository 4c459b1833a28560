// Issue 22 point 3 (decision 237): a page of GET /v1/tasks reads the rows it returns and no others.
// Without a cursor (every first page, every `svc task list`), SQLite once preferred to scan the
// whole tasks table in id order, row by row through every snapshot, rather than sort the page:
// 35 ms for a first page of 100 at 10,000 tasks, growing with the history. The plan of every
// list statement the route runs must read tasks by id from the page, never scan the table.
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../../support/app.js';
import { addProject, commandWorkflow, createTask } from '../../support/tasks.js';

describe('a list page', () => {
  it('reads tasks through the page of ids for every filter, with and without a cursor', async () => {
    const t = await buildTestApp({ kernel: { startEngine: false } });
    const { project } = await addProject(t, { one: commandWorkflow('one', 'true') });
    const parent = await createTask(t, {
      project_id: project.id,
      title: 'parent',
      workflow: 'one',
      paused: true,
    });
    for (let i = 0; i < 5; i++)
      await createTask(t, {
        project_id: project.id,
        title: `t${i}`,
        workflow: 'one',
        paused: true,
      });
    const db = t.kernel.services.store.db;
    const statements = new Set<string>();
    const prepare = db.prepare.bind(db);
    db.prepare = ((sql: string) => {
      if (sql.includes('WITH page AS')) statements.add(sql);
      return prepare(sql);
    }) as typeof db.prepare;
    try {
      for (const query of [
        '',
        'archived=all',
        'archived=true',
        'state=done',
        `project_id=${project.id}`,
        `project_id=${project.id}&state=paused`,
        'include_children=true',
        `parent_id=${parent.id}`,
      ])
        for (const cursor of ['', '&cursor=4']) {
          const res = await t.api('GET', `/v1/tasks?${query}${cursor}`);
          expect(res.statusCode, query).toBe(200);
        }
    } finally {
      db.prepare = prepare;
    }
    expect(statements.size).toBeGreaterThanOrEqual(8);
    for (const sql of statements) {
      // Bound values do not change a plan (no statistics are kept); any will do.
      const params = Array.from(sql.matchAll(/\?/g), () => 1);
      const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{
        parent: number;
        detail: string;
      }>;
      // The statement's own loops (parent 0), not the page's: the page may scan an index, or for
      // include_children the table in id order, up to its limit.
      const outer = plan.filter((r) => r.parent === 0).map((r) => r.detail);
      expect(outer, sql).not.toContain('SCAN t');
      expect(outer, sql).toContain('SEARCH t USING INTEGER PRIMARY KEY (rowid=?)');
    }
  });
});
