// Issue 22 point 4 (decision 239): while command steps print as fast as they can, the daemon keeps
// answering — its output is encoded in turns shared with requests — and still keeps every line.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../../support/app.js';
import { addProject, commandWorkflow, createTask, waitState } from '../../support/tasks.js';

describe('a daemon under heavy output', () => {
  it('answers the health route and the task list while two steps print 50 MB each', async () => {
    const t = await buildTestApp({ config: 'max_parallel_tasks: 2\n' });
    // 500,000 lines of 100 bytes each, printed as fast as the pipe takes them.
    const { project } = await addProject(t, {
      loud: commandWorkflow('loud', `yes ${'x'.repeat(99)} | head -n 500000`),
    });
    const tasks = await Promise.all(
      [1, 2].map((i) =>
        createTask(t, { project_id: project.id, title: `loud ${i}`, workflow: 'loud' }),
      ),
    );
    // Answers arrive while the steps are still printing.
    let answeredWhileRunning = 0;
    for (let i = 0; i < 2000 && answeredWhileRunning < 5; i++) {
      const health = await t.api('GET', '/v1/health');
      expect(health.statusCode).toBe(200);
      const list = await t.json<Array<{ id: number; state: string }>>('GET', '/v1/tasks');
      if (list.some((x) => x.state === 'running')) answeredWhileRunning++;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(answeredWhileRunning).toBe(5);
    for (const task of tasks) {
      await waitState(t, task.id, 'done', 120_000);
      const file = readFileSync(join(t.paths.transcriptsDir, String(task.id), '0-1.jsonl'), 'utf8');
      const out = file.split('\n').filter((l) => l.includes('"svc.output"'));
      expect(out).toHaveLength(500_000);
      expect(out.every((l) => (JSON.parse(l) as { text: string }).text === 'x'.repeat(99))).toBe(
        true,
      );
    }
  }, 180_000);
});
