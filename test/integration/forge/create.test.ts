// Issue 8 point 4: forge_issue and forge_pull on POST /v1/tasks (SPEC §4.4 rules 7–9) against a
// local fake GitHub: prefill and precedence, gh when logged in else GH_TOKEN, 409 details.reason
// when the integration is unusable, and no code-host call for a request naming neither.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../../support/app.js';
import { fakeGithub, forgeEnvironment, forgeProject } from '../../support/fake-github.js';
import { addProject, commandWorkflow, createTask } from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';

const FIELDS = `${commandWorkflow('fields', 'true')}fields:\n  - name: issue\n  - name: pull\n  - name: note\n`;
const WF = { ok: commandWorkflow('ok', 'true'), fields: FIELDS };

async function world(
  mode: 'token' | 'gh' | 'none' = 'token',
  opts: { loggedIn?: boolean; token?: boolean } = {},
) {
  const fake = await fakeGithub();
  const log = `${tempDir()}/gh.log`;
  const t = await buildTestApp({ config: forgeEnvironment(fake, mode, { ...opts, log }) });
  const { repo, project } = await forgeProject(t, fake, 'acme/widgets', WF);
  return { fake, t, repo, project, log };
}

describe('forge_issue (rule 7)', () => {
  it('prefills title, description and declared fields; the request wins by presence', async () => {
    const { fake, t, project } = await world();
    fake.issue('acme/widgets', {
      number: 5,
      title: 'Crash on start',
      body: 'Steps:\n1. run',
      labels: ['bug'],
      author: 'alice',
    });
    const task = await createTask(t, {
      project_id: project.id,
      workflow: 'fields',
      forge_issue: 5,
      paused: true,
    });
    expect(task).toMatchObject({
      title: 'Crash on start',
      description: 'Steps:\n1. run\n\nIssue #5: https://github.com/acme/widgets/issues/5',
      fields: { issue: '5' },
      forge_issue: {
        number: 5,
        title: 'Crash on start',
        url: 'https://github.com/acme/widgets/issues/5',
        state: 'open',
        labels: ['bug'],
        author: 'alice',
        repo: 'acme/widgets',
      },
    });
    expect(task.forge_issue).not.toHaveProperty('body');

    const own = await createTask(t, {
      project_id: project.id,
      workflow: 'fields',
      forge_issue: 5,
      title: 'My title',
      description: '',
      fields: { issue: '', note: 'n' },
      paused: true,
    });
    expect(own).toMatchObject({
      title: 'My title',
      description: '',
      fields: { issue: '', note: 'n' },
    });
    // An empty title yields to the issue's.
    const blank = await createTask(t, {
      project_id: project.id,
      workflow: 'ok',
      forge_issue: 5,
      title: '  ',
      paused: true,
    });
    expect(blank.title).toBe('Crash on start');
    expect(fake.requests.every((r) => r.authorized)).toBe(true);
  });

  it('uses gh when it is installed and logged in, and never a token then', async () => {
    const { fake, t, project, log } = await world('gh');
    fake.issue('acme/widgets', { number: 1, title: 'via gh' });
    const task = await createTask(t, {
      project_id: project.id,
      workflow: 'ok',
      forge_issue: 1,
      paused: true,
    });
    expect(task.title).toBe('via gh');
    const calls = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as string[]);
    expect(calls[0]).toEqual(['auth', 'status', '--hostname', 'github.com']);
    expect(calls[1]?.slice(0, 3)).toEqual(['api', '--hostname', 'github.com']);
    expect(calls[1]?.at(-1)).toBe('repos/acme/widgets/issues/1');
    expect(fake.requests.map((r) => r.scheme)).toEqual(['token']);
  });

  it('falls back to GITHUB_TOKEN when gh is logged out, and is 409 forge_unauthenticated with neither', async () => {
    const fallback = await world('gh', { loggedIn: false, token: true });
    fallback.fake.issue('acme/widgets', { number: 1, title: 'via token' });
    const task = await createTask(fallback.t, {
      project_id: fallback.project.id,
      workflow: 'ok',
      forge_issue: 1,
      paused: true,
    });
    expect(task.title).toBe('via token');
    expect(fallback.fake.requests.map((r) => r.scheme)).toEqual(['Bearer']);

    const loggedOut = await world('gh', { loggedIn: false });
    loggedOut.fake.issue('acme/widgets', { number: 1 });
    const res = await loggedOut.t.api('POST', '/v1/tasks', {
      project_id: loggedOut.project.id,
      workflow: 'ok',
      forge_issue: 1,
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({
      code: 'invalid_state',
      details: { reason: 'forge_unauthenticated' },
    });

    const none = await world('none');
    const r2 = await none.t.api('POST', '/v1/tasks', {
      project_id: none.project.id,
      workflow: 'ok',
      forge_issue: 1,
    });
    expect(r2.json().error.details.reason).toBe('forge_unauthenticated');
    expect(none.fake.requests).toEqual([]);
  });

  it('answers the other reasons, 400 for a missing issue or both references, and makes no call without one', async () => {
    const { fake, t, project } = await world();
    const reason = async (body: Record<string, unknown>, pid = project.id) => {
      const res = await t.api('POST', '/v1/tasks', { project_id: pid, workflow: 'ok', ...body });
      return [
        res.statusCode,
        res.json().error?.details?.reason ?? res.json().error?.details?.field,
      ];
    };
    const plain = await createTask(t, {
      project_id: project.id,
      workflow: 'ok',
      title: 'plain',
      paused: true,
    });
    expect(plain).not.toHaveProperty('forge_issue');
    expect(fake.requests).toEqual([]);
    expect(await reason({ forge_issue: 404 })).toEqual([400, 'forge_issue']);
    expect(await reason({ forge_issue: 1, forge_pull: 2 })).toEqual([400, 'forge_pull']);
    fake.failWith(500);
    expect(await reason({ forge_issue: 1 })).toEqual([409, 'forge_bad_response']);
    fake.failWith(null);

    const local = await addProject(t, WF);
    expect(await reason({ forge_issue: 1 }, local.project.id)).toEqual([409, 'forge_not_detected']);
    local.repo.git('remote', 'add', 'origin', 'https://gitlab.com/acme/widgets.git');
    expect(await reason({ forge_issue: 1 }, local.project.id)).toEqual([409, 'forge_not_detected']);

    await t.json('PATCH', '/v1/config', { forge: { enabled: false } });
    expect(await reason({ forge_issue: 1 })).toEqual([409, 'forge_disabled']);
  });

  it('takes the Idempotency-Key digest before the prefill', async () => {
    const { fake, t, project } = await world();
    fake.issue('acme/widgets', { number: 2, title: 'first' });
    const body = { project_id: project.id, workflow: 'ok', forge_issue: 2, paused: true };
    const a = await createTask(t, body, { 'idempotency-key': 'k1' });
    fake.issue('acme/widgets', { number: 2, title: 'renamed upstream' });
    const b = await createTask(t, body, { 'idempotency-key': 'k1' });
    expect(b.id).toBe(a.id);
    expect(b.title).toBe('first');
  });

  it('keeps no credential anywhere the daemon writes', async () => {
    const { fake, t, project } = await world();
    fake.issue('acme/widgets', { number: 3 });
    await createTask(t, { project_id: project.id, workflow: 'ok', forge_issue: 3, paused: true });
    await t.close();
    for (const file of [t.paths.dbFile, `${t.paths.dbFile}-wal`, t.paths.logFile]) {
      if (existsSync(file)) expect(readFileSync(file).includes(fake.token)).toBe(false);
    }
  });
});
