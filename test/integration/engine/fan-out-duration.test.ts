// Issue 19 point 14: a fan_out step's row runs from the spawn of its lanes to its join, so the
// timeline shows how long the lanes took (it showed 0s: the row was written at the join).
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../kernel/clock/index.js';
import { buildTestApp } from '../../support/app.js';
import { act, addProject, createTask, type StepJson, waitState } from '../../support/tasks.js';

const FAN =
  'name: fan\nsteps:\n  - id: split\n    type: fan_out\n    lanes:\n      - id: only\n        steps:\n          - id: gate\n            type: manual\n            instructions: ok?\n';

describe('fan_out timing', () => {
  it('times the step from the spawn to the join', async () => {
    const clock = new FakeClock(Date.parse('2026-11-27T10:00:00Z'));
    const t = await buildTestApp({ clock });
    const { project } = await addProject(t, { fan: FAN });
    const task = await createTask(t, { project_id: project.id, title: 'fan', workflow: 'fan' });
    await waitState(t, task.id, 'awaiting_children');
    const [lane] = await t.json<Array<{ id: number }>>('GET', `/v1/tasks?parent_id=${task.id}`);
    await waitState(t, lane?.id as number, 'awaiting_gate');
    await clock.advance('10m');
    await act(t, lane?.id as number, 'approve');
    await waitState(t, task.id, 'done');
    const steps = await t.json<StepJson[]>('GET', `/v1/tasks/${task.id}/steps`);
    const split = steps.find((s) => s.step_id === 'split');
    const ran = Date.parse(String(split?.finished_at)) - Date.parse(String(split?.started_at));
    expect(ran).toBeGreaterThanOrEqual(10 * 60_000);
  });
});
