// Issue 12 point 1: `svc tui` against a real daemon, rendered headlessly by ink-testing-library.
// The board lists tasks grouped per tui.board.group_by with state, step (loop progress, lane
// counts), cost, duration and queued reason, and follows the daemon's events and config.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fakeGithub, forgeEnvironment, forgeProject } from '../../support/fake-github.js';
import { addProject, createTask, waitState } from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';
import { listeningApp, renderBoard, selectedLine } from '../../support/tui.js';

const STEPS = fileURLToPath(new URL('../../fixtures/plugins/board-steps', import.meta.url));

const WORKFLOWS = {
  gate: 'name: gate\nsteps:\n  - id: spend\n    type: spend\n    cost_usd: 0.25\n  - id: check\n    type: manual\n    instructions: look\n',
  looped:
    'name: looped\nsteps:\n  - id: each\n    type: loop\n    for_each: "red\\ngreen\\nblue"\n    steps:\n      - id: pick\n        type: ask\n        question: "Keep {{.Item}}?"\n',
  fan: 'name: fan\nsteps:\n  - id: split\n    type: fan_out\n    lanes:\n      - id: left\n        steps:\n          - id: l\n            type: manual\n            instructions: left ok?\n      - id: right\n        steps:\n          - id: r\n            type: manual\n            instructions: right ok?\n',
  backoff:
    'name: backoff\nsteps:\n  - id: flaky\n    type: command\n    run: exit 1\n    max_retries: 1\n    retry_backoff: 1h\n',
  broken:
    'name: broken\nsteps:\n  - id: fail\n    type: command\n    run: exit 3\n    max_retries: 0\n',
};

describe('the board', () => {
  it('groups tasks and shows state, step with loop and lanes, cost, duration and queued reason', async () => {
    const { t, client } = await listeningApp({ config: `plugins:\n  - ${STEPS}\n` });
    const { project: api } = await addProject(t, WORKFLOWS, { name: 'api' });
    const { project: web } = await addProject(t, WORKFLOWS, { name: 'web' });
    const gate = await createTask(t, { project_id: api.id, title: 'Gate me', workflow: 'gate' });
    const loop = await createTask(t, { project_id: api.id, title: 'Loop me', workflow: 'looped' });
    const fan = await createTask(t, { project_id: web.id, title: 'Fan me', workflow: 'fan' });
    const back = await createTask(t, {
      project_id: web.id,
      title: 'Back off',
      workflow: 'backoff',
    });
    const broke = await createTask(t, {
      project_id: web.id,
      title: 'Break me',
      workflow: 'broken',
    });
    await waitState(t, gate.id, 'awaiting_gate');
    await waitState(t, loop.id, 'awaiting_input');
    await waitState(t, fan.id, 'awaiting_children');
    const queued = await waitState(t, back.id, 'queued');
    await waitState(t, broke.id, 'blocked');

    const b = renderBoard(client);
    const frame = await b.until(
      (f) => f.includes('lanes 0/2 (2 at gate)') && f.includes('Break me'),
    );
    const lines = frame.split('\n');
    const at = (text: string) => lines.findIndex((l) => l.includes(text));
    // project groups sorted, workflow groups inside them, each with its count
    expect(at('api (2)')).toBeLessThan(at('gate (1)'));
    expect(at('gate (1)')).toBeLessThan(at('Gate me'));
    expect(at('looped (1)')).toBeLessThan(at('Loop me'));
    expect(at('web (3)')).toBeGreaterThan(at('Loop me'));
    expect(lines[at('Gate me')]).toMatch(
      /#\d+\s+awaiting_gate\s+2\/2 check\s+\$0\.25\s+\d+s\s+Gate me/,
    );
    expect(lines[at('Loop me')]).toMatch(/awaiting_input\s+1\/1 each · loop 1\/3 red\s+—/);
    expect(lines[at('Fan me')]).toMatch(
      /awaiting_children\s+1\/1 split · lanes 0\/2 \(2 at gate\)/,
    );
    // lanes are listed under their parent, in lane order, with their own state
    expect(at('└ left')).toBe(at('Fan me') + 1);
    expect(at('└ right')).toBe(at('Fan me') + 2);
    expect(lines[at('└ left')]).toMatch(/awaiting_gate\s+1\/1 l\s/);
    // retry_backoff: 1h on the daemon's clock; the board counts down to admit_not_before.
    expect(Date.parse(String(queued.admit_not_before)) - Date.now()).toBeGreaterThan(3500_000);
    expect(lines[at('Back off')]).toMatch(/queued: retry_backoff, (59m|1h00m) left/);
    expect(lines[at('Break me')]).toContain('blocked: step_failed');
    expect(frame).toMatch(/svc 5 tasks · 0 running · 5 waiting on you/);
    expect(selectedLine(frame)).toContain('Gate me');

    // tui.board.group_by is relayed live: [] draws the board flat, newest first.
    await t.json('PATCH', '/v1/config', { tui: { board: { group_by: [] } } });
    const flat = await b.until((f) => !f.includes('api (2)'));
    const order = flat
      .split('\n')
      .map((l) => /#(\d+)\s/.exec(l)?.[1])
      .filter(Boolean)
      .map(Number);
    expect(order.slice(0, 3)).toEqual([broke.id, back.id, fan.id]);
    await t.json('PATCH', '/v1/config', { tui: { board: { group_by: ['workflow'] } } });
    await b.until((f) => f.includes('fan (1)') && !f.includes('web (3)'));
  });

  it('follows the daemon: a task created elsewhere appears, and changes state live', async () => {
    const { t, client } = await listeningApp({ config: `plugins:\n  - ${STEPS}\n` });
    const { project } = await addProject(t, WORKFLOWS);
    const b = renderBoard(client);
    await b.until('no tasks yet');
    const task = await createTask(t, { project_id: project.id, title: 'Appear', workflow: 'gate' });
    await b.until(new RegExp(`#${task.id}\\s+awaiting_gate.*Appear`));
    await t.json('POST', `/v1/tasks/${task.id}/approve`);
    await b.until(new RegExp(`#${task.id}\\s+done.*Appear`));
  });

  it('draws the detail pane: where it runs, the step timeline and live output', async () => {
    const { t, client } = await listeningApp();
    const { project } = await addProject(t, {
      ticker:
        'name: ticker\nsteps:\n  - id: before\n    type: command\n    run: echo from-the-transcript\n  - id: gate\n    type: manual\n    instructions: go on\n  - id: tick\n    type: command\n    run: for i in 1 2 3; do echo tick-$i; sleep 0.4; done\n  - id: after\n    type: manual\n    instructions: done?\n',
    });
    const task = await createTask(t, { project_id: project.id, title: 'Tick', workflow: 'ticker' });
    await waitState(t, task.id, 'awaiting_gate');
    const b = renderBoard(client);
    await b.select(task.id);
    await b.press('enter');
    const detail = await b.until('from-the-transcript');
    expect(detail).toContain(`#${task.id} Tick  awaiting_gate`);
    expect(detail).toContain('waiting for approval at gate');
    expect(detail).toMatch(/worktree \/.*\/worktrees\/\d+/);
    expect(detail).toMatch(/1\s+before\s+command\s+succeeded/);
    expect(detail).toMatch(/>2\s+gate\s+manual\s+running/);
    expect(detail).toMatch(/3\s+tick\s+command\s+pending/);
    expect(detail).toContain('$ echo from-the-transcript');
    await b.press('a');
    // Live output of the next step arrives over the task's stream, line by line, once each.
    const live = await b.until(
      (f) => f.includes('tick-3') && /4\s+after\s+manual\s+running/.test(f),
    );
    expect(live.match(/tick-2/g)).toHaveLength(1);
    expect(live).toMatch(/3\s+tick\s+command\s+succeeded/);
    await b.press('escape');
    await b.until(new RegExp(`› .*#${task.id}`));
  });

  it('renders terminal hyperlinks only when tui.hyperlinks is on', async () => {
    const { t, client } = await listeningApp({ config: 'tui:\n  hyperlinks: true\n' });
    const { project } = await addProject(t, {
      gate: 'name: gate\nsteps:\n  - id: g\n    type: manual\n    instructions: x\n',
    });
    const task = await createTask(t, { project_id: project.id, title: 'Link', workflow: 'gate' });
    const ready = await waitState(t, task.id, 'awaiting_gate');
    const b = renderBoard(client);
    await b.select(task.id);
    await b.press('enter');
    const f = await b.until('worktree ');
    expect(f).toContain(`\u001b]8;;file://${ready.worktree_path}\u0007${ready.worktree_path}`);
    await t.json('PATCH', '/v1/config', { tui: { hyperlinks: false } });
    await b.until((x) => x.includes('worktree ') && !x.includes('\u001b]8;;'));
  });

  it('links a task made from a GitHub issue to the issue, when tui.hyperlinks is on', async () => {
    const fake = await fakeGithub();
    const config = `${forgeEnvironment(fake, 'token', { log: join(tempDir(), 'gh.log') })}\ntui:\n  hyperlinks: true\n`;
    const { t, client } = await listeningApp({ config });
    const { project } = await forgeProject(t, fake, 'acme/widgets', {
      gate: 'name: gate\nsteps:\n  - id: g\n    type: manual\n    instructions: x\n',
    });
    fake.issue('acme/widgets', { number: 5, title: 'Crash on start' });
    const task = await createTask(t, { project_id: project.id, workflow: 'gate', forge_issue: 5 });
    await waitState(t, task.id, 'awaiting_gate');
    const url = 'https://github.com/acme/widgets/issues/5';
    const b = renderBoard(client);
    await b.until(`\u001b]8;;${url}\u0007Crash on start`);
    await b.select(task.id);
    await b.press('enter');
    await b.until(`\u001b]8;;${url}\u0007${url}`);
  });
});
