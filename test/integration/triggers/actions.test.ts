// Issue 8 point 3: the four actions, replayed through the task routes: on_fire propose/create,
// permission restricted/workflow, follow_up/retry/cancel by task id or branch, a 4xx as outcome
// refused carrying the route's envelope, task_locked_by_chat, and event values kept out of
// command lines.
import { describe, expect, it } from 'vitest';
import { createTask, getTask, waitState } from '../../support/tasks.js';
import {
  CREATE_OK,
  commandTrigger,
  type TriggerWorld,
  tick,
  triggerWorld,
} from '../../support/triggers.js';

async function fire(
  w: TriggerWorld,
  id: string,
  action: string,
  top: string,
  event: Record<string, unknown>,
) {
  w.setEvents([]);
  await w.put(id, commandTrigger(w, id, action, top));
  w.setEvents([event]);
  await tick(w, '1m');
  const [row] = await w.deliveries(id);
  return row as NonNullable<typeof row>;
}

async function doneTask(w: TriggerWorld) {
  const task = await createTask(w.t, { project_id: w.project.id, title: 'base', workflow: 'ok' });
  return waitState(w.t, task.id, 'done');
}

describe('create_task', () => {
  it('on_fire: create and permission: workflow run the task as the workflow says', async () => {
    const w = await triggerWorld();
    const row = await fire(
      w,
      'go',
      `${CREATE_OK}  permission: workflow\n  description: "from {{.Event.id}}"\n  priority: 3\n`,
      'on_fire: create\n',
      { id: 'e1' },
    );
    expect(row.outcome).toBe('fired');
    const task = await waitState(w.t, row.task_id as number, 'done');
    expect(task).toMatchObject({
      restricted: false,
      description: 'from e1',
      priority: 3,
      triggered_by: 'go',
    });
    const list = await w.t.json<{
      triggers: Array<{ id: string; on_fire: string; permission: string }>;
    }>('GET', '/v1/triggers');
    expect(list.triggers[0]).toMatchObject({ on_fire: 'create', permission: 'workflow' });
    const fired = w.t.kernel.services.events.query({
      afterId: 0,
      limit: 100,
      kinds: ['trigger.fired'],
    });
    expect(fired).toHaveLength(1);
    expect(fired[0]).toMatchObject({ trigger_id: 'go', task_id: row.task_id });
  });

  it('a route refusal is outcome refused with the envelope, and does not hold the dedupe key', async () => {
    const w = await triggerWorld();
    const row = await fire(
      w,
      'nowf',
      '  type: create_task\n  title: "x"\n  workflow: missing\n',
      '',
      { id: 'e1' },
    );
    expect(row.outcome).toBe('refused');
    expect(row.detail).toMatchObject({ error: { code: 'validation_failed' } });
    expect(await w.t.json('POST', '/v1/triggers/nowf/test', { event: { id: 'e1' } })).toMatchObject(
      { would_dedupe: false },
    );
    expect(
      w.t.kernel.services.events.query({ afterId: 0, limit: 10, kinds: ['trigger.refused'] }),
    ).toHaveLength(1);
  });
});

describe('reactions', () => {
  it('follow_up by task id, proposed: the follow-up lands held (paused)', async () => {
    const w = await triggerWorld();
    const base = await doneTask(w);
    const row = await fire(
      w,
      'fu',
      '  type: follow_up\n  task: "{{.Event.task}}"\n  run: "echo follow"\n',
      '',
      { id: 'e', task: base.id },
    );
    expect(row).toMatchObject({ outcome: 'fired', task_id: base.id });
    const task = await getTask(w.t, base.id);
    expect(task.state).toBe('paused');
    expect(task.follow_up).toMatchObject({ origin: 'done', round: 1 });
  });

  it('follow_up with on_fire: create runs, and a reaction dry run carries task_id and branch', async () => {
    const w = await triggerWorld();
    const base = await doneTask(w);
    w.setEvents([]);
    await w.put(
      'fu2',
      commandTrigger(
        w,
        'fu2',
        '  type: follow_up\n  branch: "{{.Event.branch}}"\n  prompt: "Look at {{.Event.title}}"\n',
        'on_fire: create\n',
      ),
    );
    const dry = await w.t.json<Record<string, unknown>>('POST', '/v1/triggers/fu2/test', {
      event: { id: 'e', branch: base.branch_name, title: 'say {{.Task.Title}}' },
    });
    expect(dry.action).toEqual({
      type: 'follow_up',
      method: 'POST',
      path: `/v1/tasks/${base.id}/follow_up`,
      // The engine renders a follow-up prompt again: event text arrives as a literal.
      body: { prompt: 'Look at {{"say {{.Task.Title}}"}}' },
      task_id: base.id,
      branch: base.branch_name,
    });
    const none = await w.t.json<Record<string, unknown>>('POST', '/v1/triggers/fu2/test', {
      event: { id: 'x', branch: 'nope' },
    });
    expect(none).toMatchObject({ outcome: 'refused' });
  });

  it('an event value printed into a command line is refused before any route is asked', async () => {
    const w = await triggerWorld();
    const base = await doneTask(w);
    const row = await fire(
      w,
      'sh',
      '  type: follow_up\n  task: "{{.Event.task}}"\n  run: "echo {{.Event.title}}"\n',
      'on_fire: create\n',
      {
        id: 'e',
        task: base.id,
        title: '$(touch /tmp/pwned)',
      },
    );
    expect(row.outcome).toBe('error');
    expect(JSON.stringify(row.detail)).toContain('cannot be printed into a command line');
    expect((await getTask(w.t, base.id)).state).toBe('done');
  });

  it('retry a blocked task (held when proposed) and cancel by branch', async () => {
    const w = await triggerWorld();
    const failing = await createTask(w.t, {
      project_id: w.project.id,
      title: 'f',
      workflow: 'fail',
    });
    await waitState(w.t, failing.id, 'blocked');
    const row = await fire(w, 're', '  type: retry\n  task: "{{.Event.task}}"\n', '', {
      id: 'e',
      task: failing.id,
    });
    expect(row).toMatchObject({ outcome: 'fired', task_id: failing.id });
    expect((await getTask(w.t, failing.id)).state).toBe('paused');

    const c = await fire(
      w,
      'cx',
      '  type: cancel\n  branch: "{{.Event.branch}}"\n',
      'on_fire: create\n',
      { id: 'e', branch: failing.branch_name },
    );
    expect(c).toMatchObject({ outcome: 'fired', task_id: failing.id });
    expect((await getTask(w.t, failing.id)).state).toBe('aborted');
  });

  it('a refused reaction carries the envelope and releases its hold', async () => {
    const w = await triggerWorld();
    const paused = await createTask(w.t, {
      project_id: w.project.id,
      title: 'p',
      workflow: 'ok',
      paused: true,
    });
    const row = await fire(
      w,
      'no',
      '  type: follow_up\n  task: "{{.Event.task}}"\n  run: "true"\n',
      '',
      { id: 'e', task: paused.id },
    );
    expect(row.outcome).toBe('refused');
    expect(row.detail).toEqual({
      error: { code: 'invalid_state', message: expect.any(String), details: { state: 'paused' } },
    });
    expect((await getTask(w.t, paused.id)).pause_requested).toBe(false);
    const unknown = await fire(
      w,
      'unk',
      '  type: cancel\n  task: "{{.Event.task}}"\n',
      'on_fire: create\n',
      { id: 'e', task: 9999 },
    );
    expect(unknown).toMatchObject({ outcome: 'refused', detail: { error: { code: 'not_found' } } });
  });

  it('respects task_locked_by_chat: reactions are refused while a chat is open, cancel still acts', async () => {
    const w = await triggerWorld();
    const base = await doneTask(w);
    w.t.kernel.services.engine.openChat = (id) => (id === base.id ? 42 : null);
    const row = await fire(
      w,
      'lk',
      '  type: follow_up\n  task: "{{.Event.task}}"\n  run: "true"\n',
      '',
      { id: 'e', task: base.id },
    );
    expect(row).toMatchObject({
      outcome: 'refused',
      detail: { error: { code: 'task_locked_by_chat', details: { chat_id: 42 } } },
    });
    expect((await getTask(w.t, base.id)).pause_requested).toBe(false);
  });
});
