// Issue 22 point 3 (decision 237): GET /v1/tasks encodes its rows into the body one by one instead
// of leaving a whole page to fastify's JSON.stringify. Clients (the CLI, the boards, scripts) read
// the bytes, so they must be exactly the ones JSON.stringify gives — text beyond ASCII, escapes,
// an empty page — under the same content type, with the length of the bytes sent.
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../../support/app.js';
import { addProject, commandWorkflow, createTask } from '../../support/tasks.js';

const TITLES = [
  'plain ascii',
  'café — déjà vu', // Latin-1 and an em dash: the page's text goes two-byte in V8
  'emoji 🚀 and 中文',
  'quotes " and \\ backslash and \t tab',
  '\u2028 line separators \u2029',
];

describe('GET /v1/tasks body', () => {
  it("is JSON.stringify's bytes of the rows, for any text, with its content type and length", async () => {
    const t = await buildTestApp({ kernel: { startEngine: false } });
    const empty = await t.api('GET', '/v1/tasks');
    expect(empty.statusCode).toBe(200);
    expect(empty.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(empty.rawPayload.toString('utf8')).toBe('[]');

    const { project } = await addProject(t, { one: commandWorkflow('one', 'true') });
    for (const title of TITLES)
      await createTask(t, {
        project_id: project.id,
        title,
        description: `${title}\n${title}`,
        workflow: 'one',
        paused: true,
      });
    const db = t.kernel.services.store.db;
    db.prepare(
      "UPDATE tasks SET state = 'blocked', block_reason = 'step_failed', block_detail = 'exit 2 \u0001\u007f' WHERE id = 1",
    ).run();

    for (const url of ['/v1/tasks', '/v1/tasks?limit=2', '/v1/tasks?archived=all&limit=1000']) {
      const res = await t.api('GET', url);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      const bytes = res.rawPayload;
      expect(Number(res.headers['content-length'])).toBe(bytes.length);
      const rows = JSON.parse(bytes.toString('utf8')) as Array<Record<string, unknown>>;
      // The bytes a whole-page JSON.stringify gives, the rows' text as written.
      expect(bytes.equals(Buffer.from(JSON.stringify(rows), 'utf8')), url).toBe(true);
      for (const row of rows) expect(TITLES).toContain(row.title);
    }
    const all = (await t.api('GET', '/v1/tasks')).json() as Array<Record<string, unknown>>;
    expect(all.map((r) => r.title).sort()).toEqual([...TITLES].sort());
    expect(all.find((r) => r.id === 1)?.status_message).toBe(
      'blocked: step_failed — exit 2 \u0001\u007f',
    );
  });
});
