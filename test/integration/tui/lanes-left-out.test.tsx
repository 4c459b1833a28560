// Issue 18 point 1 on the board (decisions 191, 192): the detail pane counts a fan-out's merged and
// unmerged lanes and names each lane left out with its branch, as `svc task show` does; `M` merges
// what finished at a join. It used to say "lanes 2/2 settled" whatever reached the branch.
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../support/app.js';
import { act, addProject, createTask, getTask, waitState } from '../../support/tasks.js';
import { listeningApp, renderBoard } from '../../support/tui.js';

const FAN = `name: fan
steps:
  - id: split
    type: fan_out
    lanes:
      - id: good
        steps:
          - id: g
            type: command
            run: echo good > good.txt && git add good.txt && git commit -q -m good
      - id: bad
        steps:
          - id: b
            type: command
            max_retries: 0
            run: exit 1
`;

describe('the board’s detail of a fan-out', { timeout: 120_000 }, () => {
  it('M merges what finished, then the detail counts merged lanes and names the one left out', async () => {
    const { t, client } = await listeningApp();
    const { project } = await addProject(t, { fan: FAN });
    const task = await createTask(t, { project_id: project.id, title: 'Fan', workflow: 'fan' });
    const bad = await waitFor(async () => {
      const lanes = await t.json<
        Array<{ id: number; lane_id: string; state: string; branch_name: string }>
      >('GET', `/v1/tasks?parent_id=${task.id}`);
      return lanes.find((l) => l.lane_id === 'bad' && l.state === 'blocked');
    }, 30_000);
    expect((await act(t, bad.id, 'cancel')).statusCode).toBe(200);
    await waitState(t, task.id, 'blocked', 30_000);

    const b = renderBoard(client);
    await b.select(task.id);
    await b.press('M');
    await b.until(`Merge what finished for #${task.id}?`);
    await b.press('y');
    await waitState(t, task.id, 'done', 30_000);
    await b.press('enter');
    const detail = await b.until('left out: lane bad');
    expect(detail).toContain('lanes 2/2 settled, 1 merged, 1 not merged');
    expect(detail).toContain(
      `left out: lane bad (task ${bad.id}, aborted): branch ${bad.branch_name}`,
    );
    expect((await getTask(t, task.id)).state).toBe('done');
  });
});
