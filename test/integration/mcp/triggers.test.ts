/**
 * Trigger tools (issue 9 point 2): the list, one trigger, its ledger and the dry-run test answer
 * what their routes answer, refusals included; nothing is written or fired (decision 124).
 */
import { expect, test } from 'vitest';
import { buildTestApp } from '../../support/app.js';
import { call, connect, listen } from '../../support/mcp.js';
import { addProject } from '../../support/tasks.js';

test('triggers_list, _show, _deliveries and _test mirror their routes', async () => {
  const t = await buildTestApp();
  const url = await listen(t);
  const { client } = await connect(`${url}/mcp`, t.token);
  const { project } = await addProject(t);
  await t.json('POST', '/v1/triggers', {
    id: 'nightly',
    project_id: project.id,
    command: ['./poll.sh'],
  });
  const api = async (path: string, body?: unknown) => {
    const res = await t.api(
      body === undefined ? 'GET' : 'POST',
      path,
      body,
      body === undefined ? {} : { 'content-type': 'application/json' },
    );
    return JSON.parse(res.body) as unknown;
  };

  expect((await call(client, 'triggers_list')).body).toEqual(await api('/v1/triggers'));
  const shown = await call(client, 'triggers_show', { trigger_id: 'nightly' });
  expect(shown).toMatchObject({ isError: false, body: await api('/v1/triggers/nightly') });
  expect((shown.body as { source: string }).source).toContain('nightly');
  expect(
    (await call(client, 'triggers_deliveries', { trigger_id: 'nightly', limit: 5 })).body,
  ).toEqual(await api('/v1/triggers/nightly/deliveries?limit=5'));

  const event = { id: 'e1', title: 'an event' };
  const judged = await call(client, 'triggers_test', { trigger_id: 'nightly', event });
  expect(judged).toMatchObject({
    isError: false,
    body: await api('/v1/triggers/nightly/test', { event }),
  });
  // A dry run fires nothing: no task, no ledger row.
  expect(await api('/v1/tasks?archived=all')).toEqual([]);
  expect(await api('/v1/triggers/nightly/deliveries')).toEqual({ deliveries: [] });

  for (const [tool, args, path, body] of [
    ['triggers_show', { trigger_id: 'missing' }, '/v1/triggers/missing', undefined],
    [
      'triggers_test',
      { trigger_id: 'nightly', event: 'not an object' },
      '/v1/triggers/nightly/test',
      { event: 'not an object' },
    ],
    [
      'triggers_deliveries',
      { trigger_id: 'nightly', limit: 0 },
      '/v1/triggers/nightly/deliveries?limit=0',
      undefined,
    ],
  ] as const) {
    const refused = await call(client, tool, args);
    expect({ tool, isError: refused.isError, body: refused.body }).toEqual({
      tool,
      isError: true,
      body: await api(path, body),
    });
  }
  expect(await call(client, 'triggers_show', {})).toMatchObject({
    isError: true,
    body: { error: { code: 'validation_failed', details: { field: 'trigger_id' } } },
  });
});
