// Decision 250: GET /v1/tasks keeps each row's text between requests. A kept text must never
// outlive a change to anything its row shows: for every kind of write (the API's own, the
// engine's tables, and a bare statement on the daemon's connection, as code written later would
// make), the list read after the write shows the change and equals the rows built afresh by
// `engine.list`, which keeps nothing.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { newStepRun } from '../../../kernel/store/index.js';
import { buildTestApp, type TestApp } from '../../support/app.js';
import { linkChat, type Row, seedEveryKindOfRow } from '../../support/list-seed.js';
import { addProject, commandWorkflow, createTask } from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';

const FOR_EACH = `name: each
steps:
  - id: over
    type: loop
    for_each: "a b c"
    steps:
      - id: one
        type: command
        run: "true"
`;

const QUERY = { archived: 'all', include_children: 'true', limit: 1000 } as const;

/** The list as GET /v1/tasks serves it (kept texts where it has them). */
async function served(t: TestApp): Promise<Map<string, Row>> {
  const res = await t.api('GET', '/v1/tasks?archived=all&include_children=true&limit=1000');
  expect(res.statusCode).toBe(200);
  const rows = res.json() as Row[];
  // Built afresh, row by row, nothing kept: the served list must be exactly this.
  const fresh = JSON.parse(JSON.stringify(t.kernel.services.engine.list(QUERY).rows)) as Row[];
  expect(rows).toStrictEqual(fresh);
  return new Map(rows.map((r) => [r.title as string, r]));
}

describe('the list keeps row texts only while nothing they show changes', () => {
  it('a write to a task, its attempts, its chats, its pull request or its project shows at once', async () => {
    const t = await buildTestApp({ kernel: { startEngine: false } });
    const { a, loop } = await seedEveryKindOfRow(t);
    const s = t.kernel.services;
    const db = s.store.db;
    const before = await served(t);
    const done = before.get('done one') as Row;
    const linked = before.get('forge and trigger') as Row;
    // Served twice, the second time from kept texts.
    expect(await served(t)).toStrictEqual(before);

    // The API's own write (tasks).
    const queued = before.get('waits for a clock') as Row;
    await t.json('PATCH', `/v1/tasks/${queued.id}`, { priority: 9 });
    expect((await served(t)).get('waits for a clock')?.priority).toBe(9);

    // An attempt's spend (step_runs: an insert, then an update).
    const run = s.engine.runs.insert(
      newStepRun({
        task_id: done.id,
        step_index: 0,
        step_id: 'run',
        step_name: 'run',
        step_type: 'command',
        attempt: 3,
        state: 'succeeded',
        exit_code: 0,
        counts_retry: 1,
        cost_usd: 1,
        started_at: '2026-11-27T10:00:00.000Z',
        finished_at: '2026-11-27T10:00:01.000Z',
      }),
    );
    expect((await served(t)).get('done one')?.cost_usd).toBe(1.75);
    db.prepare('UPDATE step_runs SET cost_usd = 2, output_tokens = 40 WHERE id = ?').run(run);
    expect((await served(t)).get('done one')).toMatchObject({ cost_usd: 2.75, output_tokens: 47 });

    // A loop's progress (step_runs at the loop's step).
    s.engine.runs.insert(
      newStepRun({
        task_id: loop,
        step_index: 1,
        step_id: 'attempt',
        step_name: 'attempt',
        step_type: 'command',
        attempt: 1,
        iteration: 3,
        loop_total: 3,
        state: 'running',
        counts_retry: 1,
        started_at: '2026-11-27T10:00:00.000Z',
      }),
    );
    expect((await served(t)).get('in a loop')?.loop).toMatchObject({ iteration: 3 });

    // A chat opened on the task, then closed (chats).
    const chat = linkChat(t, a, done.id, 'idle');
    const opened = (await served(t)).get('done one');
    expect(opened?.open_chat_id).toBe(chat);
    db.prepare("UPDATE chats SET state = 'closed' WHERE id = ?").run(chat);
    expect((await served(t)).get('done one')).not.toHaveProperty('open_chat_id');

    // The pull request's last look (forge_pull_state).
    db.prepare(
      `INSERT INTO forge_pull_state (task_id, state, head_sha, checked_at, error)
       VALUES (?, 'merged', 'abc', '2026-11-27T10:00:00.000Z', NULL)
       ON CONFLICT(task_id) DO UPDATE SET state = 'merged', head_sha = 'abc'`,
    ).run(linked.id);
    expect((await served(t)).get('forge and trigger')?.forge_pull).toMatchObject({
      live: { state: 'merged', head_sha: 'abc' },
    });

    // The project's name, shown on every one of its rows.
    await t.json('PATCH', `/v1/projects/${a}`, { name: 'renamed' });
    const renamed = await served(t);
    expect(renamed.get('done one')?.project_name).toBe('renamed');
    expect(renamed.get('at the gate')?.project_name).toBe('renamed');

    // A bare statement on the daemon's connection, as code written after the cache would make.
    db.prepare("UPDATE tasks SET title = 'retitled' WHERE id = ?").run(done.id);
    expect((await served(t)).get('retitled')?.id).toBe(done.id);
  });

  it('a configuration reload shows in the rows that read it (the loop ceiling)', async () => {
    const t = await buildTestApp({ kernel: { startEngine: false } });
    const { project } = await addProject(t, { each: FOR_EACH });
    const task = await createTask(t, {
      project_id: project.id,
      title: 'loops',
      workflow: 'each',
      paused: true,
    });
    t.kernel.services.store.db
      .prepare("UPDATE tasks SET state = 'running', current_step = 0 WHERE id = ?")
      .run(task.id);
    const ceiling = (await served(t)).get('loops')?.loop as { max_iterations: number };
    await t.json('PATCH', '/v1/config', { loop: { max_iterations: ceiling.max_iterations + 5 } });
    expect((await served(t)).get('loops')?.loop).toMatchObject({
      max_iterations: ceiling.max_iterations + 5,
    });
  });

  it('a row that reads its worktree is built afresh: a merge begun by hand withholds skip at once', async () => {
    const t = await buildTestApp({ kernel: { startEngine: false } });
    const { project } = await addProject(t, { one: commandWorkflow('one', 'true') });
    const task = await createTask(t, {
      project_id: project.id,
      title: 'stuck',
      workflow: 'one',
      paused: true,
    });
    const worktree = tempDir();
    mkdirSync(join(worktree, '.git'));
    t.kernel.services.store.db
      .prepare(
        "UPDATE tasks SET state = 'blocked', block_reason = 'step_failed', worktree_path = ? WHERE id = ?",
      )
      .run(worktree, task.id);
    const actions = async () => (await served(t)).get('stuck')?.available_actions as string[];
    expect(await actions()).toContain('skip');
    // Nothing is written to the database: the person started a merge in the worktree.
    writeFileSync(join(worktree, '.git', 'MERGE_HEAD'), 'abc\n');
    expect(await actions()).not.toContain('skip');
  });
});
