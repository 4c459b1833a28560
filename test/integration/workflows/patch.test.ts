// Issue 3 point 6: PATCH /v1/workflows — the target entry, {version, ops[]}, and every refusal
// writing nothing (stale 409 with details.version, unappliable 400 with details.errors, 512 ops,
// 413 over 1 MiB, built-ins read-only, a rename onto a taken name). Decision 030.
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../support/app.js';
import { list, project, writeGlobal, writeProject } from './support.js';

const TEXT = `# Nightly checks, owned by the build team.
name: nightly
description: Runs every night

steps:
  # Lint first: it is quick.
  - id: lint
    type: command
    run: make lint   # keep in sync with CI

  - id: review
    type: agent
    prompt: |
      Review the diff.

      Be brief.
`;

async function version(t: TestApp, name: string, projectId?: number): Promise<string> {
  const row = (await list(t, projectId)).find((r) => r.name === name && r.status !== 'shadowed');
  if (!row) throw new Error(`no ${name}`);
  return row.version;
}

describe('PATCH /v1/workflows', () => {
  it('applies ops to the file bytes, keeping comments, blank lines and block scalars', async () => {
    const t = await buildTestApp();
    const file = writeGlobal(t, 'nightly.yaml', TEXT);
    chmodSync(file, 0o640);
    const res = await t.api('PATCH', '/v1/workflows', {
      name: 'nightly',
      version: await version(t, 'nightly'),
      ops: [
        { op: 'set', path: 'steps[0].run', value: 'make lint-all' },
        {
          op: 'insert',
          path: 'steps[2]',
          item: [
            { key: 'id', value: 'test' },
            { key: 'type', value: 'command' },
            { key: 'run', value: 'make test' },
          ],
        },
        { op: 'move', path: 'steps[2]', to: 1 },
        { op: 'remove', path: 'description' },
      ],
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      name: 'nightly',
      scope: 'global',
      project_id: null,
      file,
      errors: [],
      warnings: [],
    });
    const after = readFileSync(file, 'utf8');
    expect(after).toContain('# Nightly checks, owned by the build team.\nname: nightly\n');
    expect(after).toContain('  # Lint first: it is quick.\n');
    expect(after).toContain('    prompt: |\n      Review the diff.\n\n      Be brief.\n');
    expect(after).not.toContain('description');
    expect(after.indexOf('id: test')).toBeLessThan(after.indexOf('id: review'));
    expect(body.version).toBe(await version(t, 'nightly'));
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o640);
    const events = t.kernel.services.events.query({
      afterId: 0,
      limit: 10,
      kinds: ['workflow.registry_changed'],
    });
    expect(events.map((e) => e.payload.files)).toEqual([['workflows/nightly.yaml']]);
  });

  it('keeps CRLF line ends, and writes a result that does not validate with its errors', async () => {
    const t = await buildTestApp();
    const file = writeGlobal(t, 'crlf.yaml', TEXT.replace(/\n/g, '\r\n'));
    const res = await t.json<{ errors: Array<{ path: string; code: string }> }>(
      'PATCH',
      '/v1/workflows',
      {
        name: 'nightly',
        version: await version(t, 'nightly'),
        ops: [{ op: 'set', path: 'steps[1].shell', value: 'sh' }],
      },
    );
    expect(res.errors.map((e) => [e.path, e.code])).toEqual([
      ['steps[1].shell', 'key_not_valid_for_type'],
    ]);
    const after = readFileSync(file, 'utf8');
    expect(after.match(/(?<!\r)\n/g)).toBeNull();
    expect(after).toContain('shell: sh\r\n');
  });

  it('answers 409 with the current version when the file changed, writing nothing', async () => {
    const t = await buildTestApp();
    const file = writeGlobal(t, 'nightly.yaml', TEXT);
    const old = await version(t, 'nightly');
    writeFileSync(file, TEXT.replace('Runs every night', 'Runs at 2am'));
    const current = await version(t, 'nightly');
    const res = await t.api('PATCH', '/v1/workflows', {
      name: 'nightly',
      version: old,
      ops: [{ op: 'remove', path: 'description' }],
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({
      code: 'invalid_state',
      details: { version: current, reason: 'stale_version' },
    });
    expect(readFileSync(file, 'utf8')).toContain('Runs at 2am');
  });

  it('answers 400 with findings in details.errors for an op that cannot apply, writing nothing', async () => {
    const t = await buildTestApp();
    const file = writeGlobal(t, 'nightly.yaml', TEXT);
    const v = await version(t, 'nightly');
    for (const ops of [
      [
        { op: 'set', path: 'steps[0].run', value: 'ok' },
        { op: 'remove', path: 'steps[9]' },
      ],
      [{ op: 'move', path: 'steps[0]', to: 7 }],
      [{ op: 'set', path: 'steps[', value: 1 }],
      [{ op: 'frobnicate', path: 'name' }],
      [{ op: 'set', path: 'name.first', value: 'x' }],
    ]) {
      const res = await t.api('PATCH', '/v1/workflows', { name: 'nightly', version: v, ops });
      expect(res.statusCode, JSON.stringify(ops)).toBe(400);
      const error = res.json().error;
      expect(error.code).toBe('validation_failed');
      expect(error.details.errors.length).toBeGreaterThan(0);
      expect(error.details.errors[0]).toHaveProperty('code');
      expect(readFileSync(file, 'utf8')).toBe(TEXT);
    }
  });

  it('refuses more than 512 ops (400) and a result over 1 MiB (413), writing nothing', async () => {
    const t = await buildTestApp();
    const file = writeGlobal(t, 'nightly.yaml', TEXT);
    const v = await version(t, 'nightly');
    const many = Array.from({ length: 513 }, () => ({
      op: 'set',
      path: 'description',
      value: 'x',
    }));
    const tooMany = await t.api('PATCH', '/v1/workflows', {
      name: 'nightly',
      version: v,
      ops: many,
    });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().error.message).toMatch(/512/);
    const big = await t.api('PATCH', '/v1/workflows', {
      name: 'nightly',
      version: v,
      ops: [{ op: 'set', path: 'description', value: 'x'.repeat(1024 * 1024) }],
    });
    expect(big.statusCode).toBe(413);
    expect(big.json().error.code).toBe('payload_too_large');
    expect(readFileSync(file, 'utf8')).toBe(TEXT);
    // 512 is still fine.
    const ok = await t.api('PATCH', '/v1/workflows', {
      name: 'nightly',
      version: v,
      ops: many.slice(0, 512),
    });
    expect(ok.statusCode).toBe(200);
  });

  it('picks the target by project view, scope and file; built-ins are read-only; unknown is 404', async () => {
    const t = await buildTestApp();
    const { id, repo } = await project(t);
    const globalFile = writeGlobal(t, 'nightly.yaml', TEXT);
    const projectFile = writeProject(repo, 'nightly.yaml', TEXT);
    // The winner in the project view is the project file.
    await t.json('PATCH', '/v1/workflows', {
      name: 'nightly',
      project_id: id,
      version: await version(t, 'nightly', id),
      ops: [{ op: 'set', path: 'description', value: 'project copy' }],
    });
    expect(readFileSync(projectFile, 'utf8')).toContain('project copy');
    // The shadowed global one, by scope.
    const g = (await list(t, id)).find((r) => r.scope === 'global' && r.name === 'nightly');
    await t.json('PATCH', '/v1/workflows', {
      name: 'nightly',
      project_id: id,
      scope: 'global',
      version: g?.version,
      ops: [{ op: 'set', path: 'description', value: 'global copy' }],
    });
    expect(readFileSync(globalFile, 'utf8')).toContain('global copy');
    // A duplicate loser, by file.
    const dup = writeGlobal(t, 'z-nightly.yaml', TEXT);
    const d = (await list(t)).find((r) => r.file === dup);
    await t.json('PATCH', '/v1/workflows', {
      name: 'nightly',
      file: dup,
      version: d?.version,
      ops: [{ op: 'set', path: 'description', value: 'dup' }],
    });
    expect(readFileSync(dup, 'utf8')).toContain('dup');

    const builtin = await t.api('PATCH', '/v1/workflows', { name: 'adhoc', version: 'x', ops: [] });
    expect(builtin.statusCode).toBe(400);
    expect(builtin.json().error.message).toMatch(/read-only/);
    expect(
      (await t.api('PATCH', '/v1/workflows', { name: 'ghost', version: 'x', ops: [] })).statusCode,
    ).toBe(404);
    expect((await t.api('PATCH', '/v1/workflows', { name: 'nightly', ops: [] })).statusCode).toBe(
      400,
    );
  });

  it('refuses a rename onto a name another file of the scope declares (409), writing nothing', async () => {
    const t = await buildTestApp();
    const file = writeGlobal(t, 'nightly.yaml', TEXT);
    writeGlobal(t, 'weekly.yaml', TEXT.replace('name: nightly', 'name: weekly'));
    const res = await t.api('PATCH', '/v1/workflows', {
      name: 'nightly',
      version: await version(t, 'nightly'),
      ops: [{ op: 'set', path: 'name', value: 'weekly' }],
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().error.details.reason).toBe('name_taken');
    expect(readFileSync(file, 'utf8')).toBe(TEXT);
    const rename = await t.json<{ name: string }>('PATCH', '/v1/workflows', {
      name: 'nightly',
      version: await version(t, 'nightly'),
      ops: [{ op: 'set', path: 'name', value: 'nightly-2' }],
    });
    expect(rename.name).toBe('nightly-2');
  });
});
