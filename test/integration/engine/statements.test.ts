/**
 * What a one-step task costs the database (issue 22 point 2, decision 245): every statement the
 * daemon runs between a task's create and its done, counted on the real connection. The project
 * row is kept between changes, a state change answers the row it wrote, and an admission pass's
 * own admission and a runner's end ask for no further pass. A count, not a time: a change that
 * adds work to every task shows up here whatever the machine.
 */
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ProjectsTable, Store } from '../../../kernel/store/index.js';
import { buildTestApp, type TestApp } from '../../support/app.js';
import { addProject, commandWorkflow, createTask } from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';

type Method = 'run' | 'get' | 'all' | 'iterate';
const METHODS: Method[] = ['run', 'get', 'all', 'iterate'];

/** Every statement run on connections opened after this, by SQL text (whitespace folded). */
const counted = new Map<string, number>();
/** Transactions committed while counting (each appends its pages to the write-ahead log). */
let commits = 0;
const CONTROL = /^(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)\b/;
let counting = false;
/** Statements compiled while this is set (the test's own reader) are never counted. */
let own = false;
const proto = Database.prototype as unknown as { prepare(sql: string): unknown };
const compile = proto.prepare;
proto.prepare = function (this: Database.Database, sql: string) {
  const statement = compile.call(this, sql) as Record<Method, (...a: unknown[]) => unknown>;
  if (own) return statement;
  const key = sql.replace(/\s+/g, ' ').trim();
  for (const m of METHODS) {
    const call = statement[m];
    statement[m] = function (this: unknown, ...args: unknown[]) {
      if (counting) {
        counted.set(key, (counted.get(key) ?? 0) + 1);
        // A commit: the end of a transaction, or a write made outside one (its own transaction).
        const { reader, database } = this as { reader: boolean; database: Database.Database };
        if (key === 'COMMIT' || (!reader && !database.inTransaction && !CONTROL.test(key)))
          commits++;
      }
      return call.apply(this, args);
    };
  }
  return statement;
};

const TASKS = 6;
let t: TestApp;
let perTask: (match: (sql: string) => boolean) => number;
let passes = 0;

/** The statements per task, most frequent first: what a failing count shows. */
function breakdown(): string {
  return [...counted]
    .sort((x, y) => y[1] - x[1])
    .map(([sql, n]) => `${(n / TASKS).toFixed(1)}  ${sql.slice(0, 120)}`)
    .join('\n');
}

beforeAll(async () => {
  t = await buildTestApp({ config: 'max_parallel_tasks: 2\n', keepOpen: true });
  const scheduler = t.kernel.services.scheduler;
  const pass = scheduler.pass.bind(scheduler);
  scheduler.pass = () => {
    if (counting) passes++;
    pass();
  };
  const { project } = await addProject(t, { one: commandWorkflow('one', 'true') });
  const post = () => createTask(t, { project_id: project.id, title: 't', workflow: 'one' });
  // Read from a connection of its own, whose statements are not counted.
  own = true;
  const side = new Database(t.paths.dbFile, { readonly: true });
  const done = side.prepare("SELECT COUNT(*) FROM tasks WHERE state = 'done'").pluck();
  own = false;
  const until = async (n: number) => {
    while ((done.get() as number) < n) await new Promise((r) => setTimeout(r, 10));
    // The last transition's listeners and the runner's end run after the commit a reader sees.
    await t.kernel.services.engine.runner.idle();
  };
  await post();
  await until(1);
  counting = true;
  for (let i = 0; i < TASKS; i++) await post();
  await until(1 + TASKS);
  counting = false;
  side.close();
  perTask = (match) => {
    let n = 0;
    for (const [sql, k] of counted) if (match(sql)) n += k;
    return n / TASKS;
  };
}, 60_000);

afterAll(async () => {
  proto.prepare = compile;
  await t?.close();
});

describe('a one-step task', () => {
  test('runs at most 50 statements from create to done (63 before decision 245, 50 before a step’s context took its attempt from its runs)', () => {
    expect(
      perTask(() => true),
      breakdown(),
    ).toBeLessThanOrEqual(49);
  });

  test('reads its task row whole at most 5 times (9 before decision 245, 7 before the runner read its progress alone)', () => {
    expect(
      perTask((sql) => sql === 'SELECT * FROM tasks WHERE id = ?'),
      breakdown(),
    ).toBeLessThanOrEqual(5);
  });

  test('never reads its project row again once it was read', () => {
    expect(perTask((sql) => sql.startsWith('SELECT * FROM projects WHERE id'))).toBe(0);
  });

  test('its state changes answer the row they wrote', () => {
    const returning = perTask(
      (sql) => sql.startsWith('UPDATE tasks SET') && sql.endsWith('RETURNING *'),
    );
    expect(returning).toBe(2); // queued → running, running → done
  });

  test('commits at most 7 transactions (8 before its uncommitted changes joined its close)', () => {
    expect(commits / TASKS, breakdown()).toBeLessThanOrEqual(7);
  });

  test('asks the scheduler for two admission passes: its create and its end', () => {
    expect(passes / TASKS).toBeLessThanOrEqual(2);
  });
});

describe('a page of a step run’s transcript', () => {
  test('reads one row: five columns of the run, neither the task nor the whole run', async () => {
    const [run] = await t.json<Array<{ id: number }>>('GET', '/v1/tasks/1/steps');
    const before = new Map(counted);
    counting = true;
    const pages = 4;
    for (let i = 0; i < pages; i++) {
      const res = await t.api('GET', `/v1/tasks/1/steps/${run?.id}/transcript`);
      expect(res.statusCode).toBe(200);
    }
    counting = false;
    const ran = [...counted]
      .map(([sql, n]) => [sql, n - (before.get(sql) ?? 0)] as const)
      .filter(([, n]) => n > 0);
    // A follower asks for page after page while its step runs (decision 252).
    expect(ran).toEqual([
      ['SELECT id, task_id, agent, state, transcript_path FROM step_runs WHERE id = ?', pages],
    ]);
  });
});

describe('the project rows kept between changes', () => {
  test('a write rolled back is never served; a committed one is served at once', () => {
    const store = new Store(new Database(`${tempDir()}/p.db`));
    store.db.exec(
      `CREATE TABLE projects (id INTEGER PRIMARY KEY, name TEXT, path TEXT, default_branch TEXT,
       default_workflow TEXT, max_parallel_tasks INTEGER, branch_template TEXT, created_at TEXT,
       updated_at TEXT)`,
    );
    const a = new ProjectsTable(store.db);
    const b = new ProjectsTable(store.db); // the scheduler's own table on the same connection
    const { id } = a.insert({
      name: 'p',
      path: '/p',
      default_branch: 'main',
      default_workflow: null,
      max_parallel_tasks: 1,
      branch_template: null,
      created_at: '2026-11-28T00:00:00.000Z',
      updated_at: '2026-11-28T00:00:00.000Z',
    });
    expect(b.get(id)?.max_parallel_tasks).toBe(1);
    expect(() =>
      store.tx(() => {
        a.update(id, { max_parallel_tasks: 5 });
        expect(b.get(id)?.max_parallel_tasks).toBe(5); // the transaction sees its own write
        throw new Error('rolled back');
      }),
    ).toThrow('rolled back');
    expect(b.get(id)?.max_parallel_tasks).toBe(1);
    a.update(id, { max_parallel_tasks: 3 });
    expect(b.get(id)?.max_parallel_tasks).toBe(3);
    const row = b.get(id) as { max_parallel_tasks: number | null };
    expect(() => {
      row.max_parallel_tasks = 9;
    }).toThrow(TypeError);
    a.delete(id);
    expect(b.get(id)).toBeUndefined();
  });
});
