// The bench's own client (bench/lib/env.ts `apiFor`, bench/lib/remote-watch.ts): what the
// overhead, cpu, throughput and admission sections time a task with. It speaks node:http to a
// real daemon: a create is posted with the token and answered with the task, a refusal is thrown
// naming the status, and the watcher hands over the state change that settles a task and stops
// when closed.
import { afterAll, describe, expect, it } from 'vitest';
import {
  cleanup,
  commandWorkflow,
  makeRepo,
  prepare,
  QUIET_CONFIG,
  startInProcess,
  tempRoot,
} from '../../../bench/lib/env.js';
import { RemoteWatcher, stateEventOf } from '../../../bench/lib/remote-watch.js';

describe('the bench client', () => {
  const stops: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const stop of stops) await stop();
    cleanup();
  });

  it('creates a task, sees it settle over the event stream, and names a refusal', async () => {
    const root = tempRoot();
    const repo = makeRepo(root);
    const paths = prepare(root, QUIET_CONFIG, { one: commandWorkflow('one', 'true') });
    const { daemon, api } = await startInProcess(paths);
    stops.push(() => daemon.stop());
    const watch = await RemoteWatcher.open(api);
    const project = await api.call<{ id: number }>('POST', '/v1/projects', { path: repo });
    const task = await api.call<{ id: number; state: string }>('POST', '/v1/tasks', {
      project_id: project.id,
      title: 'bench client',
      workflow: 'one',
    });
    expect(task.id).toBeGreaterThan(0);
    const settled = await watch.until(task.id);
    expect(settled).toMatchObject({ task_id: task.id, to: 'done' });
    expect((await api.call<{ state: string }>('GET', `/v1/tasks/${task.id}`)).state).toBe('done');
    await expect(
      api.call('POST', '/v1/tasks', { project_id: project.id, title: 'x', workflow: 'nope' }),
    ).rejects.toThrow(/POST \/v1\/tasks → 4\d\d .*nope/);
    // An answer that is not one JSON document (a transcript is JSON lines) is a rejection that
    // says so, not an exception thrown out of the response's handler.
    const [run] = await api.call<Array<{ id: number }>>('GET', `/v1/tasks/${task.id}/steps`);
    await expect(
      api.call('GET', `/v1/tasks/${task.id}/steps/${run?.id}/transcript`),
    ).rejects.toThrow(/GET \/v1\/tasks\/\d+\/steps\/\d+\/transcript → 200, not JSON: \{/);
    await watch.close();
  });

  it('reads a state change from its frame and skips any other block, JSON or not', () => {
    expect(
      stateEventOf('id: 7\nevent: task.state_changed\ndata: {"task_id":3,"payload":{"to":"done"}}'),
    ).toEqual({ task_id: 3, to: 'done' });
    expect(stateEventOf(': heartbeat')).toBeNull();
    expect(stateEventOf('data: {"task_id":3,"payload":{')).toBeNull();
    expect(stateEventOf('data: {"kind":"project.added"}')).toBeNull();
  });
});
