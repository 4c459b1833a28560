// Issue 19 point 3: `svc status` prints the caps and the slots in use, as its help, getting-started
// and troubleshooting say (not only with --json). The built CLI against a test daemon.
import { describe, expect, it } from 'vitest';
import { cliDaemon, HAVE_BUILD, svcProc } from '../support/cli-proc.js';
import { act, addProject, commandWorkflow, createTask, waitState } from '../support/tasks.js';

// Each command is its own process; on a loaded machine one takes seconds.
const SLOW = 180_000;

describe.skipIf(!HAVE_BUILD)('svc status', () => {
  it(
    'prints the slots in use, a project cap, and the caps in force',
    async () => {
      const { t, env } = await cliDaemon({
        config: 'max_parallel_tasks: 2\nmax_task_cost_usd: 5\n',
      });
      const { project } = await addProject(
        t,
        { hold: commandWorkflow('hold', 'sleep 30') },
        { name: 'demo', max_parallel_tasks: 1 },
      );
      const task = await createTask(t, { project_id: project.id, title: 'hold', workflow: 'hold' });
      await waitState(t, task.id, 'running');
      try {
        const r = await svcProc(env, ['status']);
        expect(r.code).toBe(0);
        const lines = r.out.split('\n');
        expect(lines[0]).toMatch(
          /^svc \S+ running at http:\/\/127\.0\.0\.1:\d+ \(pid \d+, up \d+s\)$/,
        );
        expect(lines).toContain('slots  tasks 1/2 · chats 0/3 · project demo 1/1 in use');
        expect(r.out).toMatch(
          /^caps {3}max_parallel_tasks 2 · max_parallel_chats 3 · parallel\.max_parallel 4$/m,
        );
        expect(r.out).toMatch(/fan_out 3 deep, 64 tasks · loop\.max_iterations 10/);
        expect(r.out).toMatch(/cost per task \$5 · per fan_out tree none$/m);
      } finally {
        await act(t, task.id, 'cancel');
      }
    },
    SLOW,
  );
});
