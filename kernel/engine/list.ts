/**
 * The task list (`GET /v1/tasks`, MCP `tasks_list`, `svc task list`): set-based reads per page
 * (issue 22 point 3, decisions 233 and 244). The page's ids come first, from an index in `id`
 * order (migration 0015); the open chats of the page are one read for those ids, by the chats'
 * hook; then one statement, stepped through row by row, joins each row's project name, its
 * current step's name and type (from `steps_outline`, never the snapshot), and the cost and token
 * sums of its attempts (one grouped read of the covering index `step_runs_spend` for the page).
 * A row reads every column but the workflow snapshot; the snapshot of a task whose current step
 * shows the loop view (its type declares `view: 'loop'`, decision 225; the set is a bound
 * parameter of the same statement) is read for that step alone (the loop decorator needs it).
 * Rows are the detail's rows less its detail-only keys (test/integration/engine/list-rows.test.ts).
 */
import type { Db, TaskRow } from '../store/index.js';
import type { StepDef, WorkflowSnapshot } from './model.js';
import { listView, type ViewContext } from './views.js';

export interface ListQuery {
  archived?: 'true' | 'false' | 'all';
  project_id?: number;
  state?: string;
  parent_id?: number;
  include_children?: 'true' | 'false';
  limit?: number;
  cursor?: number;
}

/** What the statement adds to a task's columns. */
interface Extra {
  __project: string | null;
  __step: string | number | null;
  __step_type: string | null;
  __loop_step: string | null;
  __cost: number | null;
  __input: number | null;
  __output: number | null;
}

type ListedRow = TaskRow & Extra;

/**
 * Columns the list never reads: the snapshot is the bulk of a row (its outline is read instead),
 * and a row leaves out the task's prompt (up to 1 MiB; the detail carries it).
 */
const UNREAD = new Set(['workflow_snapshot', 'steps_outline', 'prompt']);

/** What the statement selects after the task's columns, in order. */
const EXTRA: Array<keyof Extra> = [
  '__project',
  '__step',
  '__step_type',
  '__loop_step',
  '__cost',
  '__input',
  '__output',
];

/**
 * A function turning a row's values (in `names` order) into an object keyed by `names`, compiled
 * once per connection. A loop of keyed stores building a 60-key object cost about a quarter of a
 * whole-list walk's JavaScript (each store a map transition through a megamorphic cache); one
 * object literal per row costs next to nothing (decision 244). `names` are column names from our
 * own schema and our own aliases, checked here to be plain identifiers before any is compiled.
 */
function rowBuilder(names: readonly string[]): (values: unknown[]) => ListedRow {
  // `__proto__` is an identifier too, but as a literal's key it sets the prototype.
  for (const name of names)
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || name === '__proto__')
      throw new Error(`not a column name: ${name}`);
  const literal = names.map((name, i) => `${name}: v[${i}]`).join(', ');
  return new Function('v', `return { ${literal} };`) as (values: unknown[]) => ListedRow;
}

export class TaskLister {
  private readonly row: (values: unknown[]) => ListedRow;
  private readonly columns: string;
  private loopTypes: string | null = null;

  /** `loopViewTypes`: the step types that show the loop view, asked once (the registry is frozen by then). */
  constructor(
    private readonly db: Db,
    private readonly loopViewTypes: () => readonly string[],
  ) {
    const all = db.prepare('PRAGMA table_info(tasks)').all() as Array<{ name: string }>;
    const read = all.map((c) => c.name).filter((n) => !UNREAD.has(n));
    this.columns = read.map((n) => `t.${n}`).join(', ');
    this.row = rowBuilder([...read, ...EXTRA]);
  }

  /**
   * The ids of one page: `limit` of them (at most one more is read, to tell whether another page
   * follows) under the filters and cursor of `q`, newest first; a parent's lanes in lane order,
   * whole. Read before the rows, so what the view needs across the page (its open chats) is known
   * before the first row is built (decision 244).
   */
  ids(q: ListQuery, limit: number): { ids: number[]; more: boolean } {
    const where: string[] = [];
    const params: unknown[] = [];
    if (q.state) {
      where.push('t.state = ?');
      params.push(q.state);
    } else if (q.archived === 'true') where.push("t.state = 'archived'");
    else if (q.archived !== 'all') where.push("t.state <> 'archived'");
    if (q.project_id !== undefined) {
      where.push('t.project_id = ?');
      params.push(q.project_id);
    }
    if (q.parent_id !== undefined) {
      where.push('t.parent_task_id = ?');
      params.push(q.parent_id);
    } else if (q.include_children !== 'true') where.push('t.parent_task_id IS NULL');
    if (q.cursor !== undefined) {
      where.push('t.id < ?');
      params.push(q.cursor);
    }
    const order = q.parent_id !== undefined ? 't.lane_order, t.id' : 't.id DESC';
    const ids = this.db
      .prepare(
        `SELECT t.id FROM tasks t ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
         ORDER BY ${order} LIMIT ?`,
      )
      .pluck(true)
      .all(...params, limit + 1) as number[];
    const more = ids.length > limit;
    if (more) ids.length = limit;
    return { ids, more };
  }

  /**
   * The rows of `ids`, in that order, each handed to `each` as SQLite steps to it: no page of rows
   * is ever held, so each row and what is built from it die young (decision 244). `each` may read
   * the database but not write it (the connection is busy until the last row).
   */
  each(ids: readonly number[], each: (row: ListedRow) => void): void {
    if (ids.length === 0) return;
    const step = "'$[' || t.current_step || ']'";
    // The page drives the join (CROSS JOIN, which SQLite never reorders): its rows are read by
    // primary key, never by scanning the table (decisions 237, 244). `key` is the id's place in
    // the page, so the rows come in the order the ids were read. The spend of the page's attempts
    // is one grouped pass over the covering index `step_runs_spend`, not three lookups a row.
    const sql = `WITH page AS MATERIALIZED (SELECT key AS place, value AS id FROM json_each(?))
      SELECT ${this.columns}, p.name,
        json_extract(t.steps_outline, ${step} || '[0]'),
        json_extract(t.steps_outline, ${step} || '[1]'),
        CASE WHEN json_extract(t.steps_outline, ${step} || '[1]') IN (SELECT value FROM json_each(?))
          THEN json_extract(t.workflow_snapshot, '$.steps[' || t.current_step || ']') END,
        sp.cost, sp.input, sp.output
      FROM page CROSS JOIN tasks t ON t.id = page.id
      LEFT JOIN projects p ON p.id = t.project_id
      LEFT JOIN (SELECT s.task_id, SUM(s.cost_usd) AS cost, SUM(s.input_tokens) AS input,
                        SUM(s.output_tokens) AS output
                 FROM step_runs s WHERE s.task_id IN (SELECT id FROM page) GROUP BY s.task_id) sp
        ON sp.task_id = t.id
      ORDER BY page.place`;
    // Arrays, not objects, from SQLite: building a 50-key object per row in the binding cost more
    // than the rest of the page (decision 233).
    const rows = this.db
      .prepare(sql)
      .raw(true)
      .iterate(JSON.stringify(ids), this.loopTypesJson()) as IterableIterator<unknown[]>;
    for (const values of rows) each(this.row(values));
  }

  private loopTypesJson(): string {
    this.loopTypes ??= JSON.stringify(this.loopViewTypes());
    return this.loopTypes;
  }

  /**
   * What turns a row of `each` into its list row, as the detail shows it. The route builds and
   * stringifies rows one at a time with it, so a page's views die young instead of outliving the
   * daemon's small young generation (decisions 237, 244).
   */
  viewer(
    ctx: Omit<ViewContext, 'projectName' | 'openChat'>,
    openChats: Map<number, number>,
  ): (r: ListedRow) => Record<string, unknown> {
    // A row's own project is the one its view names; the row carries its name.
    const names = new Map<number, string>();
    const context: ViewContext = {
      ...ctx,
      projectName: (id) => names.get(id) ?? '',
      openChat: (id) => openChats.get(id) ?? null,
    };
    return (r) => {
      names.set(r.project_id, r.__project ?? '');
      const name = r.__step === null ? '' : r.__step;
      const steps: StepDef[] = [];
      if (r.__loop_step !== null) steps[r.current_step] = JSON.parse(r.__loop_step) as StepDef;
      else if (r.__step !== null)
        steps[r.current_step] = { id: String(name), name: String(name), type: r.__step_type ?? '' };
      const snap = { name: r.workflow, steps } as unknown as WorkflowSnapshot;
      return listView(r, context, snap, name as string, {
        cost_usd: r.__cost,
        input_tokens: r.__input ?? 0,
        output_tokens: r.__output ?? 0,
      });
    };
  }
}
