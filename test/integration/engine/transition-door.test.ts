// The one door of task state writes (issue 21 point 1, decision 222): a move the transition table
// does not declare is refused as an internal error naming the state and the event, the row and the
// event log untouched; nothing else can write `tasks.state`.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TaskRow } from '../../../kernel/store/index.js';
import { buildTestApp, type TestApp } from '../../support/app.js';
import { addProject, createTask, waitState } from '../../support/tasks.js';

const WORKFLOWS = { ok: 'name: ok\nsteps:\n  - id: o\n    type: command\n    run: "true"\n' };

let app: TestApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function pausedTask() {
  const t = await buildTestApp();
  app = t;
  const { project } = await addProject(t, WORKFLOWS);
  const task = await createTask(t, {
    project_id: project.id,
    title: 'p',
    workflow: 'ok',
    paused: true,
  });
  await waitState(t, task.id, 'paused');
  const { engine, store } = t.kernel.services;
  const stateEvents = () =>
    store.db
      .prepare("SELECT COUNT(*) FROM events WHERE kind = 'task.state_changed' AND task_id = ?")
      .pluck()
      .get(task.id);
  return { t, id: task.id, engine, stateEvents };
}

describe('the transition door', () => {
  it('refuses an undeclared move with an internal error naming state and event', async () => {
    const { id, engine, stateEvents } = await pausedTask();
    const before = stateEvents();
    let caught: unknown;
    try {
      engine.states.apply(id, 'complete', 'paused', { finished_at: 'never' });
    } catch (err) {
      caught = err;
    }
    expect(caught).toMatchObject({
      code: 'internal',
      details: { state: 'paused', event: 'complete' },
    });
    expect((caught as Error).message).toBe('undeclared task transition: complete from paused');
    const row = engine.tasks.get(id) as TaskRow;
    expect(row.state).toBe('paused');
    expect(row.finished_at).toBeNull();
    expect(stateEvents()).toBe(before);
  });

  it('refuses a pair the table declares as no move (a running pause is a request)', async () => {
    const { id, engine } = await pausedTask();
    expect(() => engine.states.apply(id, 'pause', 'running')).toThrow(
      'undeclared task transition: pause from running',
    );
  });

  it('applies a declared move, and answers null when the state moved on meanwhile', async () => {
    const { id, engine, stateEvents } = await pausedTask();
    const before = stateEvents();
    // The caller saw it queued; it is paused: the compare-and-swap loses, nothing is written.
    expect(engine.states.apply(id, 'admit', 'queued')).toBeNull();
    expect(stateEvents()).toBe(before);
    const moved = engine.states.apply(id, 'cancel', 'paused', { finished_at: 'now' });
    expect(moved?.state).toBe('aborted');
    expect(stateEvents()).toBe((before as number) + 1);
  });

  it('lets no field write carry a state', async () => {
    const { id, engine } = await pausedTask();
    const smuggled = { state: 'done' } as unknown as Parameters<typeof engine.tasks.update>[1];
    expect(() => engine.tasks.update(id, smuggled)).toThrow(/only through TaskStates.apply/);
    expect(() => engine.tasks.cas(id, 'paused', smuggled)).toThrow(/only through TaskStates.apply/);
    expect(() => engine.states.patch(id, 'paused', smuggled)).toThrow(
      /only through TaskStates.apply/,
    );
    expect(engine.tasks.get(id)?.state).toBe('paused');
  });
});

describe('the writers of tasks.state', () => {
  // Source, read as text: the door is the only caller of the store's one state writer.
  const ROOT = join(import.meta.dirname, '../../..');
  function sources(dir: string): string[] {
    return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
      .filter((e) => e.isFile() && /\.tsx?$/.test(e.name))
      .map((e) => relative(ROOT, join(e.parentPath, e.name)));
  }

  it('is TaskStates.apply alone', () => {
    const callers: string[] = [];
    const rawWriters: string[] = [];
    for (const file of ['kernel', 'plugins', 'cli'].flatMap(sources)) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      if (/\.moveState\(/.test(text)) callers.push(file);
      if (/UPDATE\s+tasks\s+SET\s+(?:(?!WHERE)[^;])*\bstate\s*=/i.test(text)) rawWriters.push(file);
    }
    expect(callers).toEqual(['kernel/engine/state.ts']);
    expect(rawWriters).toEqual([]);
  });
});
