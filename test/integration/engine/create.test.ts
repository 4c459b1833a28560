// SPEC §4.4 create rules 1–3, 5, 6, 10 and the §8 bounds, on the real app.
import { describe, expect, it } from 'vitest';
import type { FakeClock } from '../../../kernel/clock/index.js';
import { buildTestApp } from '../../support/app.js';
import {
  addProject,
  commandWorkflow,
  createTask,
  getTask,
  waitState,
} from '../../support/tasks.js';

const OK = commandWorkflow('ok', 'true');

describe('field bounds (SPEC §8)', () => {
  it.each([
    ['title', { title: 't'.repeat(1025) }, 'title', '1 KiB'],
    ['description', { description: 'd'.repeat(64 * 1024 + 1) }, 'description', '64 KiB'],
    ['branch_name', { branch_name: 'b'.repeat(513) }, 'branch_name', '512'],
    ['base_branch', { base_branch: 'b'.repeat(513) }, 'base_branch', '512'],
    ['prompt', { prompt: 'p'.repeat(1024 * 1024 + 1) }, 'prompt', '1 MiB'],
    ['a fields key', { fields: { ['k'.repeat(257)]: 'v' } }, 'fields', '256'],
    ['a fields value', { fields: { k: 'v'.repeat(64 * 1024 + 1) } }, 'fields.k', '64 KiB'],
    [
      'fields entries',
      { fields: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, 'v'])) },
      'fields',
      '100',
    ],
    ['max_task_cost_usd', { max_task_cost_usd: -1 }, 'max_task_cost_usd', 'negative'],
  ])(
    'refuses an over-bound %s naming the field and the limit',
    async (_what, extra, field, limit) => {
      const t = await buildTestApp();
      const { project } = await addProject(t, { ok: OK });
      const res = await t.api('POST', '/v1/tasks', {
        project_id: project.id,
        title: 'x',
        workflow: 'ok',
        ...extra,
      });
      expect(res.statusCode).toBe(400);
      const err = res.json().error;
      expect(err.code).toBe('validation_failed');
      expect(err.message).toContain(field);
      expect(err.message).toContain(limit);
      expect(await t.json('GET', '/v1/tasks?archived=all')).toEqual([]);
    },
  );

  it('accepts values exactly at the bound', async () => {
    const t = await buildTestApp();
    const { project } = await addProject(t, { ok: OK });
    const task = await createTask(t, {
      project_id: project.id,
      title: 't'.repeat(1024),
      description: 'd'.repeat(64 * 1024),
      workflow: 'ok',
      paused: true,
    });
    expect(task.state).toBe('paused');
  });

  it.each([
    [{ title: 'x' }, 'project_id'],
    [{ project_id: 99, title: 'x' }, 'project_id'],
    [{ project_id: 1 }, 'title'],
    [{ project_id: 1, title: '   ' }, 'title'],
    [{ project_id: 1, title: 'x', workflow: 'nope' }, 'nope'],
    [{ project_id: 1, title: 'x', base_branch: 'nope' }, 'base_branch'],
    [{ project_id: 1, title: 'x', bogus: true }, 'bogus'],
    [{ project_id: 1, title: 'x', agent: 'gpt-agent-9000' }, 'agent'],
    [{ project_id: 1, title: 'x', branch_name: 'has space' }, 'branch'],
    [{ project_id: 1, title: 'x', branch_name: 'main' }, 'already exists'],
  ])('refuses %j with 400 before writing anything', async (body, mention) => {
    const t = await buildTestApp();
    await addProject(t, { ok: OK }, { default_workflow: 'ok' });
    const res = await t.api('POST', '/v1/tasks', body);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toContain(mention);
    expect(await t.json('GET', '/v1/tasks?archived=all')).toEqual([]);
    expect(
      t.kernel.services.events.query({ afterId: 0, limit: 100, kinds: ['task.created'] }),
    ).toEqual([]);
  });
});

describe('creation', () => {
  it('paused:true holds the task without a worktree until resumed', async () => {
    const t = await buildTestApp();
    const { project } = await addProject(t, { ok: OK });
    const task = await createTask(t, {
      project_id: project.id,
      title: 'held',
      workflow: 'ok',
      paused: true,
    });
    expect(task).toMatchObject({ state: 'paused', worktree_path: null });
    await new Promise((r) => setTimeout(r, 100));
    expect((await getTask(t, task.id)).state).toBe('paused');
    await t.api('POST', `/v1/tasks/${task.id}/resume`);
    await waitState(t, task.id, 'done');
  });

  it('freezes workflow_origin and the snapshot at creation', async () => {
    const t = await buildTestApp();
    const { project, repo } = await addProject(t, { ok: OK });
    const task = await createTask(t, {
      project_id: project.id,
      title: 'snap',
      workflow: 'ok',
      paused: true,
    });
    expect(task.workflow_origin).toMatchObject({
      scope: 'project',
      file: '.svc/workflows/ok.yaml',
    });
    expect((task.workflow_origin as { digest: string }).digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    repo.write('.svc/workflows/ok.yaml', commandWorkflow('ok', 'exit 7'));
    await t.api('POST', `/v1/tasks/${task.id}/resume`);
    await waitState(t, task.id, 'done');
    const created = t.kernel.services.events.query({
      afterId: 0,
      limit: 10,
      kinds: ['task.created'],
    })[0];
    expect(created?.payload.workflow_origin).toEqual(task.workflow_origin);
  });

  it('falls back to the project default workflow, then adhoc', async () => {
    const t = await buildTestApp();
    const { project } = await addProject(t, { ok: OK }, { default_workflow: 'ok' });
    expect(
      (await createTask(t, { project_id: project.id, title: 'x', paused: true })).workflow,
    ).toBe('ok');
    const { project: p2 } = await addProject(t);
    expect((await createTask(t, { project_id: p2.id, title: 'y', paused: true })).workflow).toBe(
      'adhoc',
    );
  });
});

describe('branch names (SPEC §2.10 chain)', () => {
  it('uses branch_name verbatim, then the project template, then the config template, then svc/{id}-{slug}', async () => {
    const t = await buildTestApp({ config: 'branch_template: "cfg/{{.ID}}-{{.Slug}}"\n' });
    const { project: plain } = await addProject(t, { ok: OK });
    const { project: templated } = await addProject(
      t,
      { ok: OK },
      { branch_template: 'proj/{{.Fields.ticket}}/{{slug .Title}}' },
    );
    const lit = await createTask(t, {
      project_id: plain.id,
      title: 'Lit',
      workflow: 'ok',
      branch_name: 'my/exact-branch',
      paused: true,
    });
    expect(lit.branch_name).toBe('my/exact-branch');
    const proj = await createTask(t, {
      project_id: templated.id,
      title: 'Fix It',
      workflow: 'ok',
      fields: { ticket: 'T-1' },
      paused: true,
    });
    expect(proj.branch_name).toBe('proj/T-1/fix-it');
    const cfg = await createTask(t, {
      project_id: plain.id,
      title: 'Cfg Task',
      workflow: 'ok',
      paused: true,
    });
    expect(cfg.branch_name).toBe(`cfg/${cfg.id}-cfg-task`);
    const missing = await t.api('POST', '/v1/tasks', {
      project_id: templated.id,
      title: 'No ticket',
      workflow: 'ok',
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.message).toContain('ticket');
    const t2 = await buildTestApp();
    const { project } = await addProject(t2, { ok: OK });
    const builtin = await createTask(t2, {
      project_id: project.id,
      title: '!!!',
      workflow: 'ok',
      paused: true,
    });
    expect(builtin.branch_name).toBe(`svc/${builtin.id}`);
  });

  it('refuses a branch another live task already claims', async () => {
    const t = await buildTestApp();
    const { project } = await addProject(t, { ok: OK });
    const a = await createTask(t, {
      project_id: project.id,
      title: 'a',
      workflow: 'ok',
      branch_name: 'shared',
      paused: true,
    });
    const res = await t.api('POST', '/v1/tasks', {
      project_id: project.id,
      title: 'b',
      workflow: 'ok',
      branch_name: 'shared',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toContain(`claimed by task ${a.id}`);
  });
});

describe('Idempotency-Key (SPEC §4.4)', () => {
  it('replays the same body as the task as it is now; another body is 409; no key makes two tasks', async () => {
    const t = await buildTestApp();
    const { project } = await addProject(t, { ok: OK });
    const body = { project_id: project.id, title: 'idem', workflow: 'ok' };
    const first = await createTask(t, body, { 'idempotency-key': 'key-1' });
    await waitState(t, first.id, 'done');
    const reordered = await t.api(
      'POST',
      '/v1/tasks',
      '{"workflow":"ok","title":"idem",  "project_id":' + project.id + '}',
      {
        'content-type': 'application/json',
        'idempotency-key': 'key-1',
      },
    );
    expect(reordered.statusCode).toBe(201);
    expect(reordered.json()).toMatchObject({ id: first.id, state: 'done' });
    const other = await t.api(
      'POST',
      '/v1/tasks',
      { ...body, title: 'different' },
      { 'content-type': 'application/json', 'idempotency-key': 'key-1' },
    );
    expect(other.statusCode).toBe(409);
    expect(other.json().error).toMatchObject({
      code: 'invalid_state',
      details: { reason: 'idempotency_key_reused' },
    });
    await createTask(t, body);
    await createTask(t, body);
    expect(await t.json<unknown[]>('GET', '/v1/tasks?archived=all')).toHaveLength(3);
  });

  it('forgets a key after 24 hours', async () => {
    const t = await buildTestApp();
    const clock = t.clock as FakeClock;
    const { project } = await addProject(t, { ok: OK });
    const body = { project_id: project.id, title: 'idem', workflow: 'ok', paused: true };
    const a = await createTask(t, body, { 'idempotency-key': 'k' });
    await clock.advance('23h59m');
    expect((await createTask(t, body, { 'idempotency-key': 'k' })).id).toBe(a.id);
    await clock.advance('1m');
    expect((await createTask(t, body, { 'idempotency-key': 'k' })).id).not.toBe(a.id);
  });

  it.each(['', 'x'.repeat(256), 'tab\tkey', 'ünïcode'])(
    'refuses a malformed key %j',
    async (key) => {
      const t = await buildTestApp();
      const { project } = await addProject(t, { ok: OK });
      const res = await t.kernel.app.inject({
        method: 'POST',
        url: '/v1/tasks',
        headers: {
          host: '127.0.0.1',
          authorization: `Bearer ${t.token}`,
          'content-type': 'application/json',
          'idempotency-key': key,
        },
        payload: JSON.stringify({ project_id: project.id, title: 'x', workflow: 'ok' }),
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.details).toEqual({ field: 'Idempotency-Key' });
    },
  );
});
