// Issue 19 on the board (ink-testing-library against a real daemon): every task, however many
// (point 13: paging, true counts, a filter, the selection on what waits for you); what a stopped
// task waits on (point 8: the gate's instructions); uncommitted work (point 9: a badge, a question
// before approving); an agent's earlier output rendered rather than noted, and an attempt header
// above a retried attempt's output (points 7 and 14).
import { describe, expect, it } from 'vitest';
import { agentConfig, agentWorkflow } from '../../support/agents.js';
import { addProject, commandWorkflow, createTask, waitState } from '../../support/tasks.js';
import { listeningApp, renderBoard, selectedLine } from '../../support/tui.js';

const GATE =
  'name: gate\nsteps:\n  - id: edit\n    type: command\n    run: "echo scratch > notes.txt"\n  - id: review\n    type: manual\n    instructions: |\n      Read the diff of the branch.\n      Approve when the tests pass.\n';

describe('the board at any size', () => {
  it('shows and counts every task past the first page, opens on one that waits, and filters', {
    timeout: 120_000,
  }, async () => {
    const { t, client } = await listeningApp({ config: 'tui:\n  board:\n    group_by: []\n' });
    const { project } = await addProject(t, {
      broken: commandWorkflow('broken', 'exit 3', '    max_retries: 0\n'),
      quick: commandWorkflow('quick', 'true'),
    });
    // The oldest task waits on the user; 104 newer ones are held, the newest is done.
    const stuck = await createTask(t, {
      project_id: project.id,
      title: 'needle in the stack',
      workflow: 'broken',
    });
    await waitState(t, stuck.id, 'blocked');
    for (let i = 0; i < 104; i++)
      await createTask(t, {
        project_id: project.id,
        title: `held ${i}`,
        workflow: 'quick',
        paused: true,
      });
    const newest = await createTask(t, {
      project_id: project.id,
      title: 'done one',
      workflow: 'quick',
    });
    await waitState(t, newest.id, 'done');

    const b = renderBoard(client);
    const frame = await b.until(/svc 106 tasks/, 20_000);
    // 106 tasks, the blocked one and 104 paused ones wait on the user (GET /v1/tasks pages 100).
    expect(frame).toMatch(/svc 106 tasks · 0 running · 105 waiting on you/);
    // The newest row is done: the selection starts on the first row that waits for you.
    expect(selectedLine(frame)).toMatch(/held 103/);

    await b.press('/', ...'needle');
    const filtered = await b.until('filter "needle": 1 shown');
    expect(filtered).toContain('needle in the stack');
    expect(filtered).not.toContain('held 0');
    expect(selectedLine(filtered)).toContain('needle in the stack');
    await b.press('enter');
    await b.until((f) => !f.includes('filter: title'));
    await b.press('escape');
    // Escape drops the filter; the selection stays on the task that was found.
    const all = await b.until((f) => !f.includes('filter "needle"') && f.includes('held 0'));
    expect(selectedLine(all)).toContain('needle in the stack');
  });
});

describe('the detail pane and the gate', () => {
  it('shows a gate’s instructions, the uncommitted work, and asks before approving', async () => {
    const { t, client } = await listeningApp();
    const { project } = await addProject(t, { gate: GATE });
    const task = await createTask(t, { project_id: project.id, title: 'gated', workflow: 'gate' });
    await waitState(t, task.id, 'awaiting_gate');
    const b = renderBoard(client);
    const row = await b.until('1 uncommitted');
    expect(selectedLine(row)).toMatch(/awaiting_gate · 1 uncommitted/);
    await b.press('enter');
    const detail = await b.until('Approve when the tests pass.');
    expect(detail).toContain('gate review:');
    expect(detail).toContain('  Read the diff of the branch.');
    expect(detail).toMatch(/uncommitted: 1 file \(\+1 −0, 1 untracked\)/);
    await b.press('a');
    await b.until(/worktree has 1 uncommitted file .* Approve anyway\? \[y\/n\]/);
    await b.press('y');
    await waitState(t, task.id, 'done');
  });

  it('renders an agent’s earlier output and puts a header above a retried attempt', async () => {
    const { t, client } = await listeningApp({
      config: agentConfig({ FAKE_CLAUDE_SCENARIO: 'success' }),
    });
    const { project } = await addProject(t, {
      one: agentWorkflow('one', { agent: 'claude' }),
      flaky: commandWorkflow(
        'flaky',
        'if [ -f once ]; then echo second try; exit 0; fi; touch once; echo first try; exit 1',
        '    max_retries: 1\n',
      ),
    });
    const agent = await createTask(t, { project_id: project.id, title: 'agent', workflow: 'one' });
    const flaky = await createTask(t, {
      project_id: project.id,
      title: 'flaky',
      workflow: 'flaky',
    });
    await waitState(t, agent.id, 'done');
    await waitState(t, flaky.id, 'done');
    const b = renderBoard(client);
    await b.select(agent.id);
    await b.press('enter');
    const pane = await b.until('→ Bash echo fake');
    expect(pane).not.toContain('earlier agent output');
    expect(pane).toContain('── work attempt 1');
    b.unmount();
    const again = renderBoard(client);
    await again.select(flaky.id);
    await again.press('enter');
    const retried = await again.until('second try');
    expect(retried).toContain('── run attempt 2');
  });
});
