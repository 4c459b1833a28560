// Decision 258: an attempt's end is recorded once every line of its transcript is on disk — not
// once the file's descriptor is closed, a round trip through the thread pool that nothing needs.
// A close held back for seconds here (as a slow or network file system may) must not hold the
// task: it is done, its transcript whole on disk, while the close is still on its way.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../../support/app.js';
import { pathOfFd, swapFs } from '../../support/faults.js';
import { addProject, commandWorkflow, createTask, waitState } from '../../support/tasks.js';

/** Holds every close of a file under `prefix` for `ms` until the test ends; how many are held. */
function slowCloses(prefix: string, ms: number): { held(): number } {
  let held = 0;
  swapFs('close', (original) => (fd: number, cb?: (err: NodeJS.ErrnoException | null) => void) => {
    if (!pathOfFd(fd).startsWith(prefix)) return original(fd, cb);
    held++;
    setTimeout(() => {
      held--;
      original(fd, cb);
    }, ms);
  });
  return { held: () => held };
}

describe("an attempt's transcript", () => {
  it('is whole on disk when the task is done, and a slow close of its file holds nothing', async () => {
    const t = await buildTestApp();
    const { project } = await addProject(t, {
      say: commandWorkflow('say', 'echo one; echo two'),
    });
    const closes = slowCloses(t.paths.transcriptsDir, 4_000);
    const task = await createTask(t, { project_id: project.id, title: 'say', workflow: 'say' });
    const done = await waitState(t, task.id, 'done', 3_000);
    expect(closes.held()).toBe(1);
    expect(done.steps?.[0]?.state).toBe('succeeded');
    const file = join(t.paths.transcriptsDir, String(task.id), '0-1.jsonl');
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { type: string }).type)).toEqual([
      'svc.step_started',
      'svc.command_started',
      'svc.output',
      'svc.output',
      'svc.step_finished',
    ]);
  });
});
