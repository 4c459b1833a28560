// Issue 17 holds 2 and 5 (decisions 186, 189): every bad input is a 4xx with the envelope naming
// the field, never a 500 and never accepted to fail later: NUL and control characters in text,
// paths and branch names; field names outside the grammar (over HTTP and MCP `tasks_create`);
// branch names git would refuse or that mislead; backup paths on pseudo file systems or with
// over-long names; deep JSON; and no error message quotes more than 200 bytes of an input.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../support/app.js';
import { gitRepo } from '../../support/git.js';
import { call, connect, listen } from '../../support/mcp.js';
import { act, addProject, commandWorkflow, createTask, postTask } from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';

interface Envelope {
  error: { code: string; message: string; details?: { field?: string; limit?: number } };
}

// One daemon for the file, made before any test so its repository outlives each (a temp dir made
// inside a test is removed when that test ends): every case here is a refusal that must change
// nothing, which each checks by counting tasks before and after.
let shared: { t: TestApp; project: { id: number } };
beforeAll(async () => {
  const t = await buildTestApp({ keepOpen: true });
  const { project } = await addProject(t, { ok: commandWorkflow('ok', 'true') });
  shared = { t, project };
});
afterAll(async () => {
  await shared?.t.close();
});
const world = async () => shared;

function refused(res: { statusCode: number; body: string }, field: string, message?: RegExp) {
  expect(res.statusCode, res.body).toBe(400);
  const body = JSON.parse(res.body) as Envelope;
  expect(body.error.code, res.body).toBe('validation_failed');
  expect(body.error.details?.field, res.body).toBe(field);
  if (message) expect(body.error.message).toMatch(message);
  return body.error.message;
}

async function taskCount(t: TestApp): Promise<number> {
  return (await t.json<unknown[]>('GET', '/v1/tasks?archived=all')).length;
}

describe('text fields at task creation', () => {
  it.each([
    ['title', { title: 'a\u0000b' }, 'title', /title contains NUL \(U\+0000\) at byte 1/],
    ['description', { description: 'x\u0000' }, 'description', /NUL/],
    ['a field value', { fields: { kind: 'a\u0000' } }, 'fields.kind', /fields\.kind contains NUL/],
    ['prompt', { prompt: '\u0000' }, 'prompt', /prompt contains NUL/],
    ['an escape in a title', { title: 'a\u001b[2Jb' }, 'title', /control character \(U\+001B\)/],
  ])(
    'refuses NUL and control characters in %s at create, not later',
    async (_w, body, field, m) => {
      const { t, project } = await world();
      const before = await taskCount(t);
      const res = await postTask(t, {
        project_id: project.id,
        title: 't',
        workflow: 'ok',
        ...body,
      });
      refused(res, field, m);
      expect(await taskCount(t)).toBe(before);
    },
  );

  it('keeps tabs and line breaks in text', async () => {
    const { t, project } = await world();
    const task = await createTask(t, {
      project_id: project.id,
      title: 'a\tb',
      description: 'line 1\r\nline 2\n',
      fields: { notes: 'x\ny' },
      workflow: 'ok',
      paused: true,
    });
    expect(task.description).toBe('line 1\r\nline 2\n');
  });
});

describe('field names', () => {
  const bad = ['$(touch pwned)', 'a b', '-rf', '{{.Task.Title}}', 'a;b', '', 'ü', 'a/b', '.x'];

  it.each(bad)('refuses %j over HTTP with 400 naming fields', async (name) => {
    const { t, project } = await world();
    const before = await taskCount(t);
    const res = await postTask(t, {
      project_id: project.id,
      title: 't',
      workflow: 'ok',
      fields: { [name]: 'v' },
    });
    const message = refused(res, 'fields', /field name .* is not allowed/);
    expect(message).toContain('letters, digits, "_", "-" and "."');
    expect(await taskCount(t)).toBe(before);
  });

  it('accepts the grammar: letters, digits, _, - and ., any case', async () => {
    const { t, project } = await world();
    const fields = { kind: 'a', Ticket_ID: 'b', 'x-1.2': 'c', _private: 'd', '9lives': 'e' };
    const task = await createTask(t, {
      project_id: project.id,
      title: 't',
      workflow: 'ok',
      fields,
      paused: true,
    });
    expect(task.fields).toEqual(fields);
  });

  it('refuses them through MCP tasks_create too', async () => {
    const { t, project } = await world();
    const before = await taskCount(t);
    const { client } = await connect(`${await listen(t)}/mcp`, t.token);
    const r = await call<Envelope>(client, 'tasks_create', {
      project_id: project.id,
      title: 't',
      workflow: 'ok',
      fields: { '$(touch pwned)': 'v' },
    });
    expect(r.isError).toBe(true);
    expect(JSON.stringify(r.body)).toMatch(/field name .* is not allowed/);
    expect(await taskCount(t)).toBe(before);
    // An MCP client learns the grammar from the tool's schema before it tries.
    const { tools } = await client.listTools();
    const fields = tools.find((x) => x.name === 'tasks_create')?.inputSchema.properties?.fields as
      | { description?: string }
      | undefined;
    expect(fields?.description).toContain('letters, digits, "_", "-" and "."');
  });
});

describe('branch names', () => {
  it.each([
    ['branch_name', '/x'],
    ['branch_name', 'HEAD'],
    ['branch_name', 'refs/heads/main'],
    ['branch_name', 'a\u0000b'],
    ['branch_name', 'x.lock'],
    ['branch_name', 'a..b'],
    ['branch_name', 'a@{1}'],
    ['base_branch', 'ma\u0000in'],
    ['base_branch', 'HEAD'],
  ])('refuses %s %j at create with 400 naming it', async (field, value) => {
    const { t, project } = await world();
    const before = await taskCount(t);
    const res = await postTask(t, {
      project_id: project.id,
      title: 't',
      workflow: 'ok',
      paused: true,
      [field]: value,
    });
    refused(res, field, /is not a valid branch name/);
    expect(await taskCount(t)).toBe(before);
  });

  it('refuses a bad default_branch on a project and a bad branch_override on retry', async () => {
    const { t, project } = await world();
    refused(
      await t.api(
        'POST',
        '/v1/projects',
        { path: gitRepo().path, default_branch: 'ma\u0000in' },
        {
          'content-type': 'application/json',
        },
      ),
      'default_branch',
    );
    refused(
      await t.api(
        'PATCH',
        `/v1/projects/${project.id}`,
        { default_branch: 'HEAD' },
        {
          'content-type': 'application/json',
        },
      ),
      'default_branch',
    );
    const task = await createTask(t, {
      project_id: project.id,
      title: 't',
      workflow: 'ok',
      paused: true,
    });
    refused(await act(t, task.id, 'retry', { branch_override: 'refs/heads/x' }), 'branch_override');
  });
});

describe('paths', () => {
  it('refuses a project path holding a newline or NUL, or over the limits, naming path', async () => {
    const { t } = await world();
    const root = tempDir();
    const odd = join(root, 'a\nb');
    mkdirSync(odd);
    gitRepo(); // the repository next door exists; the odd name must not reach git at all
    const post = (path: string) =>
      t.api('POST', '/v1/projects', { path }, { 'content-type': 'application/json' });
    refused(await post(odd), 'path', /control character \(U\+000A\)/);
    refused(await post(`${root}/x\u0000`), 'path', /NUL/);
    refused(await post(`/tmp/${'a'.repeat(300)}`), 'path', /name over 255 bytes/);
    const long = await post(`/tmp/${'a/'.repeat(3000)}`);
    const message = refused(long, 'path', /over 4 KiB/);
    expect(message.length).toBeLessThan(300);
  });

  it.each([
    ['NUL', () => '/tmp/a\u0000b.tar.gz', /NUL/],
    ['under /proc', () => '/proc/self/backup.tar.gz', /pseudo file system/],
    ['a 300-byte name', (d: string) => join(d, `${'b'.repeat(300)}.tar.gz`), /over 255 bytes/],
    ['a newline', (d: string) => join(d, 'a\nb.tar.gz'), /control character/],
  ])('refuses a backup path with %s as 400 naming path', async (_w, path, m) => {
    const { t } = await world();
    const res = await t.api(
      'POST',
      '/v1/daemon/backup',
      { path: path(tempDir()) },
      {
        'content-type': 'application/json',
      },
    );
    refused(res, 'path', m);
  });

  it('quotes at most 200 bytes of a 4 KB path', async () => {
    const { t } = await world();
    // Under the 4 KiB bound, so the path reaches the checks that name it.
    const path = `/${'d'.repeat(250)}`.repeat(15);
    const res = await t.api(
      'POST',
      '/v1/daemon/backup',
      { path: `${path}/x.tar.gz` },
      {
        'content-type': 'application/json',
      },
    );
    expect(res.statusCode).toBe(400);
    expect(res.body).not.toMatch(/d{201}/);
  });
});

describe('deep JSON and echoed headers', () => {
  const deep = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;

  it('refuses a 10,000-deep PATCH /v1/config before any walk, file untouched', async () => {
    const { t } = await world();
    const before = readFileSync(t.paths.configFile, 'utf8');
    const res = await t.api('PATCH', '/v1/config', deep(10_000), {
      'content-type': 'application/json',
    });
    const message = refused(res, 'body', /deeper than 64 levels/);
    expect(message).toBeTruthy();
    expect((JSON.parse(res.body) as Envelope).error.details?.limit).toBe(64);
    expect(readFileSync(t.paths.configFile, 'utf8')).toBe(before);
  });

  it('refuses a 10,000-deep trigger test event, and takes 64 levels', async () => {
    const { t, project } = await world();
    await t.api(
      'POST',
      '/v1/triggers',
      { id: 'tr', project_id: project.id },
      {
        'content-type': 'application/json',
      },
    );
    const res = await t.api('POST', '/v1/triggers/tr/test', `{"event":${deep(10_000)}}`, {
      'content-type': 'application/json',
    });
    refused(res, 'body');
    const ok = await t.api('POST', '/v1/triggers/tr/test', `{"event":${deep(62)}}`, {
      'content-type': 'application/json',
    });
    expect(ok.statusCode, ok.body).toBeLessThan(500);
    expect(ok.body).not.toMatch(/deeper than/);
  });

  it('counts brackets inside strings as text', async () => {
    const { t, project } = await world();
    const res = await postTask(t, {
      project_id: project.id,
      title: '['.repeat(500),
      workflow: 'ok',
      paused: true,
    });
    expect(res.statusCode, res.body).toBe(201);
  });

  it('quotes at most 200 bytes of a 6 KB Content-Type', async () => {
    const { t } = await world();
    const res = await t.api('POST', '/v1/tasks', '{"a":1}', {
      'content-type': `x/${'y'.repeat(6000)}`,
    });
    expect(res.statusCode).toBe(415);
    expect(res.body).not.toMatch(/y{201}/);
    expect(res.body).toContain('(6002 bytes)');
  });

  it('quotes at most 200 bytes of a workflow name it cannot find', async () => {
    const { t, project } = await world();
    const name = 'w'.repeat(250);
    const read = await t.api('GET', `/v1/workflows/definition?name=${name}`);
    expect(read.statusCode, read.body).toBe(404);
    const create = await postTask(t, { project_id: project.id, title: 'x', workflow: name });
    expect(create.statusCode, create.body).toBe(400);
    // The patch body's name and file have no bound of their own below the 4 MiB body.
    const patch = await t.api('PATCH', '/v1/workflows', {
      name: 'w'.repeat(5000),
      file: 'f'.repeat(5000),
      version: 'v',
      ops: [],
    });
    expect(patch.statusCode, patch.body).toBe(404);
    for (const res of [read, create, patch]) expect(res.body).not.toMatch(/[wf]{201}/);
    expect(read.body).toContain('(250 bytes)');
    expect(create.body).toContain('(250 bytes)');
    expect(patch.body).toContain('(5000 bytes)');
  });
});
