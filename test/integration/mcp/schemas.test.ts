/**
 * Each tool's input schema is the route's own (issue 9 point 2, decision 121): every route is
 * requested on the real app with `parseWith` observed, and the zod schema object the route parses
 * its body or query with must be the very object the tool parses its arguments with and derives
 * its published JSON Schema from. A tool whose route takes no body or query parses nothing
 * either. A copied or hand-written schema fails here even when it looks the same.
 */
import { expect, test, vi } from 'vitest';
import { z } from 'zod';
import { buildTestApp } from '../../support/app.js';
import { addProject, createTask, waitState } from '../../support/tasks.js';

const seen = vi.hoisted(() => ({ schemas: [] as unknown[] }));

vi.mock('../../../kernel/input/index.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../kernel/input/index.js')>();
  return {
    ...real,
    parseWith: ((schema, value, what) => {
      seen.schemas.push(schema);
      return real.parseWith(schema, value, what);
    }) as typeof real.parseWith,
  };
});

test('every tool parses with the zod schema object its route parses with', async () => {
  const t = await buildTestApp();
  // Project tools act on a project of their own: projects_delete may delete it.
  const { project: mine } = await addProject(t);
  const { project } = await addProject(t, {
    ok: 'name: ok\nsteps:\n  - id: run\n    type: command\n    run: "true"\n',
  });
  await t.json('POST', '/v1/triggers', { id: 'nightly', project_id: project.id, command: ['x'] });
  const task = await createTask(t, { project_id: project.id, title: 'done', workflow: 'ok' });
  await waitState(t, task.id, 'done');
  const [run] = await t.json<Array<{ id: number }>>('GET', `/v1/tasks/${task.id}/steps`);

  const tools = t.kernel.services.mcp.tools;
  // tasks_archive archives the task the other task tools use: it goes last.
  const ordered = [...tools].sort(
    (a, b) => Number(a.name === 'tasks_archive') - Number(b.name === 'tasks_archive'),
  );
  const checked: string[] = [];
  for (const tool of ordered) {
    const [method, pattern] = tool.route.split(' ') as [string, string];
    const id = pattern.startsWith('/v1/projects')
      ? mine.id
      : pattern.startsWith('/v1/triggers')
        ? 'nightly'
        : task.id;
    const url = pattern.replace(':id', String(id)).replace(':run', String(run?.id));
    seen.schemas.length = 0;
    const withBody = tool.input?.from === 'body';
    const res = await t.kernel.app.inject({
      method: method as 'GET',
      url,
      headers: {
        authorization: `Bearer ${t.token}`,
        ...(withBody ? { 'content-type': 'application/json' } : {}),
      },
      ...(withBody ? { payload: '{}' } : {}),
    });
    expect(res.statusCode, `${tool.route}: ${res.body}`).not.toBe(404);
    if (tool.input) {
      expect(
        seen.schemas.includes(tool.input.schema),
        `${tool.name}: ${tool.route} parses its ${tool.input.from} with another schema`,
      ).toBe(true);
      // The published JSON Schema is derived from that same object.
      const derived = z.toJSONSchema(tool.input.schema, {
        io: 'input',
        target: 'draft-7',
        unrepresentable: 'any',
      }) as { properties?: Record<string, unknown> };
      for (const [key, value] of Object.entries(derived.properties ?? {}))
        expect(tool.inputSchema.properties, `${tool.name}.${key}`).toHaveProperty([key], value);
    } else {
      expect(
        seen.schemas,
        `${tool.route} parses input the tool ${tool.name} does not take`,
      ).toEqual([]);
    }
    checked.push(tool.name);
  }
  expect(checked.sort()).toEqual(tools.map((x) => x.name).sort());
  // The observation is real: the tools with an input are most of them.
  expect(tools.filter((x) => x.input).length).toBeGreaterThan(15);
});
