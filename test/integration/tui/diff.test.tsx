// Issue 16 point 3: the board's diff view through ink-testing-library against a real daemon —
// the gate's stat in the detail pane, the file list and hunks, n/p, comments on marked lines sent
// as a review, approve from the view, and tui.keys rebinding.
import { describe, expect, it } from 'vitest';
import { agentConfig, stepRuns } from '../../support/agents.js';
import { waitFor } from '../../support/app.js';
import { gatedTask } from '../../support/review.js';
import { createTask, getTask, waitState } from '../../support/tasks.js';
import { listeningApp, renderBoard } from '../../support/tui.js';

describe('the diff view', () => {
  it('shows the gate’s stat, the files and hunks; comments on a marked line go back as a review', async () => {
    const { t, client } = await listeningApp({ config: agentConfig() });
    const { task } = await gatedTask(t);
    const b = renderBoard(client);
    await b.select(task.id);
    await b.until('⏎ open · d diff');
    await b.press('enter');
    // The stat takes a handful of git processes: give a loaded machine time.
    const SLOW = 30_000;
    await b.until(/changes {2}8 files \+\d+ -1 against main · d: the diff/, SLOW);
    await b.until('  M README.md  +1 -0');

    await b.press('d');
    let f = await b.until('changes against main · 8 files', SLOW);
    expect(f).toContain('M README.md');
    expect(f).toContain('A untracked.txt');
    expect(f).toContain('R renamed.txt');
    await b.until('@@ -1 +1,2 @@', SLOW);
    f = await b.until('+more');
    expect(f).toContain('# test repo');
    expect(f).toContain('n next file · p prev file · c comment');

    // n and p walk the files; a binary file says so.
    await b.press('n');
    await b.until('binary file');
    await b.press('p');
    await b.until('+more');

    // Mark the added line, comment on it, and send.
    await b.press('down', 'down');
    await b.press('c');
    await b.until(`#${task.id} comment on README.md:2`);
    await b.press('Say more than more', 'enter');
    f = await b.until('✎ Say more than more');
    expect(f).toContain('✎1');
    await b.until('S send 1');
    await b.press('S');
    await b.until(
      `Send 1 comment to #${task.id}'s agent rejecting the gate, then repairing with them? [y/n]`,
    );
    await b.press('y');
    await b.until(
      `#${task.id} review of 1 comment sent rejecting the gate, then repairing: now queued`,
    );
    // The view closed on the detail it was opened from.
    await b.until('Steps');
    // The repair is queued when the view says so; its step run is written once it is admitted.
    const rows = await waitFor(async () => {
      const r = (await stepRuns(t, task.id)).map((s) => [s.step_id, s.state]);
      return r.length >= 3 ? r : null;
    });
    expect(rows.slice(0, 3)).toEqual([
      ['change', 'succeeded'],
      ['check', 'rejected'],
      ['__repair', rows[2]?.[1]],
    ]);
  });

  it('approves the gate from the view, and leaves without sending after asking', async () => {
    const { t, client } = await listeningApp();
    const { task, project } = await gatedTask(t);
    const other = await createTask(t, { project_id: project.id, title: 'Other', workflow: 'work' });
    await waitState(t, other.id, 'awaiting_gate');
    const b = renderBoard(client);

    await b.select(other.id);
    await b.press('d');
    await b.until('+more');
    await b.press('down', 'down', 'c', 'drop me', 'enter');
    await b.until('✎ drop me');
    await b.press('escape');
    await b.until('Leave the diff and drop 1 comment not sent? [y/n]');
    await b.press('n');
    await b.until('✎ drop me');
    await b.press('escape', 'y');
    await b.until('⏎ open');
    expect((await getTask(t, other.id)).state).toBe('awaiting_gate');

    await b.select(task.id);
    await b.press('d');
    await b.until('a approve · x reject');
    await b.press('a');
    // The gate's worktree holds work its branch does not: approving asks first (issue 19 point 9).
    await b.until('uncommitted files its branch svc/1-work does not have. Approve anyway? [y/n]');
    await b.press('y');
    await b.until(`#${task.id} approve: now queued`);
    await waitState(t, task.id, 'done');
  });

  it('takes its keys from tui.keys, the view’s own apart from the board’s', async () => {
    const { t, client } = await listeningApp({
      config: 'tui:\n  keys:\n    diff: D\n    next_file: "]"\n    comment: m\n',
    });
    const { task } = await gatedTask(t);
    const b = renderBoard(client);
    await b.select(task.id);
    await b.until('D diff');
    await b.press('d');
    await b.press('D');
    await b.until('] next file · p prev file · m comment');
    await b.until('+more');
    await b.press(']');
    await b.until('binary file');
    // `n` is the board's new task; in the view it no longer moves.
    await b.press('n');
    await b.until('binary file');
    await b.press('?');
    const help = await b.until('Rebind with tui.keys');
    expect(help).toMatch(/D\s+diff\s+the selected task/);
    expect(help).toMatch(/]\s+next_file\s+diff view: the next file/);
  });
});
