// Issue 11 point 1: GET /v1/tasks pages (decision 130, docs/api.md "Listing tasks") so a list
// costs the same at 10,000 tasks as at 100; `svc task list` follows the cursor.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../../cli/index.js';
import { pathsFor } from '../../../kernel/daemon/paths.js';
import { LIST_PAGE_DEFAULT, LIST_PAGE_MAX } from '../../../kernel/engine/index.js';
import { runDaemon } from '../../../kernel/listener.js';
import { buildTestApp } from '../../support/app.js';
import { gitRepo } from '../../support/git.js';
import { tempDir } from '../../support/tmp.js';

/** Task rows straight into the store: 230 creates through the API would spend seconds on git. */
function seedTasks(db: import('../../../kernel/store/index.js').Db, projectId: number, n: number) {
  const [first] = db.prepare('SELECT * FROM tasks ORDER BY id LIMIT 1').all() as Array<
    Record<string, unknown>
  >;
  if (!first) throw new Error('seed needs one real task to copy');
  const { id: _id, ...row } = first;
  const keys = Object.keys(row);
  const ins = db.prepare(
    `INSERT INTO tasks (${keys.join(', ')}) VALUES (${keys.map((k) => `@${k}`).join(', ')})`,
  );
  db.transaction(() => {
    for (let i = 0; i < n; i++)
      ins.run({ ...row, project_id: projectId, branch_name: `seed/${i}`, title: `seed ${i}` });
  })();
}

describe('GET /v1/tasks pages', () => {
  it('answers 100 rows newest first with X-Next-Cursor, and the cursor walks every row once', async () => {
    const t = await buildTestApp();
    const repo = gitRepo();
    const project = await t.json<{ id: number }>('POST', '/v1/projects', { path: repo.path });
    await t.json('POST', '/v1/tasks', { project_id: project.id, title: 'first', paused: true });
    seedTasks(t.kernel.services.store.db, project.id, 229);

    const first = await t.api('GET', '/v1/tasks');
    const rows = first.json() as Array<{ id: number }>;
    expect(rows).toHaveLength(LIST_PAGE_DEFAULT);
    expect(rows[0]?.id).toBe(230);
    expect(first.headers['x-next-cursor']).toBe(String(rows.at(-1)?.id));

    const seen: number[] = [];
    let cursor: string | undefined;
    do {
      const res = await t.api('GET', `/v1/tasks?limit=70${cursor ? `&cursor=${cursor}` : ''}`);
      const page = res.json() as Array<{ id: number }>;
      seen.push(...page.map((r) => r.id));
      cursor = res.headers['x-next-cursor'] as string | undefined;
    } while (cursor);
    expect(seen).toEqual(Array.from({ length: 230 }, (_, i) => 230 - i));

    const all = await t.api('GET', `/v1/tasks?limit=${LIST_PAGE_MAX}`);
    expect(all.json()).toHaveLength(230);
    expect(all.headers['x-next-cursor']).toBeUndefined();
  });

  it.each(['0', String(LIST_PAGE_MAX + 1), '-1', 'ten', '1e3'])(
    'refuses limit=%s naming the bounds',
    async (limit) => {
      const t = await buildTestApp();
      const res = await t.api('GET', `/v1/tasks?limit=${limit}`);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({
        error: { code: 'validation_failed', details: { field: 'limit' } },
      });
    },
  );

  it('svc task list follows the cursor past the first page; --limit stops early', async () => {
    const root = tempDir();
    const env = { SVC_CONFIG_DIR: join(root, 'config'), SVC_DATA_DIR: join(root, 'data') };
    const daemon = await runDaemon(pathsFor(env.SVC_CONFIG_DIR, env.SVC_DATA_DIR));
    try {
      const repo = gitRepo();
      const out: string[] = [];
      const run = (...argv: string[]) =>
        main(argv, env, { out: (s) => out.push(s), err: (s) => out.push(s) });
      await run('project', 'add', repo.path);
      expect(await run('task', 'create', '--project', '1', '--title', 'first', '--paused')).toBe(0);
      seedTasks(daemon.kernel.services.store.db, 1, 149);
      out.length = 0;
      expect(await run('task', 'list', '--json')).toBe(0);
      expect(JSON.parse(out.join('\n'))).toHaveLength(150);
      out.length = 0;
      expect(await run('task', 'list', '--json', '--limit', '120')).toBe(0);
      expect(JSON.parse(out.join('\n'))).toHaveLength(120);
    } finally {
      await daemon.stop();
    }
  });
});
