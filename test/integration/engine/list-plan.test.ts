// Issue 22 point 3 (decision 237): a page of GET /v1/tasks reads the rows it returns and no others.
// Without a cursor (every first page, every `svc task list`), SQLite once preferred to scan the
// whole tasks table in id order, row by row through every snapshot, rather than sort the page:
// 35 ms for a first page of 100 at 10,000 tasks, growing with the history. A page reads its ids
// first, from an index for every filter (decision 244), then its rows by those ids: the plan of the
// rows' statement must read tasks by id from the page, never scan the table.
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
    const pages = new Set<string>();
    const prepare = db.prepare.bind(db);
    db.prepare = ((sql: string) => {
      if (sql.includes('WITH page AS')) statements.add(sql);
      if (sql.trimStart().startsWith('SELECT t.id FROM tasks t')) pages.add(sql);
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
    // Bound values do not change a plan (no statistics are kept); any will do.
    const planOf = (sql: string) =>
      db
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .all(...Array.from(sql.matchAll(/\?/g), () => 1)) as Array<{
        parent: number;
        detail: string;
      }>;
    // One statement reads the rows of every filter's page.
    expect(statements.size).toBe(1);
    for (const sql of statements) {
      // The statement's own loops (parent 0), not the page's.
      const outer = planOf(sql)
        .filter((r) => r.parent === 0)
        .map((r) => r.detail);
      expect(outer, sql).not.toContain('SCAN t');
      expect(outer, sql).toContain('SEARCH t USING INTEGER PRIMARY KEY (rowid=?)');
      // The page's spend: one grouped pass over the covering index, no lookups per row.
      const all = planOf(sql).map((r) => r.detail);
      expect(all, sql).toContain('SEARCH s USING COVERING INDEX step_runs_spend (task_id=?)');
      expect(all.filter((d) => d.startsWith('CORRELATED')), sql).toEqual([]);
    }
    // Each filter's page of ids, with and without a cursor: from an index, in id order, or for
    // include_children the table in id order, up to the page's limit.
    expect(pages.size).toBeGreaterThanOrEqual(14);
    for (const sql of pages) {
      const plan = planOf(sql).map((r) => r.detail);
      if (sql.includes('parent_task_id IS NULL') || sql.includes('parent_task_id = ?'))
        expect(plan.join('; '), sql).toMatch(/^(SCAN|SEARCH) t USING INDEX /);
      else
        expect(plan.join('; '), sql).toMatch(
          /^(SCAN t|SEARCH t USING INTEGER PRIMARY KEY \(rowid<\?\))$/,
        );
      if (!sql.includes('lane_order')) expect(plan.join('; '), sql).not.toContain('TEMP B-TREE');
    }
  });
});
