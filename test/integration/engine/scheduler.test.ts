// Caps under load (issue 4): 30 tasks, max_parallel_tasks 3 and a project cap of 1, never exceeded.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../kernel/clock/index.js';
import { QUEUE_HEAD } from '../../../kernel/scheduler/index.js';
import { buildTestApp } from '../../support/app.js';
import { act, addProject, commandWorkflow, createTask, waitState } from '../../support/tasks.js';

describe('scheduler', () => {
  it('never exceeds the global cap or a project cap, and admits by priority then age', async () => {
    const t = await buildTestApp({ config: 'max_parallel_tasks: 3\n' });
    const wf = { nap: commandWorkflow('nap', 'sleep 0.05') };
    const { project: open } = await addProject(t, wf);
    const { project: capped } = await addProject(t, wf, { max_parallel_tasks: 1 });
    const running = new Map<number, number>();
    let global = 0;
    let maxGlobal = 0;
    let maxCapped = 0;
    t.kernel.services.events.subscribe((e) => {
      if (e.kind !== 'task.state_changed') return;
      const { from, to, project_id } = e.payload as {
        from: string;
        to: string;
        project_id: number;
      };
      const holds = (s: string) => s === 'running' || s === 'awaiting_input';
      const delta = (holds(to) ? 1 : 0) - (holds(from) ? 1 : 0);
      global += delta;
      running.set(project_id, (running.get(project_id) ?? 0) + delta);
      maxGlobal = Math.max(maxGlobal, global);
      if (project_id === capped.id) maxCapped = Math.max(maxCapped, running.get(project_id) ?? 0);
    });
    const ids: number[] = [];
    for (let i = 0; i < 30; i++) {
      const project_id = i % 2 === 0 ? open.id : capped.id;
      ids.push((await createTask(t, { project_id, title: `t${i}`, workflow: 'nap' })).id);
    }
    for (const id of ids) await waitState(t, id, 'done', 60_000);
    expect(maxGlobal).toBe(3);
    expect(maxCapped).toBe(1);
    expect(global).toBe(0);
  });

  it('admits higher priority first, then older', async () => {
    const t = await buildTestApp({ config: 'max_parallel_tasks: 1\n' });
    const { project } = await addProject(t, {
      nap: commandWorkflow('nap', 'sleep 0.05'),
      hold: commandWorkflow('hold', 'sleep 60'),
    });
    const holder = await createTask(t, { project_id: project.id, title: 'hold', workflow: 'hold' });
    await waitState(t, holder.id, 'running');
    const low = await createTask(t, { project_id: project.id, title: 'low', workflow: 'nap' });
    const old = await createTask(t, {
      project_id: project.id,
      title: 'old',
      workflow: 'nap',
      priority: 5,
    });
    const high = await createTask(t, {
      project_id: project.id,
      title: 'high',
      workflow: 'nap',
      priority: 9,
    });
    const young = await createTask(t, {
      project_id: project.id,
      title: 'young',
      workflow: 'nap',
      priority: 5,
    });
    expect((await t.api('PATCH', `/v1/tasks/${low.id}`, { priority: 1 })).json().priority).toBe(1);
    const admitted: number[] = [];
    t.kernel.services.events.subscribe((e) => {
      if (e.kind === 'task.state_changed' && e.payload.to === 'running' && e.task_id)
        admitted.push(e.task_id);
    });
    await act(t, holder.id, 'cancel');
    for (const task of [low, old, high, young]) await waitState(t, task.id, 'done');
    expect(admitted).toEqual([high.id, old.id, young.id, low.id]);
  });

  it('PATCH priority is refused outside queued and paused', async () => {
    const t = await buildTestApp();
    const { project } = await addProject(t, { ok: commandWorkflow('ok', 'true') });
    const task = await waitState(
      t,
      (await createTask(t, { project_id: project.id, title: 'x', workflow: 'ok' })).id,
      'done',
    );
    const res = await t.api('PATCH', `/v1/tasks/${task.id}`, { priority: 3 });
    expect(res.statusCode).toBe(409);
    expect(res.json().error.details).toEqual({ state: 'done' });
    expect((await t.api('PATCH', `/v1/tasks/${task.id}`, { title: 'no' })).statusCode).toBe(400);
  });

  // Decision 236: a pass reads the head of a long queue; what lies past it is still seen.
  it('past the head of a long queue: pause requests park, clocks are armed, order holds', async () => {
    const clock = new FakeClock(Date.UTC(2026, 10, 27, 12));
    const t = await buildTestApp({ clock, config: 'max_parallel_tasks: 1\n' });
    const { project } = await addProject(t, {
      nap: commandWorkflow('nap', 'true'),
      hold: commandWorkflow('hold', 'sleep 60'),
    });
    const holder = await createTask(t, { project_id: project.id, title: 'hold', workflow: 'hold' });
    await waitState(t, holder.id, 'running');
    const ids: number[] = [];
    for (let i = 0; i < QUEUE_HEAD + 16; i++)
      ids.push(
        (await createTask(t, { project_id: project.id, title: `q${i}`, workflow: 'nap' })).id,
      );
    const db = t.kernel.services.store.db;
    const paused = ids[QUEUE_HEAD + 5] as number;
    const timed = ids[QUEUE_HEAD + 9] as number;
    db.prepare('UPDATE tasks SET pause_requested = 1 WHERE id = ?').run(paused);
    db.prepare(
      "UPDATE tasks SET queued_reason = 'retry_backoff', admit_not_before = ? WHERE id = ?",
    ).run(new Date(clock.now() + 3_600_000).toISOString(), timed);
    const timers = clock.pending();
    t.kernel.services.engine.poke();
    await waitState(t, paused, 'paused');
    expect(clock.pending()).toBeGreaterThan(timers);
    // The queue drains in order once the slot frees; the clocked task waits for its hour.
    const admitted: number[] = [];
    t.kernel.services.events.subscribe((e) => {
      if (e.kind === 'task.state_changed' && e.payload.to === 'running' && e.task_id)
        admitted.push(e.task_id);
    });
    await act(t, holder.id, 'cancel');
    const rest = ids.filter((id) => id !== paused && id !== timed);
    for (const id of rest) await waitState(t, id, 'done', 60_000);
    expect(admitted).toEqual(rest);
    expect((await waitState(t, timed, 'queued')).admit_not_before).not.toBeNull();
    await clock.advance('1h');
    await waitState(t, timed, 'done');
  }, 120_000);
});
