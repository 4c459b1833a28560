// Issue 8 point 3: the forge_issues and forge_prs sources against the fake GitHub — a seeding
// poll that only takes a snapshot, then opened / updated / synchronized events, the label filter,
// allowed_actors on the author, an unusable integration as a failed poll, and a pull request
// trigger creating a forge_pull task end to end.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../kernel/clock/index.js';
import { buildTestApp, type TestApp } from '../../support/app.js';
import { fakeGithub, forgeEnvironment, forgeProject } from '../../support/fake-github.js';
import { commandWorkflow, getTask, waitState } from '../../support/tasks.js';

const WF = { ok: commandWorkflow('ok', 'test -f pr-3.txt || true') };

async function world(mode: 'token' | 'none' = 'token') {
  const fake = await fakeGithub();
  const clock = new FakeClock(Date.now());
  const t = await buildTestApp({
    clock,
    config: `triggers:\n  enabled: true\n${forgeEnvironment(fake, mode)}`,
  });
  const { project } = await forgeProject(t, fake, 'acme/widgets', WF);
  return { fake, t, clock, project };
}

async function put(t: TestApp, id: string, yaml: string) {
  writeFileSync(join(t.paths.triggersDir, `${id}.yaml`), yaml, { mode: 0o600 });
  t.kernel.services.triggers.reload('file');
  await t.kernel.services.triggers.idle();
}

async function step(t: TestApp, clock: FakeClock, by = '1m') {
  await clock.advance(by);
  await t.kernel.services.triggers.idle();
}

async function ledger(t: TestApp, id: string) {
  return (
    await t.json<{
      deliveries: Array<{ event_id: string; outcome: string; task_id: number | null }>;
    }>('GET', `/v1/triggers/${id}/deliveries`)
  ).deliveries.reverse();
}

function issuesTrigger(projectId: number, extra = '') {
  return `id: issues\nenabled: true\nproject_id: ${projectId}\n${extra}source:\n  type: forge_issues\n  labels: [svc]\n  poll_interval: 1m\naction:\n  type: create_task\n  title: "{{.Event.kind}} #{{.Event.number}}"\n  workflow: ok\n  forge_issue: "{{.Event.number}}"\n`;
}

describe('forge_issues', () => {
  it('seeds a snapshot, then fires opened and updated issues carrying the label', async () => {
    const { fake, t, clock, project } = await world();
    fake.issue('acme/widgets', { number: 1, title: 'old', labels: ['svc'] });
    // Disabled, the dry poll says a real poll would seed, and a forge seeding poll has no events.
    const text = issuesTrigger(project.id, 'allowed_actors: [alice, octocat]\n');
    await put(t, 'issues', text.replace('enabled: true', 'enabled: false'));
    const seeding = await t.json('POST', '/v1/triggers/issues/poll');
    expect(seeding).toMatchObject({ seed: true, events: [], truncated: 0, refused: 0 });
    await put(t, 'issues', text);
    expect(await ledger(t, 'issues')).toEqual([]);
    expect(
      (await t.json<{ poll: { seeded: boolean } }>('GET', '/v1/triggers/issues')).poll.seeded,
    ).toBe(true);

    fake.issue('acme/widgets', { number: 2, title: 'new', labels: ['svc'], author: 'alice' });
    fake.issue('acme/widgets', { number: 3, title: 'unlabelled', author: 'alice' });
    fake.issue('acme/widgets', {
      number: 4,
      title: 'stranger',
      labels: ['svc'],
      author: 'mallory',
    });
    fake.issue('acme/widgets', { number: 1, title: 'old, edited', labels: ['svc'] });
    const preview = await t.json<{
      seed: boolean;
      events: Array<{ event_id: string; outcome: string }>;
    }>('POST', '/v1/triggers/issues/poll');
    expect(preview.seed).toBe(false);
    expect(preview.events.map((e) => e.outcome)).toEqual(['fired', 'filtered', 'fired']);
    await step(t, clock);
    const rows = await ledger(t, 'issues');
    expect(rows.map((r) => r.outcome)).toEqual(['fired', 'filtered', 'fired']);
    const titles = await Promise.all(
      rows.filter((r) => r.task_id).map(async (r) => (await getTask(t, r.task_id as number)).title),
    );
    // The task title comes from the trigger's template; forge_issue prefilled the rest.
    expect(titles).toEqual(['opened #2', 'updated #1']);
    const task = await getTask(t, rows[0]?.task_id as number);
    expect(task.forge_issue).toMatchObject({ number: 2, author: 'alice' });
    expect(task.state).toBe('paused');

    // Nothing new: nothing judged.
    await step(t, clock);
    expect(await ledger(t, 'issues')).toHaveLength(3);
  });

  it('reports an unusable integration as a failed poll', async () => {
    const { t, project } = await world('none');
    await put(t, 'issues', issuesTrigger(project.id));
    const row = await t.json<{ poll: { ok: boolean; error: string; seeded: boolean } }>(
      'GET',
      '/v1/triggers/issues',
    );
    expect(row.poll).toMatchObject({ ok: false, seeded: false });
    expect(row.poll.error).toContain('forge_unauthenticated');
    const dry = await t.json<{ events: unknown[]; error: string }>(
      'POST',
      '/v1/triggers/issues/poll',
    );
    expect(dry.events).toEqual([]);
    expect(dry.error).toContain('forge_unauthenticated');
  });
});

describe('forge_prs', () => {
  async function prWorld(kinds: string, top = '') {
    const w = await world();
    w.fake.pull('acme/widgets', { number: 1, head_ref: 'before' });
    await put(
      w.t,
      'prs',
      `id: prs\nenabled: true\nproject_id: ${w.project.id}\n${top}source:\n  type: forge_prs\n  poll_interval: 1m\nmatch:\n  kind: [${kinds}]\naction:\n  type: create_task\n  title: ""\n  workflow: ok\n  forge_pull: "{{.Event.number}}"\n`,
    );
    return w;
  }

  it('the seeding poll answers no events; an opened pull request becomes a forge_pull task', async () => {
    const { fake, t, clock } = await prWorld('opened', 'on_fire: create\n');
    expect(await ledger(t, 'prs')).toEqual([]);
    fake.pull('acme/widgets', { number: 3, title: 'Third', head_ref: 'third' });
    await step(t, clock);
    const [row] = await ledger(t, 'prs');
    expect(row).toMatchObject({ outcome: 'fired' });
    const task = await waitState(t, row?.task_id as number, 'done');
    // An empty title from the template yields to the pull request's (rule 7's emptiness rule).
    expect(task).toMatchObject({
      title: '#3 Third',
      branch_name: 'third',
      triggered_by: 'prs',
      forge_pull: { number: 3, source: 'trigger', fork: false },
    });
  });

  it('tells synchronized (a new head) from updated', async () => {
    const { fake, t, clock } = await prWorld('synchronized');
    fake.touchPull('acme/widgets', 1, { title: 'renamed' });
    await step(t, clock);
    fake.pushToPull('acme/widgets', 1, { 'b.txt': 'b\n' });
    await step(t, clock);
    const rows = await ledger(t, 'prs');
    expect(rows.map((r) => r.outcome)).toEqual(['filtered', 'fired']);
    expect((await getTask(t, rows[1]?.task_id as number)).title).toBe('#1 renamed');
  });
});
