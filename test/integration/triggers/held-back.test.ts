// Issue 18 point 4 (decision 196): the ledger accounts for every event past the 20-event cap of one
// poll — left for the next poll where the source can resume, recorded `truncated` where its cursor
// moved past them, `seeded` on a seeding poll — and `poll` says how many were held back.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Client } from '../../../cli/client.js';
import { pathsFor } from '../../../kernel/daemon/paths.js';
import { runDaemon } from '../../../kernel/listener.js';
import { waitFor } from '../../support/app.js';
import { cli } from '../../support/cli.js';
import { gitRepo } from '../../support/git.js';
import { commandWorkflow, withWorkflows } from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';
import { CREATE_OK, commandTrigger, tick, triggerWorld } from '../../support/triggers.js';

const ids = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `e${from + i}`);

describe('events past the per-poll cap', { timeout: 120_000 }, () => {
  it('without per-event cursors: 20 are judged, the rest recorded truncated, and poll says so', async () => {
    const w = await triggerWorld();
    w.setEvents([...ids(1, 10).map((id) => ({ id })), { cursor: '10' }]);
    await w.put('cap', commandTrigger(w, 'cap', CREATE_OK));
    // Thirty new events after the ten the seeding poll saw.
    w.setEvents([...ids(11, 40).map((id) => ({ id })), { cursor: '40' }]);
    await tick(w, '1m');
    const rows = await w.deliveries('cap');
    const outcome = new Map(rows.map((r) => [r.event_id, r.outcome]));
    expect(ids(1, 10).map((id) => outcome.get(id))).toEqual(Array(10).fill('seeded'));
    expect(ids(11, 30).map((id) => outcome.get(id))).toEqual(Array(20).fill('fired'));
    expect(ids(31, 40).map((id) => outcome.get(id))).toEqual(Array(10).fill('truncated'));
    expect(rows.find((r) => r.event_id === 'e31')?.detail).toMatchObject({
      message: expect.stringContaining('cap'),
    });
    expect((await w.row('cap')).poll).toMatchObject({ ok: true, held_back: 10, truncated: 10 });
    // A truncated event seen again later is judged like any other (it never fired).
    w.setEvents([{ id: 'e35' }, { cursor: '41' }]);
    await tick(w, '1m');
    expect((await w.deliveries('cap'))[0]).toMatchObject({ event_id: 'e35', outcome: 'fired' });
    expect((await w.row('cap')).poll).toMatchObject({ held_back: 0, truncated: 0 });
  });

  it('with per-event cursors: the rest wait for the next poll and all fire', async () => {
    const w = await triggerWorld();
    // The command prints the events after the cursor it is given, each carrying its own cursor.
    const all = ids(1, 30).map((id, i) => ({ id, cursor: String(i + 1) }));
    writeFileSync(w.eventsFile, `${all.map((e) => JSON.stringify(e)).join('\n')}\n`);
    const script = `tail -n +$(( \${SVC_TRIGGER_CURSOR:-0} + 1 )) ${JSON.stringify(w.eventsFile)}`;
    await w.put(
      'res',
      `id: res\nenabled: true\nproject_id: ${w.project.id}\nsource:\n  type: command\n  command: [sh, -c, ${JSON.stringify(`if [ "$SVC_TRIGGER_SEEDING" = 1 ]; then echo '{"cursor": "0"}'; else ${script}; fi`)}]\n  poll_interval: 1m\naction:\n${CREATE_OK}`,
    );
    await tick(w, '1m');
    expect((await w.row('res')).poll).toMatchObject({ held_back: 10, truncated: 0 });
    expect((await w.deliveries('res')).filter((r) => r.outcome === 'fired')).toHaveLength(20);
    await tick(w, '1m');
    const rows = await w.deliveries('res');
    expect(
      rows
        .filter((r) => r.outcome === 'fired')
        .map((r) => r.event_id)
        .sort(),
    ).toEqual(ids(1, 30).sort());
    expect(rows.some((r) => r.outcome === 'truncated')).toBe(false);
    expect((await w.row('res')).poll).toMatchObject({ held_back: 0, truncated: 0 });
  });

  it('a seeding poll records every event it saw as seeded, past the cap too', async () => {
    const w = await triggerWorld();
    w.setEvents(ids(1, 25).map((id) => ({ id })));
    await w.put('seed', commandTrigger(w, 'seed', CREATE_OK));
    const rows = await w.deliveries('seed');
    expect(rows).toHaveLength(25);
    expect(new Set(rows.map((r) => r.outcome))).toEqual(new Set(['seeded']));
    // Seeded, so they dedupe: nothing fires when they are printed again.
    await tick(w, '1m');
    expect((await w.deliveries('seed')).some((r) => r.outcome === 'fired')).toBe(false);
  });

  it('svc trigger show says how many were held back', async () => {
    const root = tempDir();
    const env = { SVC_CONFIG_DIR: join(root, 'config'), SVC_DATA_DIR: join(root, 'data') };
    const paths = pathsFor(env.SVC_CONFIG_DIR, env.SVC_DATA_DIR);
    const daemon = await runDaemon(paths, { handleSignals: false });
    try {
      const repo = gitRepo();
      withWorkflows(repo, { ok: commandWorkflow('ok', 'true') });
      const client = Client.discover(paths);
      const project = await client.post<{ id: number }>('/v1/projects', { path: repo.path });
      await client.patch('/v1/config', { triggers: { enabled: true } });
      const events = join(tempDir(), 'events.jsonl');
      writeFileSync(events, '');
      writeFileSync(
        join(paths.triggersDir, 'burst.yaml'),
        `id: burst\nenabled: true\nproject_id: ${project.id}\nsource:\n  type: command\n  command: [cat, ${JSON.stringify(events)}]\n  poll_interval: 1s\naction:\n${CREATE_OK}`,
        { mode: 0o600 },
      );
      await waitFor(
        async () =>
          (await client.get<{ poll: { seeded: boolean } }>('/v1/triggers/burst')).poll.seeded,
        20_000,
      );
      writeFileSync(
        events,
        `${ids(1, 23)
          .map((id) => JSON.stringify({ id }))
          .join('\n')}\n`,
      );
      await waitFor(
        async () =>
          (await client.get<{ poll: { held_back: number } }>('/v1/triggers/burst')).poll
            .held_back === 3,
        20_000,
      );
      const shown = await cli(env, 'trigger', 'show', 'burst');
      expect(shown.code).toBe(0);
      expect(shown.out).toContain(
        '# held back at the last poll: 3 events past the 20-event cap (3 recorded truncated, 0 come again at the next poll)',
      );
    } finally {
      await daemon.stop();
    }
  });
});
