// Issue 19 points 8, 13 and 14: `svc task show` says what the human is waiting on (the gate's
// instructions, the agent's question with its options and their descriptions) without doubled
// words or raw JSON; a queued task's priority changes from the CLI; a pending pause can be
// withdrawn; the lane tree draws ├─/└─; a follow-up shows as such; follow_up is not offered to a
// task without a worktree. The built CLI against a test daemon.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentConfig, agentWorkflow } from '../support/agents.js';
import { type TestApp, waitFor } from '../support/app.js';
import { cliDaemon, HAVE_BUILD, svcProc } from '../support/cli-proc.js';
import { act, addProject, createTask, getTask, waitState } from '../support/tasks.js';

const SLOW = 180_000;

/** The worktree of a task once it runs in it (admission sets the path just after `running`). */
async function worktreeOf(t: TestApp, id: number): Promise<string> {
  return waitFor(async () => {
    const x = await getTask(t, id);
    return x.state === 'running' && x.worktree_path ? x.worktree_path : null;
  });
}

const GATE =
  'name: gate\nsteps:\n  - id: build\n    type: command\n    run: "true"\n  - id: review\n    type: manual\n    instructions: |\n      Read the diff of the branch.\n      Approve when the tests pass.\n';
const FAN =
  'name: fan\nsteps:\n  - id: split\n    type: fan_out\n    lanes:\n      - id: left\n        steps:\n          - id: l\n            type: command\n            run: "true"\n      - id: right\n        steps:\n          - id: r\n            type: command\n            run: "true"\n';
// Waits in its worktree until the test drops a file there, then a second step runs.
const HOLD =
  'name: hold\nsteps:\n  - id: wait\n    type: command\n    run: "while [ ! -f go ]; do sleep 0.1; done"\n  - id: after\n    type: command\n    run: "true"\n';

describe.skipIf(!HAVE_BUILD)('svc task show', () => {
  it(
    'shows a gate’s instructions and a clean state line, without doubled words',
    async () => {
      const { t, env } = await cliDaemon();
      const { project } = await addProject(t, { gate: GATE });
      const task = await createTask(t, { project_id: project.id, title: 'g', workflow: 'gate' });
      await waitState(t, task.id, 'awaiting_gate');
      const r = await svcProc(env, ['task', 'show', String(task.id)]);
      const lines = r.out.split('\n');
      expect(lines).toContain('  state     awaiting_gate');
      const at = lines.indexOf('waiting for your approval at review:');
      expect(at).toBeGreaterThan(0);
      expect(lines.slice(at + 1, at + 3)).toEqual([
        '  Read the diff of the branch.',
        '  Approve when the tests pass.',
      ]);
      expect(lines).toContain(
        `next: svc task approve ${task.id} · svc task reject ${task.id} · svc task skip ${task.id}`,
      );
      await act(t, task.id, 'approve');
      await waitState(t, task.id, 'done');
      const done = await svcProc(env, ['task', 'show', String(task.id)]);
      expect(done.out.split('\n')).toContain('  state     done');
      expect(done.out).not.toMatch(/done — done/);
    },
    SLOW,
  );

  it(
    'shows the agent’s question with its options and what each means',
    async () => {
      const { t, env } = await cliDaemon({
        config: agentConfig({ FAKE_CLAUDE_SCENARIO: 'ask-question' }),
      });
      const { project } = await addProject(t, { ask: agentWorkflow('ask', { agent: 'claude' }) });
      const task = await createTask(t, { project_id: project.id, title: 'q', workflow: 'ask' });
      await waitState(t, task.id, 'awaiting_input');
      const r = await svcProc(env, ['task', 'show', String(task.id)]);
      const lines = r.out.split('\n');
      const at = lines.indexOf('the agent asks: Which colour?');
      expect(at).toBeGreaterThan(0);
      expect(lines.slice(at + 1, at + 3)).toEqual(['  1. Red — warm', '  2. Blue — cool']);
      await act(t, task.id, 'cancel');
    },
    SLOW,
  );

  it(
    'changes a queued task’s priority, and withdraws a pending pause with resume',
    async () => {
      const { t, env } = await cliDaemon({ config: 'max_parallel_tasks: 1\n' });
      const { project } = await addProject(t, { hold: HOLD });
      const running = await createTask(t, { project_id: project.id, title: 'r', workflow: 'hold' });
      const wt = await worktreeOf(t, running.id);
      const queued = await createTask(t, { project_id: project.id, title: 'q', workflow: 'hold' });

      const pri = await svcProc(env, ['task', 'priority', String(queued.id), '7']);
      expect(pri).toMatchObject({ code: 0, out: `task ${queued.id} queued, priority 7` });
      expect((await svcProc(env, ['task', 'show', String(queued.id)])).out).toContain(
        '  priority  7',
      );
      const refused = await svcProc(env, ['task', 'priority', String(running.id), '7']);
      expect(refused.code).toBe(5);
      expect(refused.err).toBe(
        'svc: priority can change only while queued or paused; the task is running',
      );

      expect((await svcProc(env, ['task', 'pause', String(running.id)])).code).toBe(0);
      const pending = await svcProc(env, ['task', 'show', String(running.id)]);
      expect(pending.out).toContain('  state     running (pause requested)');
      expect(pending.out).toContain('resume withdraws the request');
      expect(pending.out).toMatch(/actions {3}cancel, pause, resume/);
      const resumed = await svcProc(env, ['task', 'resume', String(running.id)]);
      expect(resumed).toMatchObject({ code: 0, out: `task ${running.id} running` });
      expect((await getTask(t, running.id)).pause_requested).toBe(false);
      writeFileSync(join(wt, 'go'), '');
      // Past the step boundary it runs on: the withdrawn pause does not stop it.
      expect((await waitState(t, running.id, ['done', 'paused'], 30_000)).state).toBe('done');
      await act(t, queued.id, 'cancel');
    },
    SLOW,
  );

  it(
    'draws the lane tree, counts lanes without JSON, shows a follow-up, offers follow-up only with a worktree',
    async () => {
      const { t, env } = await cliDaemon();
      const { project } = await addProject(t, { fan: FAN });
      const task = await createTask(t, { project_id: project.id, title: 'fan', workflow: 'fan' });
      await waitState(t, task.id, 'done', 30_000);
      const tree = await svcProc(env, ['task', 'tree', String(task.id)]);
      expect(tree.out.split('\n').slice(1)).toEqual([
        expect.stringMatching(/^├─ \d+ left done — /),
        expect.stringMatching(/^└─ \d+ right done — /),
      ]);
      const show = await svcProc(env, ['task', 'show', String(task.id)]);
      expect(show.out).toContain('  lanes     2/2 settled (done 2)');
      expect(show.out).not.toMatch(/[{}]/);

      // While a follow-up round runs, the task says so (not `step 2/1`).
      const fu = await svcProc(env, [
        'task',
        'follow-up',
        String(task.id),
        '--run',
        'while [ ! -f go ]; do sleep 0.1; done',
      ]);
      expect(fu.code).toBe(0);
      const wt = await worktreeOf(t, task.id);
      const during = await svcProc(env, ['task', 'show', String(task.id)]);
      expect(during.out).toMatch(/^ {2}workflow {2}fan {3}follow-up 1$/m);
      writeFileSync(join(wt, 'go'), '');
      await waitState(t, task.id, 'done');

      // A task cancelled before it ever started has no worktree: no follow-up is offered.
      const held = await createTask(t, {
        project_id: project.id,
        title: 'held',
        workflow: 'fan',
        paused: true,
      });
      await act(t, held.id, 'cancel');
      const aborted = await getTask(t, held.id);
      expect(aborted).toMatchObject({ state: 'aborted', worktree_path: null });
      expect(aborted.available_actions).toEqual(['archive']);
      expect((await svcProc(env, ['task', 'show', String(held.id)])).out).toContain(
        '  actions   archive',
      );
    },
    SLOW,
  );
});
