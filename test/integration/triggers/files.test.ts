// Issue 8 points 1 and 2: trigger files (0600, strict composed schema, invalid files listed,
// armed and disarmed_reason in order, hot reload) and the file routes of SPEC §4.6.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../support/app.js';
import { CREATE_OK, commandTrigger, triggerWorld } from '../../support/triggers.js';

const mode = (p: string) => statSync(p).mode & 0o777;

describe('trigger list rows', () => {
  it('lists every file, an invalid one with its errors, armed or the first missing condition', async () => {
    const w = await triggerWorld({ enabled: false });
    await w.put('good', commandTrigger(w, 'good', CREATE_OK));
    await w.put(
      'off',
      commandTrigger(w, 'off', CREATE_OK).replace('enabled: true', 'enabled: false'),
    );
    await w.put(
      'broken',
      `id: broken\nenabled: true\nproject_id: ${w.project.id}\nsource:\n  type: carrier_pigeon\naction:\n  type: create_task\n  bogus: 1\n`,
    );
    writeFileSync(join(w.t.paths.triggersDir, 'Bad Name.yaml'), 'id: x\n');
    w.t.kernel.services.triggers.reload('file');
    const list = await w.t.json<{
      enabled: boolean;
      dir: string;
      triggers: Array<Record<string, unknown>>;
    }>('GET', '/v1/triggers');
    expect(list.enabled).toBe(false);
    expect(list.dir).toBe(w.t.paths.triggersDir);
    const byId = Object.fromEntries(list.triggers.map((r) => [r.id, r]));
    expect(Object.keys(byId)).toEqual(['Bad Name', 'broken', 'good', 'off']);
    expect(byId.good).toMatchObject({
      valid: true,
      enabled: true,
      armed: false,
      disarmed_reason: 'triggers_disabled',
      source_type: 'command',
      action_type: 'create_task',
      project_id: w.project.id,
      on_fire: 'propose',
      permission: 'restricted',
      poll: { seeded: false, last_poll_at: null, ok: null, error: null, last_fire_at: null },
    });
    expect(byId.off).toMatchObject({ armed: false, disarmed_reason: 'disabled' });
    expect(byId.broken).toMatchObject({
      valid: false,
      enabled: true,
      armed: false,
      disarmed_reason: 'invalid',
    });
    expect(byId.broken).not.toHaveProperty('source_type');
    expect(byId.broken).not.toHaveProperty('on_fire');
    const errors = (byId.broken?.errors ?? []) as Array<{
      path: string;
      code: string;
      line?: number;
    }>;
    expect(errors.map((e) => [e.path, e.code, e.line])).toEqual([
      ['source.type', 'unknown_source_type', 5],
      ['action.title', 'required', 6],
      ['action.bogus', 'unknown_key', 8],
    ]);
    expect(errors.find((e) => e.path === 'source.type')?.line).toBe(5);
    expect(byId['Bad Name']).toMatchObject({ valid: false, disarmed_reason: 'invalid' });

    // Turning the global switch on arms the valid, enabled one; the row omits disarmed_reason.
    await w.t.json('PATCH', '/v1/config', { triggers: { enabled: true } });
    const good = await w.row('good');
    expect(good.armed).toBe(true);
    expect(good).not.toHaveProperty('disarmed_reason');
    expect(good).not.toHaveProperty('errors.0');
  });

  it('refuses a create_task field name outside the grammar at load, naming it (decision 186)', async () => {
    const w = await triggerWorld();
    // A name a template could range over into a command line: the file is invalid, so no
    // delivery ever tries to create a task with it.
    await w.put(
      'named',
      commandTrigger(w, 'named', `${CREATE_OK}  fields:\n    "$(touch pwned)": "{{.Event.id}}"\n`),
    );
    await w.put(
      'plain',
      commandTrigger(w, 'plain', `${CREATE_OK}  fields:\n    ticket.id-2_x: "{{.Event.id}}"\n`),
    );
    w.t.kernel.services.triggers.reload('file');
    const named = await w.row('named');
    expect(named).toMatchObject({ valid: false, disarmed_reason: 'invalid' });
    const errors = (named.errors ?? []) as Array<{ path: string; message: string }>;
    expect(errors.map((e) => e.path)).toEqual(['action.fields.$(touch pwned)']);
    expect(errors[0]?.message).toMatch(
      /field name "\$\(touch pwned\)" is not allowed: a field name has only letters, digits/,
    );
    expect(await w.row('plain')).toMatchObject({ valid: true });
  });

  it('reloads files edited on disk while running', async () => {
    const w = await triggerWorld();
    writeFileSync(join(w.t.paths.triggersDir, 'hot.yaml'), commandTrigger(w, 'hot', CREATE_OK));
    // The watcher reloads the runtime, which arms the trigger and seeds it.
    await waitFor(async () => (await w.row('hot')).poll.seeded === true);
    writeFileSync(
      join(w.t.paths.triggersDir, 'hot.yaml'),
      commandTrigger(w, 'hot', CREATE_OK).replace('enabled: true', 'enabled: false'),
    );
    // Disarming drops the cursor: the next arming seeds again.
    await waitFor(async () => (await w.row('hot')).poll.seeded === false);
    // A file loosened by an editor is tightened again on reload.
    expect(mode(join(w.t.paths.triggersDir, 'hot.yaml'))).toBe(0o600);
    const changes = w.t.kernel.services.events.query({
      afterId: 0,
      limit: 100,
      kinds: ['trigger.changed'],
    });
    expect(changes.filter((e) => e.trigger_id === 'hot').length).toBeGreaterThanOrEqual(2);
  });
});

describe('POST /v1/triggers', () => {
  it('writes a disabled starter, 0600, that validates', async () => {
    const w = await triggerWorld();
    const res = await w.t.api('POST', '/v1/triggers', {
      id: 'nightly.v2',
      project_id: w.project.id,
      command: ['./poll.sh', '--since'],
      poll_interval: '10m',
      workflow: 'ok',
      title: 'From {{.Event.id}}',
    });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({ id: 'nightly.v2', errors: [] });
    expect(mode(body.file)).toBe(0o600);
    expect(mode(w.t.paths.triggersDir)).toBe(0o700);
    const row = await w.row('nightly.v2');
    expect(row).toMatchObject({
      version: body.version,
      valid: true,
      enabled: false,
      disarmed_reason: 'disabled',
    });
    expect(row.definition).toMatchObject({
      source: { type: 'command', command: ['./poll.sh', '--since'], poll_interval: '10m' },
      action: { type: 'create_task', title: 'From {{.Event.id}}', workflow: 'ok' },
    });
    expect(row.definition).not.toHaveProperty('on_fire');
    expect(row.source).toBe(readFileSync(body.file, 'utf8'));
  });

  it.each([
    ['Upper', 400],
    ['-dash', 400],
    ['a..b', 400],
    ['schema', 400],
    ['', 400],
  ])('refuses the id %j', async (id, status) => {
    const w = await triggerWorld();
    const res = await w.t.api('POST', '/v1/triggers', { id, project_id: w.project.id });
    expect(res.statusCode).toBe(status);
    expect(res.json().error.code).toBe('validation_failed');
  });

  it('is 404 for an unknown project, 409 for an existing id, 400 for a bad input', async () => {
    const w = await triggerWorld();
    expect((await w.t.api('POST', '/v1/triggers', { id: 'x', project_id: 99 })).statusCode).toBe(
      404,
    );
    expect(
      (await w.t.api('POST', '/v1/triggers', { id: 'x', project_id: w.project.id })).statusCode,
    ).toBe(201);
    const dup = await w.t.api('POST', '/v1/triggers', { id: 'x', project_id: w.project.id });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().error.code).toBe('invalid_state');
    const bad = await w.t.api('POST', '/v1/triggers', {
      id: 'y',
      project_id: w.project.id,
      title: '{{.Event',
    });
    expect(bad.statusCode).toBe(400);
    expect(JSON.parse(bad.json().error.details.errors)[0].path).toBe('action.title');
    expect((await w.t.api('POST', '/v1/triggers', { id: 'z' })).statusCode).toBe(400);
  });
});

describe('schema and validate', () => {
  it('serves the schema as data with dangerous rows', async () => {
    const w = await triggerWorld();
    const doc = await w.t.json<{
      top_level: Array<{
        name: string;
        control: string;
        dangerous?: Array<{ value: unknown; warning: string }>;
      }>;
      sources: Array<{
        type: string;
        fields: Array<{ name: string; control: string }>;
        events?: string[];
        trusted?: string[];
      }>;
      actions: Array<{
        type: string;
        fields: Array<{ name: string; dangerous?: Array<{ value: unknown }> }>;
      }>;
      limits: Array<{ name: string }>;
      signature: Array<{ name: string }>;
    }>('GET', '/v1/triggers/schema');
    expect(doc.sources.map((s) => s.type)).toEqual([
      'command',
      'forge_issues',
      'forge_prs',
      'http',
      'schedule',
    ]);
    expect(doc.actions.map((a) => a.type)).toEqual(['create_task', 'follow_up', 'retry', 'cancel']);
    const dangerous = (rows: Array<{ name: string; dangerous?: Array<{ value: unknown }> }>) =>
      rows.flatMap((r) => (r.dangerous ?? []).map((d) => `${r.name}: ${String(d.value)}`));
    expect(dangerous(doc.top_level)).toEqual([
      'enabled: true',
      'overrun: cancel_previous',
      'on_fire: create',
    ]);
    expect(dangerous(doc.actions[0]?.fields ?? [])).toEqual(['permission: workflow']);
    expect(doc.top_level.find((r) => r.name === 'project_id')?.control).toBe('project');
    expect(doc.top_level.find((r) => r.name === 'match')?.control).toBe('match');
    expect(doc.limits.map((r) => r.name)).toEqual(['max_per_hour']);
    expect(doc.signature.map((r) => r.name)).toEqual(['secret', 'secret_env', 'max_skew']);
    expect(doc.sources.find((s) => s.type === 'forge_prs')?.events).toEqual([
      'opened',
      'synchronized',
      'updated',
    ]);
    expect(doc.sources.find((s) => s.type === 'forge_issues')?.trusted).not.toContain('title');
  });

  it('takes large bodies (4 MiB) on validate and test, 64 KiB elsewhere', async () => {
    const w = await triggerWorld();
    const big = `${commandTrigger(w, 'v', CREATE_OK)}description: ${JSON.stringify('d'.repeat(60 * 1024))}\n`;
    const v = await w.t.api('POST', '/v1/triggers/validate', {
      source: `${big}# ${'x'.repeat(100 * 1024)}\n`,
    });
    expect(v.statusCode).toBe(200);
    await w.put('v', commandTrigger(w, 'v', CREATE_OK));
    const t = await w.t.api('POST', '/v1/triggers/v/test', {
      event: { id: 'e', pad: 'p'.repeat(200 * 1024) },
    });
    expect(t.statusCode).toBe(200);
    const c = await w.t.api('POST', '/v1/triggers', {
      id: 'c',
      project_id: w.project.id,
      title: 't'.repeat(70 * 1024),
    });
    expect(c.statusCode).toBe(413);
  });

  it('validates text without writing, and checks the id when given', async () => {
    const w = await triggerWorld();
    const source = commandTrigger(w, 'v', CREATE_OK);
    expect(await w.t.json('POST', '/v1/triggers/validate', { source })).toEqual({
      valid: true,
      errors: [],
    });
    const other = await w.t.json<{ valid: boolean; errors: Array<{ path: string }> }>(
      'POST',
      '/v1/triggers/validate',
      { source, id: 'w' },
    );
    expect(other.valid).toBe(false);
    expect(other.errors[0]?.path).toBe('id');
    const cancel = await w.t.json<{ valid: boolean; errors: Array<{ path: string }> }>(
      'POST',
      '/v1/triggers/validate',
      {
        source: commandTrigger(w, 'v', '  type: cancel\n  task: "{{.Event.task}}"\n'),
      },
    );
    expect(cancel.errors.map((e) => e.path)).toEqual(['on_fire']);
    const unknownKey = await w.t.json<{ errors: Array<{ path: string }> }>(
      'POST',
      '/v1/triggers/validate',
      {
        source: `${commandTrigger(w, 'v', CREATE_OK)}surprise: 1\n`,
      },
    );
    expect(unknownKey.errors.map((e) => e.path)).toEqual(['surprise']);
    expect(await w.t.json('GET', '/v1/triggers')).toMatchObject({ triggers: [] });
  });
});

describe('GET, PATCH and DELETE /v1/triggers/{id}', () => {
  it('GET is 404 without a file and serves definition null for an invalid one', async () => {
    const w = await triggerWorld();
    expect((await w.t.api('GET', '/v1/triggers/nope')).statusCode).toBe(404);
    expect((await w.t.api('GET', '/v1/triggers/..%2Fconfig')).statusCode).toBe(404);
    await w.put('inv', 'id: inv\n: : nonsense\n');
    const row = await w.row('inv');
    expect(row).toMatchObject({
      valid: false,
      definition: null,
      source: 'id: inv\n: : nonsense\n',
    });
  });

  it('PATCH edits the file byte for byte with a version token', async () => {
    const w = await triggerWorld();
    const text = `# keep me\n${commandTrigger(w, 'p', CREATE_OK).replace('enabled: true', 'enabled: false  # not yet')}`;
    await w.put('p', text);
    const before = await w.row('p');
    const res = await w.t.api('PATCH', '/v1/triggers/p', {
      version: before.version,
      ops: [{ op: 'set', path: 'action.title', value: 'Changed {{.Event.id}}' }],
    });
    expect(res.statusCode).toBe(200);
    const after = res.json();
    expect(after).toMatchObject({ id: 'p', errors: [] });
    expect(after.version).not.toBe(before.version);
    const written = readFileSync(join(w.t.paths.triggersDir, 'p.yaml'), 'utf8');
    expect(written).toBe(text.replace('"Event {{.Event.id}}"', 'Changed {{.Event.id}}'));
    expect(written).toContain('# keep me\n');
    expect(written).toContain('enabled: false  # not yet');
    expect(mode(join(w.t.paths.triggersDir, 'p.yaml'))).toBe(0o600);

    const stale = await w.t.api('PATCH', '/v1/triggers/p', { version: before.version, ops: [] });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().error.details.version).toBe(after.version);

    const badOp = await w.t.api('PATCH', '/v1/triggers/p', {
      version: after.version,
      ops: [{ op: 'remove', path: 'nowhere.at.all' }],
    });
    expect(badOp.statusCode).toBe(400);
    expect(JSON.parse(badOp.json().error.details.errors)[0]).toMatchObject({
      code: 'path_not_found',
    });

    const invalid = await w.t.api('PATCH', '/v1/triggers/p', {
      version: after.version,
      ops: [{ op: 'set', path: 'overrun', value: 'sometimes' }],
    });
    expect(invalid.statusCode).toBe(400);
    expect(JSON.parse(invalid.json().error.details.errors)[0].path).toBe('overrun');

    const rename = await w.t.api('PATCH', '/v1/triggers/p', {
      version: after.version,
      ops: [{ op: 'set', path: 'id', value: 'q' }],
    });
    expect(rename.statusCode).toBe(400);
    expect(readFileSync(join(w.t.paths.triggersDir, 'p.yaml'), 'utf8')).toBe(written);

    expect(
      (await w.t.api('PATCH', '/v1/triggers/NOPE', { version: 'x', ops: [] })).statusCode,
    ).toBe(404);
    const tooMany = await w.t.api('PATCH', '/v1/triggers/p', {
      version: after.version,
      ops: Array.from({ length: 513 }, () => ({ op: 'remove', path: 'description' })),
    });
    expect(tooMany.statusCode).toBe(400);
  });

  it('DELETE needs the version, removes the file and the cursor and keeps the ledger', async () => {
    const w = await triggerWorld();
    w.setEvents([{ id: 'old' }]);
    await w.put('d', commandTrigger(w, 'd', CREATE_OK));
    const { version } = await w.row('d');
    expect((await w.t.api('DELETE', '/v1/triggers/d')).statusCode).toBe(400);
    const stale = await w.t.api('DELETE', '/v1/triggers/d?version=nope');
    expect(stale.statusCode).toBe(409);
    expect(stale.json().error.details.version).toBe(version);
    expect((await w.t.api('DELETE', `/v1/triggers/d?version=${version}`)).statusCode).toBe(204);
    expect((await w.t.api('GET', '/v1/triggers/d')).statusCode).toBe(404);
    expect(w.t.kernel.services.triggers.state.get('d')).toBeUndefined();
    expect((await w.deliveries('d')).map((r) => r.outcome)).toEqual(['seeded']);
    // Re-created, it seeds again and still dedupes against its history.
    w.setEvents([{ id: 'old' }, { id: 'new' }]);
    await w.put('d', commandTrigger(w, 'd', CREATE_OK));
    expect((await w.deliveries('d')).map((r) => [r.event_id, r.outcome])).toEqual([
      ['new', 'seeded'],
      ['old', 'deduped'],
      ['old', 'seeded'],
    ]);
  });

  it('deliveries takes limit 1 to 1000, newest first', async () => {
    const w = await triggerWorld();
    w.setEvents([{ id: '1' }, { id: '2' }, { id: '3' }]);
    await w.put('l', commandTrigger(w, 'l', CREATE_OK));
    for (const bad of ['0', '1001', 'x', '-1'])
      expect((await w.t.api('GET', `/v1/triggers/l/deliveries?limit=${bad}`)).statusCode).toBe(400);
    const two = await w.t.json<{ deliveries: Array<{ event_id: string; created_at: string }> }>(
      'GET',
      '/v1/triggers/l/deliveries?limit=2',
    );
    expect(two.deliveries.map((d) => d.event_id)).toEqual(['3', '2']);
    expect(two.deliveries[0]?.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/);
    expect((await w.t.api('GET', '/v1/triggers/none/deliveries')).statusCode).toBe(404);
  });
});
