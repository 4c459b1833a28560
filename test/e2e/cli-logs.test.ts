// Issue 19 point 7 (decision 207): `svc task logs` prints all of a transcript (not the first 4 MiB
// page), renders an agent's stream the way `-f` renders it live (text, `→ Tool summary`, results),
// keeps the stored bytes for `--raw`, and `-f` ending on a stopped task says why it stopped.
import { describe, expect, it } from 'vitest';
import { agentConfig, agentWorkflow } from '../support/agents.js';
import { cliDaemon, HAVE_BUILD, svcProc } from '../support/cli-proc.js';
import { addProject, commandWorkflow, createTask, waitState } from '../support/tasks.js';

// Each command is its own process; on a loaded machine one takes seconds.
const SLOW = 180_000;
const LINES = 90_000;

describe.skipIf(!HAVE_BUILD)('svc task logs', () => {
  it(
    'prints a transcript past the first 4 MiB page, every line once, in order',
    async () => {
      const { t, env } = await cliDaemon();
      const { project } = await addProject(t, {
        big: commandWorkflow('big', `seq 1 ${LINES} | sed 's/^/line-of-output-/'`),
      });
      const task = await createTask(t, { project_id: project.id, title: 'big', workflow: 'big' });
      await waitState(t, task.id, 'done', 60_000);
      const [run] = await t.json<Array<{ id: number }>>('GET', `/v1/tasks/${task.id}/steps`);
      const page = await t.api('GET', `/v1/tasks/${task.id}/steps/${run?.id}/transcript`);
      // The transcript is bigger than one page of the route.
      expect(Number(page.headers['x-transcript-size'])).toBeGreaterThan(4 * 1024 * 1024);
      const r = await svcProc(env, ['task', 'logs', String(task.id)]);
      expect(r.code).toBe(0);
      const lines = r.out.split('\n').filter((l) => l.startsWith('line-of-output-'));
      expect(lines).toHaveLength(LINES);
      expect(lines[0]).toBe('line-of-output-1');
      expect(lines.at(-1)).toBe(`line-of-output-${LINES}`);
    },
    SLOW,
  );

  it(
    'renders an agent’s stream as text and tool calls, and --raw as stored',
    async () => {
      const { t, env } = await cliDaemon({
        config: agentConfig({ FAKE_CLAUDE_SCENARIO: 'success' }),
      });
      const { project } = await addProject(t, { one: agentWorkflow('one', { agent: 'claude' }) });
      const task = await createTask(t, { project_id: project.id, title: 'hello', workflow: 'one' });
      await waitState(t, task.id, 'done');
      const r = await svcProc(env, ['task', 'logs', String(task.id)]);
      expect(r.code).toBe(0);
      const lines = r.out.split('\n');
      expect(lines[0]).toBe('── work attempt 1 (succeeded)');
      expect(lines).toContain('→ Bash echo fake');
      expect(lines).toContain('$ claude (full-auto)');
      // No line of the CLI's own JSON stream is printed.
      expect(lines.filter((l) => l.startsWith('{'))).toEqual([]);
      const raw = await svcProc(env, ['task', 'logs', String(task.id), '--raw']);
      expect(raw.out).toContain('"type":"assistant"');
    },
    SLOW,
  );

  it(
    '-f on a task that blocks prints the block reason and its message',
    async () => {
      const { t, env } = await cliDaemon();
      const { project } = await addProject(t, {
        broken: commandWorkflow('broken', 'echo about to fail; exit 3', '    max_retries: 0\n'),
      });
      const task = await createTask(t, { project_id: project.id, title: 'x', workflow: 'broken' });
      const r = await svcProc(env, ['task', 'logs', String(task.id), '-f']);
      expect(r.code).toBe(0);
      const lines = r.out.split('\n');
      expect(lines).toContain('about to fail');
      expect(lines).toContain('✗ failed: nonzero_exit (exit 3)');
      const at = lines.indexOf(`── task ${task.id} is blocked`);
      expect(at).toBeGreaterThan(0);
      expect(lines[at + 1]).toBe('blocked: step_failed');
      expect(lines[at + 2]).toMatch(/^ {2}\S/);
      expect(lines.at(-1)).toMatch(new RegExp(`^next: svc task retry ${task.id} · `));
    },
    SLOW,
  );
});
